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
    @Option(help: ArgumentHelp("Where the data comes from: starling or qapital (default: $QAPITAL_SOURCE; qapital with an --api-url, else the demo).", valueName: "source"))
    var source: String?

    @Option(name: .customLong("api-url"), help: ArgumentHelp("The server to use (default: $QAPITAL_API_URL; for starling, its API).", valueName: "url"))
    var apiURL: String?

    @Flag(help: "With --source starling: Starling's sandbox (api-sandbox.starlingbank.com).")
    var sandbox = false

    @Option(help: ArgumentHelp("Sent as 'Authorization: Bearer …' (default: $STARLING_TOKEN for starling, else $QAPITAL_TOKEN).", valueName: "token"))
    var token: String?

    @Option(help: ArgumentHelp("The account's currency, an ISO code (default: USD; starling uses the account's own).", valueName: "code"))
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

    @Flag(name: .customLong("allow-insecure-http"),
          help: "Send the token over plain http to a host other than this machine (anyone on the way can read it).")
    var allowInsecureHTTP = false

    /// Where the data comes from.
    enum Source: Equatable {
        case demo
        case qapital(URL)
        /// Starling's API at this base URL: connected (the token checked) when the app starts.
        case starling(URL)
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
        switch named {
        case "starling":
            // Starling always needs a token.
            if let url { return .starling(try tokenSafe(try base(url))) }
            return .starling(sandbox ? StarlingAPI.sandboxURL : StarlingAPI.productionURL)
        case "qapital", nil:
            if sandbox { throw ValidationError("--sandbox goes with --source starling") }
            if let url {
                let checked = try base(url)
                return .qapital(resolvedToken(environment) == nil ? checked : try tokenSafe(checked))
            }
            if named == "qapital" { throw ValidationError("--source qapital needs --api-url (or QAPITAL_API_URL)") }
            return .demo
        case let other?:
            throw ValidationError("--source wants starling or qapital, not \"\(TextSanitizer.clean(String(other.prefix(40))))\"")
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
        let api: (any SavingsAPI)?
        var pictureSchemes: Set<String> = ["http", "https"]
        var skippedRecords: SkippedRecords?
        switch source {
        case .demo:
            api = DemoSavingsAPI(backend: DemoBackend(options: .init(currency: accountCurrency)))
            // The demo's own pictures only: it makes no network request (the bundled achievements get pictures of its own).
            pictureSchemes = [DemoImages.scheme]
        case .qapital(let base):
            let http = QapitalHTTPAPI(baseURL: base, token: resolvedToken(environment), accountCurrency: accountCurrency,
                                      allowInsecureHTTP: allowInsecureHTTP, log: log)
            api = http
            skippedRecords = http.skippedRecords
        case .starling:
            if currency != nil { throw ValidationError("--currency does not apply to starling: the account says its own") }
            // The file's currency is for the Qapital API and the demo; Starling's account says its own.
            // Goal photos come through the API, as `starling-photo:` pictures; no other pictures are fetched.
            api = nil
            pictureSchemes = [StarlingAPI.photoScheme]
        }
        let noColorEnvironment = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let colors = !(noColor || noColorEnvironment)
        return Settings(source: source, api: api, colors: colors, currency: accountCurrency, roundUpUnits: roundUpUnits,
                        achievements: source == .demo && achievements == nil ? DemoImages.withOwnPictures(try AppOptions.loadAchievements(path: nil))
                                                                              : try AppOptions.loadAchievements(path: achievements),
                        images: colors && !noImages && (file?.images ?? true),
                        pictureSchemes: pictureSchemes, skippedRecords: skippedRecords,
                        theme: chosenTheme, keys: file?.keys ?? KeyOverrides(), log: log)
    }

    /// `--token`, else `$STARLING_TOKEN` (for starling), else `$QAPITAL_TOKEN`; empty counts as none.
    func resolvedToken(_ environment: [String: String], starling: Bool = false) -> String? {
        let candidates = [token, starling ? environment["STARLING_TOKEN"] : nil, environment["QAPITAL_TOKEN"]]
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

    /// A Starling account, checked and ready: the API and, for the header, the account.
    struct StarlingConnection: Sendable {
        let api: StarlingAPI
        let account: Account?
        /// Started from the account kept by the last run: Starling could not be reached.
        var offline = false
        var lastHeader: String?

        /// What the status bar shows: holder, numbers, balance; else the server.
        var header: String { account?.summary ?? lastHeader ?? api.sourceName }
    }

    /// Who saves a week's round-ups (the transfer's key comes from it and the week) and where
    /// the saved weeks are kept: a file beside the offline cache, or for the demo and with
    /// `--no-cache` this run only (the key still makes a second save of a whole week move nothing).
    func roundUpSaver(_ source: Source, account: String?, environment: [String: String]) -> RoundUpSaver {
        let identity: SaveIdentity
        switch source {
        case .demo:
            return RoundUpSaver(identity: .demo, record: MemoryRoundUpRecord())
        case .qapital(let base):
            identity = SaveIdentity(source: "qapital " + AppOptions.sourceText(base),
                                    account: resolvedToken(environment).map(SaveIdentity.digest) ?? "")
        case .starling(let base):
            identity = SaveIdentity(source: "starling " + AppOptions.sourceText(base), account: account ?? "")
        }
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

    /// Checks the token with Starling and picks the account; a refusal or a server that cannot
    /// be reached is an `APIError` in one line (the token itself never in it).
    static func connectStarling(baseURL: URL, token: String, allowInsecureHTTP: Bool = false, log: RequestLog? = nil)
        async throws(APIError) -> StarlingConnection {
        let api = try await StarlingAPI.connect(baseURL: baseURL, token: token, allowInsecureHTTP: allowInsecureHTTP, log: log)
        // The header: holder, numbers, balance. Without it the app still works.
        let account = try? await api.account()
        if let account { api.answerNextAsk(with: account) }  // the app's first look: one request per resource a start
        return StarlingConnection(api: api, account: account)
    }

    /// Signing in again while the app runs: Starling refused the token in use; a new one for the
    /// same account replaces it (and is remembered when asked).
    static func signInCapability(_ api: StarlingAPI, environment: [String: String]) -> AppCore.SignInCapability {
        let baseURL = api.baseURL
        let remembered = RememberedTokens(fileURL: RememberedTokens.defaultFile(environment: environment))
        return AppCore.SignInCapability(origin: api.sourceName, isRefused: { api.tokenRefused }) { token, remember in
            do {
                try await api.replaceToken(token)
            } catch let error as APIError {
                return SignInRefusal(error.message)
            } catch {
                return SignInRefusal("the token could not be checked")
            }
            if remember { try? remembered.remember(token, for: baseURL) }
            return nil
        }
    }

    /// The account the last run opened on `baseURL`, for starting while Starling cannot be
    /// reached (the token cannot be checked then; requests will check it once it can).
    func offlineConnection(baseURL: URL, token: String, environment: [String: String], log: RequestLog? = nil) -> StarlingConnection? {
        guard let directory = cacheDirectoryURL(environment: environment),
              let record = LastStarlingAccount(cacheDirectory: directory, baseURL: baseURL).load(),
              let api = try? StarlingAPI(transport: StarlingAPI.transport(baseURL: baseURL, token: token, allowInsecureHTTP: allowInsecureHTTP, log: log), account: record.account)
        else { return nil }
        return StarlingConnection(api: api, account: nil, offline: true, lastHeader: record.header)
    }

    /// How the app opens on Starling: on the account a token given or remembered reaches, or
    /// through the sign-in screen (no token, or a refused one: with its refusal).
    enum StarlingStart {
        case connected(StarlingConnection)
        case signIn(refusal: String?)
    }

    /// The token from the flags, the environment or the remembered file, checked with Starling;
    /// without one, or when Starling refuses it, the sign-in screen asks for one.
    func startStarling(baseURL: URL, environment: [String: String], log: RequestLog? = nil) async throws -> StarlingStart {
        let remembered = RememberedTokens(fileURL: RememberedTokens.defaultFile(environment: environment))
        let given = resolvedToken(environment, starling: true)
        guard let token = given ?? remembered.token(for: baseURL) else { return .signIn(refusal: nil) }
        do {
            return .connected(try await AppOptions.connectStarling(baseURL: baseURL, token: token, allowInsecureHTTP: allowInsecureHTTP, log: log))
        } catch where error.kind == .unauthorized {
            // A remembered token that is refused now is dropped.
            if given == nil { try? remembered.forget(baseURL) }
            return .signIn(refusal: error.message)
        } catch {
            // Unreachable: the account of the last run, and its cache, if there are both.
            if error.isConnectivity, let offline = offlineConnection(baseURL: baseURL, token: token, environment: environment, log: log) {
                return .connected(offline)
            }
            throw ValidationError(error.message)
        }
    }

    /// The sign-in screen, the first screen of the app's loop: a token Starling accepts opens the
    /// app on its account (and is kept when asked).
    @MainActor
    func starlingSignIn(baseURL: URL, refusal: String?, settings: Settings, environment: [String: String])
        -> SignInScreen<StarlingConnection> {
        let origin = baseURL.host.map { host in baseURL.port.map { "\(host):\($0)" } ?? host } ?? baseURL.absoluteString
        let remembered = RememberedTokens(fileURL: RememberedTokens.defaultFile(environment: environment))
        let (allowInsecureHTTP, log) = (self.allowInsecureHTTP, settings.log)
        return SignInScreen(form: SignInForm(origin: origin, refusal: refusal), check: { token in
            do {
                return .success(try await AppOptions.connectStarling(baseURL: baseURL, token: token, allowInsecureHTTP: allowInsecureHTTP, log: log))
            } catch let error as APIError {
                return .failure(SignInRefusal(error.message))
            } catch {
                return .failure(SignInRefusal("the token could not be checked"))
            }
        }, open: { accepted in
            let core = openStarling(accepted.value, baseURL: baseURL, settings: settings, environment: environment, events: accepted.events)
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

    /// The app on a checked Starling account: its header, its cache, signing in again.
    @MainActor
    func openStarling(_ connected: StarlingConnection, baseURL: URL, settings: Settings, environment: [String: String],
                      events: EventQueue = EventQueue()) -> AppCore {
        var settings = settings
        settings.skippedRecords = connected.api.skippedRecords
        settings.currency = connected.api.accountCurrency
        if !connected.offline, let directory = cacheDirectoryURL(environment: environment) {
            LastStarlingAccount(cacheDirectory: directory, baseURL: baseURL).save(.init(account: connected.api.primary, header: connected.header))
        }
        return openApp(settings, api: connected.api, sourceName: connected.header, partition: connected.api.primary.accountUid,
                       signIn: AppOptions.signInCapability(connected.api, environment: environment), environment: environment, events: events)
    }

    /// The app on `api`: a server's API behind the offline cache (one per base URL and
    /// `partition`), what the source can do besides, the core.
    @MainActor
    func openApp(_ settings: Settings, api: any SavingsAPI, sourceName: String, partition: String?,
                 signIn: AppCore.SignInCapability? = nil, environment: [String: String], events: EventQueue = EventQueue()) -> AppCore {
        var cached: (api: any SavingsAPI, capabilities: AppCore.Capabilities, note: String?)
        switch settings.source {
        case .demo:
            cached = (api, AppCore.Capabilities(), nil)
        case .qapital(let base), .starling(let base):
            cached = withOfflineCache(api, baseURL: base, partition: partition, currency: settings.currency, environment: environment)
        }
        var capabilities = cached.capabilities
        capabilities.signIn = signIn
        capabilities.skippedRecords = settings.skippedRecords
        capabilities.roundUpSaver = roundUpSaver(settings.source, account: partition, environment: environment)
        if let log = settings.log { capabilities.errorLog = { log.note("error: " + $0) } }
        let core = AppCore(api: cached.api, configuration: .init(sourceName: sourceName, colors: settings.colors,
                                                                  currency: settings.currency, images: settings.images,
                                                                  pictureSchemes: settings.pictureSchemes, keys: settings.keys,
                                                                  roundUpStep: settings.roundUpStep),
                           capabilities: capabilities, achievements: settings.achievements, events: events)
        if let note = cached.note { core.showNotice(note) }
        return core
    }

    @MainActor
    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let settings = try settings(environment: environment)
        guard isatty(STDOUT_FILENO) == 1 else {
            throw ValidationError("standard output is not a terminal; qapital-tui is a full-screen app")
        }
        guard ControllingTerminal.takeStandardInput() else {
            throw ValidationError("standard input is not a terminal and there is no terminal (/dev/tty) to read keys from")
        }
        let terminal = NcursesTerminal(theme: settings.colors ? settings.theme : .noColor)
        let runner: AppRunner
        if case .starling(let base) = settings.source {
            switch try await startStarling(baseURL: base, environment: environment, log: settings.log) {
            case .connected(let connection):
                runner = AppRunner(core: openStarling(connection, baseURL: base, settings: settings, environment: environment), terminal: terminal)
            case .signIn(let refusal):
                runner = AppRunner(signIn: starlingSignIn(baseURL: base, refusal: refusal, settings: settings, environment: environment),
                                   terminal: terminal)
            }
        } else if let api = settings.api {
            runner = AppRunner(core: openApp(settings, api: api, sourceName: api.sourceName, partition: resolvedToken(environment),
                                             environment: environment), terminal: terminal)
        } else {
            return
        }
        terminal.start(colors: settings.colors)
        await runner.run()
        terminal.stop()
        if let signal = runner.quitSignal {
            throw ExitCode(128 + signal)
        }
        // Left the sign-in (Esc) without signing in: not a success (docs/cli.md, 77).
        if runner.core == nil { throw HeadlessExit.notSignedIn }
    }
}
