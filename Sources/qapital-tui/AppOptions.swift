import QapitalClient
import StarlingClient
import DemoData
import ArgumentParser
import FeedCache
import FeedModel
import HTTPTransport
import QapitalApp
import Foundation
import TermUI
#if canImport(Glibc)
import Glibc
#endif

/// The app's options and everything they decide, checked before the terminal is touched.
struct AppOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Where the data comes from: \(SourceRegistry.list()) (default: $QAPITAL_SOURCE; qapital with an --api-url, else the demo).", valueName: "source"))
    var source: String?

    @Option(name: .customLong("api-url"), help: ArgumentHelp("The server to use (default: $QAPITAL_API_URL; for starling, its API).", valueName: "url"))
    var apiURL: String?

    @Flag(help: ArgumentHelp(AppOptions.sandboxHelp))
    var sandbox = false

    @Option(help: ArgumentHelp("Sent as 'Authorization: Bearer …' (default: \(AppOptions.tokenVariablesHelp)). A value given here is visible to other users (ps, /proc) and stays in the shell's history: prefer those variables, a remembered token, --token-file, or --token - to read it from standard input.", valueName: "token"))
    var token: String?

    @Option(name: .customLong("token-file"), help: ArgumentHelp("Read the token from this file (its first line; keep it mode 0600), instead of --token.", valueName: "path"))
    var tokenFile: String?

    @Option(help: ArgumentHelp("The account's currency, an ISO code (default: USD; \(AppOptions.bankNames) use the account's own).", valueName: "code"))
    var currency: String?

    @Option(name: .customLong("round-up-step"),
            help: ArgumentHelp("Payments round up to the next multiple of this many whole units of the account's currency (default: 1, or 100 for JPY and other currencies without minor units).", valueName: "units"))
    var roundUpStep: Int?

    @Option(help: ArgumentHelp("An achievements JSON file ({\"overview\": {\"title\"}, \"achievements\": [...]}; default: the bundled one).", valueName: "path"))
    var achievements: String?

    @Flag(name: .customLong("no-color"), help: "Draw without colours.")
    var noColor = false

    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("Where the offline cache lives (default: $XDG_CACHE_HOME/qapital-tui or ~/.cache/qapital-tui).", valueName: "path"))
    var cacheDirectory: String?

    @Flag(name: .customLong("no-cache"), help: "Keep no offline cache.")
    var noCache = false

    @Flag(name: .customLong("no-images"), help: "Show monograms instead of goal images and avatars.")
    var noImages = false

    @Option(help: ArgumentHelp("The colours: default (the terminal's own), light or dark (default: the config file's, else default).", valueName: "name"))
    var theme: String?

    @Option(name: .customLong("log-file"), help: ArgumentHelp("Append one line per request (method, path, status, ms) and every error to this file, for a bug report; never a token or an amount.", valueName: "path"))
    var logFile: String?

    @Option(help: ArgumentHelp("The config file (default: $XDG_CONFIG_HOME/qapital-tui/config.toml, if there is one).", valueName: "path"))
    var config: String?

    @Flag(name: .customLong("reset-demo"), help: "Start the demo again: forget the saves it kept in the data folder.")
    var resetDemo = false

    @Flag(name: .customLong("allow-insecure-http"),
          help: "Send the token over plain http to a host other than this machine (anyone on the way can read it).")
    var allowInsecureHTTP = false

    /// Where the data comes from: a registered source and, for a server, its base URL.
    struct Source: Equatable {
        let registered: RegisteredSource
        /// nil for the demo (in process).
        let baseURL: URL?

        init(_ registered: RegisteredSource, _ baseURL: URL?) {
            self.registered = registered
            self.baseURL = baseURL
        }

        static let demo = Source(.demo, nil)

        var description: SourceDescription { registered.description }

        static func == (left: Source, right: Source) -> Bool {
            left.registered.name == right.registered.name && left.baseURL == right.baseURL
        }
    }

    /// `--sandbox`'s help: the sources that have one.
    static var sandboxHelp: String {
        let withSandbox = SourceRegistry.all.filter { $0.description.sandboxURL != nil }
        let hosts = withSandbox.compactMap { $0.description.sandboxURL?.host }.joined(separator: ", ")
        return "With --source \(SourceRegistry.list(withSandbox)): its sandbox (\(hosts))."
    }

    /// "$STARLING_TOKEN for starling, …, else $QAPITAL_TOKEN".
    static var tokenVariablesHelp: String {
        let own = SourceRegistry.all.compactMap { source -> String? in
            guard source.description.signIn.checksToken, let first = source.description.tokenVariables.first else { return nil }
            return "$\(first) for \(source.name)"
        }
        return (own + ["else $QAPITAL_TOKEN"]).joined(separator: ", ")
    }

    /// "starling" (the banks, whose accounts say their own currency).
    static var bankNames: String {
        SourceRegistry.list(SourceRegistry.all.filter { $0.description.can(.bankAccount) })
    }

    /// Everything the app needs, checked before the terminal is touched.
    struct Settings {
        var source: Source
        /// The API to use; nil for Starling until the token is checked.
        var api: (any SavingsAPI)?
        var colors: Bool
        var currency: Currency = .usd
        /// `--round-up-step` (or the file's `round-up-step`), in whole units; nil: the currency's default.
        var roundUpUnits: Int?
        var achievements: AchievementsFile
        /// Pictures are shown with colours only (NO_COLOR: monograms without colour).
        var images: Bool = true
        /// The URL schemes pictures come from (the demo's are made in process).
        var pictureSchemes: Set<String> = ["http", "https"]
        /// Where the source notes records it skipped (for the status bar).
        var skippedRecords: SkippedRecords?
        /// The colours when colours are on (the config file's theme, or `--theme`).
        var theme: Theme = .terminal
        /// Keys the config file rebinds.
        var keys = KeyOverrides()
        /// The config file's `[NAME]` table for the chosen source.
        var sourceSettings: [String: String] = [:]
        /// The config file's `[terminal]` table: what the probe may not decide.
        var terminal = TerminalCapabilities.Overrides()
        /// The cell in pixels where the terminal draws pictures itself (after the probe).
        var pictureCellPixels: PixelSize?

        /// The round-up step in minor units of the account's currency (known for Starling only after sign-in).
        var roundUpStep: Int64? { roundUpUnits.map { Int64($0) * currency.minorPerUnit } }
        /// `--log-file`, opened.
        var log: RequestLog?
    }

    /// The largest `--round-up-step`, in whole units.
    static let maximumRoundUpStep = 1_000_000

    /// The achievements file named on the command line, or the one bundled with the app.
    static func loadAchievements(path: String?) throws -> AchievementsFile {
        do {
            if let path {
                return try AchievementsLoader.load(contentsOf: URL(fileURLWithPath: path))
            }
            return try BundledAchievements.load()
        } catch {
            throw ValidationError("--achievements: \(error.message)")
        }
    }

    /// Which source the flags and environment choose, with its base URL.
    func chosenSource(environment: [String: String], file: ConfigFile? = nil) throws -> Source {
        let named = (source ?? environment["QAPITAL_SOURCE"].flatMap { $0.isEmpty ? nil : $0 } ?? file?.source)?.lowercased()
        let url = apiURL ?? environment["QAPITAL_API_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? file?.apiURL
        func base(_ text: String) throws -> URL {
            do {
                return try HTTPTransport.validate(baseURL: text)
            } catch {
                throw ValidationError("--api-url: \(error.message)")
            }
        }
        // No source named: the Qapital API with a URL, else the demo.
        let chosen: RegisteredSource
        if let named {
            guard let registered = SourceRegistry.named(named) else {
                throw ValidationError("--source wants \(SourceRegistry.list()), not \"\(TextSanitizer.clean(String(named.prefix(40))))\"")
            }
            chosen = registered
        } else {
            chosen = url == nil ? .demo : .qapital
        }
        let description = chosen.description
        if sandbox && description.sandboxURL == nil {
            let withSandbox = SourceRegistry.all.filter { $0.description.sandboxURL != nil }
            throw ValidationError("--sandbox goes with --source \(SourceRegistry.list(withSandbox))")
        }
        switch description.signIn {
        case .none:
            return .demo
        case .optionalToken:
            guard let url else {
                throw ValidationError("--source \(description.name) needs --api-url (or QAPITAL_API_URL)")
            }
            let checked = try base(url)
            return Source(chosen, resolvedToken(environment, for: description) == nil ? checked : try tokenSafe(checked))
        case .token, .tokenOrOAuth:
            // A bank always needs a token.
            if let url { return Source(chosen, try tokenSafe(try base(url))) }
            guard let fixed = (sandbox ? description.sandboxURL : nil) ?? description.baseURL else {
                throw ValidationError("--source \(description.name) needs --api-url")
            }
            return Source(chosen, fixed)
        }
    }

    /// A base URL a token may go to: https, or plain http to this machine, or `--allow-insecure-http`.
    func tokenSafe(_ url: URL) throws -> URL {
        do {
            try HTTPTransport.checkTokenTransport(baseURL: url, allowInsecureHTTP: allowInsecureHTTP)
        } catch {
            throw ValidationError("--api-url: \(error.message)")
        }
        return url
    }

    func settings(environment: [String: String]) throws -> Settings {
        let file: ConfigFile?
        do {
            file = try ConfigFile.load(path: config, environment: environment)
        } catch {
            throw ValidationError(error.message)
        }
        let code = currency ?? file?.currency ?? "USD"
        guard let accountCurrency = Currency.from(code: code) else {
            throw ValidationError("--currency: " + Currency.refusal(code))
        }
        let roundUpUnits = roundUpStep ?? file?.roundUpStep
        if let roundUpUnits, !(1...AppOptions.maximumRoundUpStep).contains(roundUpUnits) {
            throw ValidationError("--round-up-step wants a whole number of units from 1 to \(AppOptions.maximumRoundUpStep), not \(roundUpUnits)")
        }
        let source = try chosenSource(environment: environment, file: file)
        var chosenTheme = file?.theme ?? .terminal
        if let theme {
            guard let named = Theme.named.first(where: { $0.name == theme.lowercased() }) else {
                throw ValidationError("--theme wants default, light or dark, not \"\(TextSanitizer.clean(String(theme.prefix(40))))\"")
            }
            chosenTheme = named.theme
        }
        var log: RequestLog?
        if let logFile {
            do {
                log = try RequestLog(path: logFile)
            } catch {
                throw ValidationError(error.message)
            }
        }
        var api: (any SavingsAPI)?
        var skippedRecords: SkippedRecords?
        switch source.registered.open {
        case .direct(let make):
            let made = make(DirectRequest(baseURL: source.baseURL, token: resolvedToken(environment, for: source.description),
                                          currency: accountCurrency, allowInsecureHTTP: allowInsecureHTTP, log: log))
            api = made.api
            skippedRecords = made.skipped
            // The demo keeps its saves in the data folder, as an account would (--reset-demo forgets them).
            if let demo = api as? DemoSavingsAPI, let file = try demoSaves(environment: environment) {
                api = KeptDemoAPI(base: demo, file: file)
            }
        case .bank:
            if currency != nil {
                throw ValidationError("--currency does not apply to \(source.description.name): the account says its own")
            }
            // The file's currency is for the Qapital API and the demo; a bank's account says its own.
            // The API is made once the token is checked.
            api = nil
        }
        let pictureSchemes = source.registered.pictureSchemes
        let noColorEnvironment = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let colors = !(noColor || noColorEnvironment)
        return Settings(source: source, api: api, colors: colors, currency: accountCurrency, roundUpUnits: roundUpUnits,
                        achievements: source == .demo && achievements == nil ? DemoImages.withOwnPictures(try AppOptions.loadAchievements(path: nil))
                                                                              : try AppOptions.loadAchievements(path: achievements),
                        images: colors && !noImages && (file?.images ?? true),
                        pictureSchemes: pictureSchemes, skippedRecords: skippedRecords,
                        theme: chosenTheme, keys: file?.keys ?? KeyOverrides(),
                        sourceSettings: file?.sourceSettings[source.description.name] ?? [:], terminal: file?.terminal ?? .init(), log: log)
    }

    /// `--token`, else the source's environment variables in order (`$STARLING_TOKEN`, then
    /// `$QAPITAL_TOKEN` for starling); empty counts as none.
    func resolvedToken(_ environment: [String: String], for source: SourceDescription = QapitalHTTPAPI.source) -> String? {
        let candidates = [token] + source.tokenVariables.map { environment[$0] }
        return candidates.compactMap { $0 }.first { !$0.isEmpty }
    }

    /// Puts the offline cache in front of a server's API (the demo keeps none): one file per
    /// base URL and `partition` (Qapital's token, Starling's account uid; the file name holds
    /// only a hash of it). Returns the API to use, what the cache adds (given to the app, never
    /// found by downcasting), and a note when the cache could not be used as it was.
    func withOfflineCache(_ remote: any SavingsAPI, baseURL: URL, partition: String?, currency: Currency,
                          environment: [String: String])
        -> (api: any SavingsAPI, capabilities: AppCore.Capabilities, note: String?) {
        guard let directory = cacheDirectoryURL(environment: environment) else { return (remote, AppCore.Capabilities(), nil) }
        let opened = SQLiteCache.open(directory: directory, baseURL: baseURL, token: partition, accountCurrency: currency)
        guard let cache = opened.cache else { return (remote, AppCore.Capabilities(), opened.note) }
        let caching = CachingSavingsAPI(remote: remote, cache: cache)
        let capabilities = AppCore.Capabilities(cache: cache, connectivity: caching.connectivity, refreshCache: { caching.refresh() })
        return (caching, capabilities, opened.note)
    }

    /// A bank account, checked and ready: the API and, for the header, the account.
    struct BankConnection: Sendable {
        let api: any BankAPI
        let account: Account?
        /// Started from the account kept by the last run: the bank could not be reached.
        var offline = false
        var lastHeader: String?

        /// What the status bar shows: holder, numbers, balance; else the server.
        var header: String { account?.summary ?? lastHeader ?? api.sourceName }
    }

    /// Who saves a week's round-ups (the transfer's key comes from it and the week) and where
    /// the saved weeks are kept: a file beside the offline cache, or for the demo and with
    /// `--no-cache` this run only (the key still makes a second save of a whole week move nothing).
    /// The identity is the source's name and base URL, and the account as the server names it: a
    /// bank's account id; the Qapital API names none, so the owner of the goal saved into stands
    /// for it. Never the token: signing in again is the same account.
    func roundUpSaver(_ source: Source, account: String?, environment: [String: String]) -> RoundUpSaver {
        guard let base = source.baseURL else {
            guard let directory = DemoSavesFile.defaultDirectory(environment: environment) else {
                return RoundUpSaver(identity: .demo, record: MemoryRoundUpRecord())
            }
            return RoundUpSaver(identity: .demo, record: RoundUpRecordFile(directory: directory, identity: .demo))
        }
        let identity = SaveIdentity.forSaving(sourceName: source.description.name, baseURL: AppOptions.sourceText(base),
                                              account: source.description.signIn.checksToken ? account ?? "" : nil)
        guard let directory = cacheDirectoryURL(environment: environment) else {
            return RoundUpSaver(identity: identity, record: MemoryRoundUpRecord())
        }
        return RoundUpSaver(identity: identity, record: RoundUpRecordFile(directory: directory, identity: identity))
    }

    /// A base URL as a key names it: lowercased, without a trailing slash.
    static func sourceText(_ url: URL) -> String {
        var text = url.absoluteString.lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// Where the offline cache lives (nil with `--no-cache`).
    func cacheDirectoryURL(environment: [String: String]) -> URL? {
        guard !noCache else { return nil }
        return cacheDirectory.map { URL(fileURLWithPath: $0) } ?? SQLiteCache.defaultDirectory(environment: environment)
    }

    /// Checks the token with the bank and picks the account; a refusal or a server that cannot
    /// be reached is an `APIError` in one line (the token itself never in it).
    static func connect(_ bank: BankConnector, baseURL: URL, token: String, allowInsecureHTTP: Bool = false, log: RequestLog? = nil,
                        settings: [String: String] = [:], refresh: (@Sendable (String?) async -> String?)? = nil)
        async throws(APIError) -> BankConnection {
        let api = try await bank.connect(BankRequest(baseURL: baseURL, token: token, allowInsecureHTTP: allowInsecureHTTP, log: log,
                                                     settings: settings, refresh: refresh))
        // The header: holder, numbers, balance. Without it the app still works.
        let account = try? await api.account()
        if let account { api.answerNextAsk(with: account) }  // the app's first look: one request per resource a start
        return BankConnection(api: api, account: account)
    }

    /// Signing in again while the app runs: the bank refused the token in use; a new one for the
    /// same account replaces it (and is remembered when asked).
    static func signInCapability(_ api: any BankAPI, source: SourceDescription = StarlingAPI.source,
                                 environment: [String: String]) -> AppCore.SignInCapability {
        let baseURL = api.baseURL
        let remembered = RememberedTokens(fileURL: RememberedTokens.defaultFile(environment: environment))
        var capability = AppCore.SignInCapability(origin: api.sourceName, isRefused: { api.tokenRefused }) { token, remember in
            do throws(APIError) {
                try await api.replaceToken(token)
            } catch {
                return SignInRefusal(error.message)
            }
            if remember { try? remembered.remember(token, for: baseURL) }
            return nil
        }
        capability.title = source.title
        capability.tokenCheck = source.tokenCheck ?? capability.tokenCheck
        capability.awaitsApproval = { api.awaitsApproval }
        return capability
    }

    /// How the app opens on a bank: on the account a token given or remembered reaches, or
    /// through the sign-in screen (no token, or a refused one: with its refusal).
    enum BankStart {
        case connected(BankConnection)
        /// `pending`: a token the customer has yet to approve in the bank's app, for the form to try again.
        case signIn(refusal: String?, pending: String? = nil)
    }

    /// The token from the flags, the environment or the remembered file, checked with the bank;
    /// without one, or when the bank refuses it, the sign-in screen asks for one.
    /// After a token given on the command line or in the environment comes the pair `login NAME`
    /// kept (refreshed first when it is about to expire, or once when the bank refuses it; the
    /// client's id and secret from `sourceSettings`, the config file's table), then a remembered token.
    func startBank(_ source: Source, environment: [String: String], log: RequestLog? = nil,
                   sourceSettings: [String: String] = [:]) async throws -> BankStart {
        guard let bank = source.registered.bank, let baseURL = source.baseURL else { throw ValidationError("not a bank") }
        let remembered = RememberedTokens(fileURL: RememberedTokens.defaultFile(environment: environment))
        let given = resolvedToken(environment, for: source.description)
        let pairs = OAuthTokenPairs(fileURL: OAuthTokenPairs.defaultFile(environment: environment))
        if given == nil, let support = bank.oauth, let pair = pairs.pair(for: baseURL) {
            var flow: (any OAuthFlow)?
            if let id = sourceSettings["client-id"], let secret = sourceSettings["client-secret"] {
                flow = support.make(baseURL, id, secret, allowInsecureHTTP, log)
            }
            do {
                return try await startFromPair(pair, bank: bank, flow: flow, pairs: pairs, baseURL: baseURL, log: log,
                                               settings: sourceSettings)
            } catch let error as APIError {
                if error.isConnectivity, let offline = offlineStart(bank, baseURL: baseURL, token: pair.accessToken,
                                                                     environment: environment, log: log, settings: sourceSettings) {
                    return offline
                }
                throw ValidationError(error.message)
            }
        }
        guard let token = given ?? remembered.token(for: baseURL) else { return .signIn(refusal: nil) }
        do {
            return .connected(try await AppOptions.connect(bank, baseURL: baseURL, token: token, allowInsecureHTTP: allowInsecureHTTP, log: log,
                                                           settings: sourceSettings))
        } catch where error.kind == .unauthorized {
            if error.awaitsApproval { return .signIn(refusal: error.message, pending: token) }
            // A remembered token that is refused now is dropped.
            if given == nil { try? remembered.forget(baseURL) }
            return .signIn(refusal: error.message)
        } catch {
            // Unreachable: the account of the last run, and its cache, if there are both.
            if error.isConnectivity, let offline = offlineStart(bank, baseURL: baseURL, token: token, environment: environment, log: log,
                                                                     settings: sourceSettings) {
                return offline
            }
            throw ValidationError(error.message)
        }
    }

    /// The account the last run opened on `baseURL`, for starting while the bank cannot be
    /// reached (the token cannot be checked then; requests will check it once it can).
    func offlineStart(_ bank: BankConnector, baseURL: URL, token: String, environment: [String: String],
                      log: RequestLog?, settings: [String: String] = [:]) -> BankStart? {
        guard let directory = cacheDirectoryURL(environment: environment),
              let kept = bank.offline?(BankRequest(baseURL: baseURL, token: token, allowInsecureHTTP: allowInsecureHTTP, log: log,
                                                   settings: settings),
                                       directory) else { return nil }
        return .connected(BankConnection(api: kept.api, account: nil, offline: true, lastHeader: kept.header))
    }

    /// Opens the bank with a kept OAuth pair: refreshed before it expires, or once on a refusal;
    /// each new pair written over the old one at once (a refresh makes the old one useless). A
    /// refresh the bank refuses ends that sign-in: the pair is dropped and the sign-in form shown.
    /// Any other failure is thrown as the `APIError` it is.
    func startFromPair(_ kept: OAuthTokenPairs.Pair, bank: BankConnector, flow: (any OAuthFlow)?, pairs: OAuthTokenPairs,
                       baseURL: URL, log: RequestLog?, settings: [String: String] = [:], now: Date = Date()) async throws -> BankStart {
        let refresher = flow.map { PairRefresher(pair: kept, flow: $0, pairs: pairs, baseURL: baseURL) }
        func ended(_ error: APIError) -> BankStart {
            .signIn(refusal: "The sign-in has ended (\(error.message)): run qapital-tui login again, or paste a token.")
        }
        if kept.needsRefresh(now: now), let refresher, case .failure(let error) = await refresher.refreshNow(), !error.isConnectivity {
            return ended(error)
        }
        let token = await refresher?.pair.accessToken ?? kept.accessToken
        var refresh: (@Sendable (String?) async -> String?)?
        if let refresher {
            refresh = { @Sendable (refused: String?) async -> String? in await refresher.fresh(after: refused) }
        }
        switch await connecting(bank, baseURL: baseURL, token: token, log: log, settings: settings, refresh: refresh) {
        case .success(let connection):
            return .connected(connection)
        case .failure(let error):
            guard error.kind == .unauthorized else { throw error }
            let current = await refresher?.pair.accessToken ?? token
            if error.awaitsApproval { return .signIn(refusal: error.message, pending: current) }
            if let refusal = await refresher?.refusal { return ended(refusal) }
            return .signIn(refusal: error.message)
        }
    }

    private func connecting(_ bank: BankConnector, baseURL: URL, token: String, log: RequestLog?, settings: [String: String],
                            refresh: (@Sendable (String?) async -> String?)?) async -> Result<BankConnection, APIError> {
        do throws(APIError) {
            return .success(try await AppOptions.connect(bank, baseURL: baseURL, token: token, allowInsecureHTTP: allowInsecureHTTP,
                                                         log: log, settings: settings, refresh: refresh))
        } catch {
            return .failure(error)
        }
    }

    /// The sign-in screen, the first screen of the app's loop: a token the bank accepts opens the
    /// app on its account (and is kept when asked).
    @MainActor
    func bankSignIn(_ source: Source, refusal: String?, pending: String? = nil, settings: Settings, environment: [String: String])
        -> SignInScreen<BankConnection>? {
        guard let bank = source.registered.bank, let baseURL = source.baseURL else { return nil }
        let origin = baseURL.host.map { host in baseURL.port.map { "\(host):\($0)" } ?? host } ?? baseURL.absoluteString
        let remembered = RememberedTokens(fileURL: RememberedTokens.defaultFile(environment: environment))
        let (allowInsecureHTTP, log, sourceSettings) = (self.allowInsecureHTTP, settings.log, settings.sourceSettings)
        let description = source.description
        let form = SignInForm(origin: origin, refusal: refusal, title: description.title,
                              tokenCheck: description.tokenCheck ?? "a request to the bank", token: pending)
        return SignInScreen(form: form, check: { token in
            do throws(APIError) {
                return .success(try await AppOptions.connect(bank, baseURL: baseURL, token: token, allowInsecureHTTP: allowInsecureHTTP, log: log,
                                                             settings: sourceSettings))
            } catch {
                return .failure(SignInRefusal(error.message))
            }
        }, open: { accepted in
            let core = openBank(accepted.value, source: source, settings: settings, environment: environment, events: accepted.events)
            if accepted.remember {
                do throws(RememberedTokens.Failure) {
                    try remembered.remember(accepted.token, for: baseURL)
                } catch {
                    core.showNotice("The token was not remembered: \(error.message)")
                }
            }
            return core
        })
    }

    /// The app on a checked bank account: its header, its cache, signing in again.
    @MainActor
    func openBank(_ connected: BankConnection, source: Source, settings: Settings, environment: [String: String],
                  events: EventQueue = EventQueue()) -> AppCore {
        var settings = settings
        settings.skippedRecords = connected.api.skippedRecords
        settings.currency = connected.api.accountCurrency
        if !connected.offline, let directory = cacheDirectoryURL(environment: environment) {
            source.registered.bank?.keep?(connected.api, connected.header, directory)
        }
        let api = connected.api
        return openApp(settings, api: api, sourceName: connected.header, partition: api.accountId,
                       signIn: AppOptions.signInCapability(api, source: source.description, environment: environment),
                       sourceNote: { api.statusNote }, environment: environment, events: events)
    }

    /// The app on `api`: a server's API behind the offline cache (one per base URL and
    /// `partition`), what the source can do besides, the core.
    @MainActor
    func openApp(_ settings: Settings, api: any SavingsAPI, sourceName: String, partition: String?,
                 signIn: AppCore.SignInCapability? = nil, sourceNote: (@Sendable () -> String?)? = nil,
                 environment: [String: String], events: EventQueue = EventQueue()) -> AppCore {
        var cached: (api: any SavingsAPI, capabilities: AppCore.Capabilities, note: String?) = (api, AppCore.Capabilities(), nil)
        if let base = settings.source.baseURL {
            cached = withOfflineCache(api, baseURL: base, partition: partition, currency: settings.currency, environment: environment)
        }
        var capabilities = cached.capabilities
        capabilities.signIn = signIn
        capabilities.sourceNote = sourceNote
        capabilities.skippedRecords = settings.skippedRecords
        capabilities.roundUpSaver = roundUpSaver(settings.source, account: partition, environment: environment)
        if let log = settings.log { capabilities.errorLog = { log.note("error: " + $0) } }
        var configuration = AppCore.Configuration(sourceName: sourceName, colors: settings.colors, currency: settings.currency,
                                                  images: settings.images, pictureSchemes: settings.pictureSchemes,
                                                  keys: settings.keys, roundUpStep: settings.roundUpStep)
        configuration.noGoalCreation = settings.source.description.noGoalCreation
        configuration.noMoneyMoves = settings.source.description.noMoneyMoves
        configuration.pictureCellPixels = settings.pictureCellPixels
        let core = AppCore(api: cached.api, configuration: configuration, capabilities: capabilities,
                           achievements: settings.achievements, events: events)
        if let note = cached.note { core.showNotice(note) }
        return core
    }

    @MainActor
    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var settings = try settings(environment: environment)
        guard isatty(STDOUT_FILENO) == 1 else {
            throw ValidationError("standard output is not a terminal; qapital-tui is a full-screen app")
        }
        // Keys (and the probe's replies) from the terminal even when stdin is not one, as less and fzf do.
        guard ControllingTerminal.takeStandardInput() else {
            throw ValidationError("standard input is not a terminal and there is no terminal (/dev/tty) to read keys from")
        }
        let probe = TerminalProbe.run(environment: environment, overrides: settings.terminal)
        let capabilities = TerminalCapabilities.resolve(replies: probe.replies, environment: environment, overrides: settings.terminal,
                                                        size: TerminalProbe.windowSize())
        if settings.images && NcursesTerminal.drawsPictures(capabilities.graphics) { settings.pictureCellPixels = capabilities.pictureCellPixels }
        let terminal = NcursesTerminal(theme: settings.colors ? settings.theme : .noColor, capabilities: capabilities)
        let runner: AppRunner
        if settings.source.registered.bank != nil {
            switch try await startBank(settings.source, environment: environment, log: settings.log,
                                       sourceSettings: settings.sourceSettings) {
            case .connected(let connection):
                runner = AppRunner(core: openBank(connection, source: settings.source, settings: settings, environment: environment),
                                   terminal: terminal)
            case .signIn(let refusal, let pending):
                guard let screen = bankSignIn(settings.source, refusal: refusal, pending: pending, settings: settings,
                                              environment: environment) else { return }
                runner = AppRunner(signIn: screen, terminal: terminal)
            }
        } else if let api = settings.api {
            runner = AppRunner(core: openApp(settings, api: api, sourceName: api.sourceName,
                                             partition: resolvedToken(environment, for: settings.source.description),
                                             environment: environment), terminal: terminal)
        } else {
            return
        }
        terminal.start(colors: settings.colors, pendingInput: probe.input)
        await runner.run()
        terminal.stop()
        if let signal = runner.quitSignal {
            throw ExitCode(128 + signal)
        }
        // Left the sign-in (Esc) without signing in: not a success (docs/cli.md, 77).
        if runner.core == nil { throw HeadlessExit.notSignedIn }
    }
}
