import QapitalClient
import DemoData
import ArgumentParser
import FeedCache
import FeedModel
import HTTPTransport
import QapitalApp
import Foundation
import SourceKit
import TermUI
#if canImport(Glibc)
import Glibc
#endif

/// The options the app and every headless command share (where the data comes from, the token,
/// the cache, the config file) and everything they decide, checked before the terminal is touched.
/// What only the full-screen app takes is `ScreenOptions`.
struct AppOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Where the data comes from: \(SourceRegistry.list()) (default: $QAPITAL_SOURCE; qapital with an --api-url, else the demo).", valueName: "source"))
    var source: String?

    @Option(name: .customLong("api-url"), help: ArgumentHelp("The server to use (default: $QAPITAL_API_URL; for a bank, its own API).", valueName: "url"))
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

    @Flag(name: .customLong("no-color"), help: "Draw without colours.")
    var noColor = false

    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("Where the offline cache lives (default: $XDG_CACHE_HOME/qapital-tui or ~/.cache/qapital-tui).", valueName: "path"))
    var cacheDirectory: String?

    @Flag(name: .customLong("no-cache"), help: "Keep no offline cache.")
    var noCache = false

    @Option(name: .customLong("log-file"), help: ArgumentHelp("Append one line per request (method, path, status, ms) and every error to this file, for a bug report; never a token or an amount.", valueName: "path"))
    var logFile: String?

    @Option(help: ArgumentHelp("The config file (default: $XDG_CONFIG_HOME/qapital-tui/config.toml, if there is one).", valueName: "path"))
    var config: String?

    @Flag(name: .customLong("reset-demo"), help: "Start the demo again: forget the goals made and the saves it kept in the data folder.")
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
        /// For a screen reader: the cursor on the selected row, the spinner in words, no pictures.
        var screenReader = false
        /// `--no-browser`: the app's sign-in at a bank only shows the address.
        var noBrowser = false
    }

    /// The largest `--round-up-step`, in whole units.
    static let maximumRoundUpStep = 1_000_000

    /// The achievements file named on the command line, or the one bundled with the app.
    static func loadAchievements(path: String?) throws -> AchievementsFile {
        do {
            if let path {
                return try AchievementsLoader.load(contentsOf: URL(fileURLWithPath: HomePath.expand(path)))
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

    /// `screen`: the app's own flags; nil for a headless command (which takes none of them).
    func settings(environment: [String: String], screen: ScreenOptions? = nil) throws -> Settings {
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
        if let theme = screen?.theme {
            guard let named = Theme.named.first(where: { $0.name == theme.lowercased() }) else {
                throw ValidationError("--theme wants default, light or dark, not \"\(TextSanitizer.clean(String(theme.prefix(40))))\"")
            }
            chosenTheme = named.theme
        }
        var log: RequestLog?
        if let logFile {
            do {
                log = try RequestLog(path: HomePath.expand(logFile, environment: environment))
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
                        achievements: try achievements(source: source, path: screen?.achievements),
                        images: colors && !(screen?.noImages ?? false) && (file?.images ?? true)
                            && !screenReaderMode(environment, file: file, flag: screen?.screenReader ?? false),
                        pictureSchemes: pictureSchemes, skippedRecords: skippedRecords,
                        theme: chosenTheme, keys: file?.keys ?? KeyOverrides(),
                        sourceSettings: file?.sourceSettings[source.description.name] ?? [:], terminal: file?.terminal ?? .init(), log: log,
                        screenReader: screenReaderMode(environment, file: file, flag: screen?.screenReader ?? false),
                        noBrowser: screen?.noBrowser ?? false)
    }

    /// `--achievements`, else the bundled file (the demo's with its own pictures).
    private func achievements(source: Source, path: String?) throws -> AchievementsFile {
        if source == .demo && path == nil { return DemoImages.withOwnPictures(try AppOptions.loadAchievements(path: nil)) }
        return try AppOptions.loadAchievements(path: path)
    }

    /// `--screen-reader`, else `ACCESSIBLE` set (and not `0`, as charm's tools read it), else the
    /// config file's `[ui] screen-reader`.
    func screenReaderMode(_ environment: [String: String], file: ConfigFile?, flag: Bool) -> Bool {
        if flag { return true }
        if let accessible = environment["ACCESSIBLE"], !accessible.isEmpty, accessible != "0" { return true }
        return file?.screenReader ?? false
    }

    /// `--token`, else the source's environment variables in order (`$STARLING_TOKEN`, then
    /// `$QAPITAL_TOKEN` for starling); empty counts as none.
    func resolvedToken(_ environment: [String: String], for source: SourceDescription = QapitalHTTPAPI.source) -> String? {
        let candidates = [token] + source.tokenVariables.map { environment[$0] }
        return candidates.compactMap { $0 }.first { !$0.isEmpty }
    }

    /// Where the offline cache lives (nil with `--no-cache`).
    func cacheDirectoryURL(environment: [String: String]) -> URL? {
        guard !noCache else { return nil }
        return cacheDirectory.map { URL(fileURLWithPath: HomePath.expand($0, environment: environment)) }
            ?? SQLiteCache.defaultDirectory(environment: environment)
    }
}
