import QapitalClient
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

/// The app itself (the default subcommand).
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the app (the default).",
        discussion: """
        Without --api-url (or QAPITAL_API_URL) the app runs on its built-in demo data.
        NO_COLOR in the environment turns colours off, like --no-color.
        """
    )

    @Option(name: .customLong("api-url"), help: ArgumentHelp("The server to use (default: $QAPITAL_API_URL, else the demo data).", valueName: "url"))
    var apiURL: String?

    @Option(help: ArgumentHelp("Sent as 'Authorization: Bearer …' (default: $QAPITAL_TOKEN).", valueName: "token"))
    var token: String?

    @Option(help: ArgumentHelp("The account's currency, an ISO code (default: USD).", valueName: "code"))
    var currency: String = "USD"

    @Option(help: ArgumentHelp("An achievements file in seed 004's format (default: the bundled one).", valueName: "path"))
    var achievements: String?

    @Flag(name: .customLong("no-color"), help: "Draw without colours.")
    var noColor = false

    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("Where the offline cache lives (default: $XDG_CACHE_HOME/qapital-tui or ~/.cache/qapital-tui).", valueName: "path"))
    var cacheDirectory: String?

    @Flag(name: .customLong("no-cache"), help: "Keep no offline cache.")
    var noCache = false

    @Flag(name: .customLong("no-images"), help: "Show monograms instead of goal images and avatars.")
    var noImages = false

    /// Everything the app needs, checked before the terminal is touched.
    struct Settings {
        var api: any SavingsAPI
        /// The HTTP client behind `api`, when the source is a server (the offline cache goes in front of it).
        var http: QapitalHTTPAPI?
        var colors: Bool
        var currency: Currency = .usd
        var achievements: AchievementsFile
        /// Pictures are shown with colours only (NO_COLOR: monograms without colour).
        var images: Bool = true
        /// The URL schemes pictures come from (the demo's are made in process).
        var pictureSchemes: Set<String> = ["http", "https"]
    }

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

    func settings(environment: [String: String]) throws -> Settings {
        guard let accountCurrency = Currency.from(code: currency) else {
            throw ValidationError("--currency wants a three-letter ISO code such as USD, not \"\(TextSanitizer.clean(currency))\"")
        }
        let url = apiURL ?? environment["QAPITAL_API_URL"].flatMap { $0.isEmpty ? nil : $0 }
        let api: any SavingsAPI
        var http: QapitalHTTPAPI?
        var pictureSchemes: Set<String> = ["http", "https"]
        if let url {
            let base: URL
            do {
                base = try HTTPTransport.validate(baseURL: url)
            } catch {
                throw ValidationError("--api-url: \(error.message)")
            }
            let client = QapitalHTTPAPI(baseURL: base, token: resolvedToken(environment), accountCurrency: accountCurrency)
            http = client
            api = client
        } else {
            api = DemoSavingsAPI(backend: DemoBackend(options: .init(currency: accountCurrency)))
            pictureSchemes.insert(DemoImages.scheme)
        }
        let noColorEnvironment = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let colors = !(noColor || noColorEnvironment)
        return Settings(api: api, http: http, colors: colors, currency: accountCurrency,
                        achievements: try AppCommand.loadAchievements(path: achievements), images: colors && !noImages,
                        pictureSchemes: pictureSchemes)
    }

    /// `--token`, else `$QAPITAL_TOKEN`.
    func resolvedToken(_ environment: [String: String]) -> String? {
        token ?? environment["QAPITAL_TOKEN"]
    }

    /// Puts the offline cache behind the HTTP client (the demo keeps none). Returns the API to
    /// use, what the cache adds (given to the app, never found by downcasting), and a note when
    /// the cache could not be used as it was.
    func withOfflineCache(_ settings: Settings, environment: [String: String])
        -> (api: any SavingsAPI, capabilities: AppCore.Capabilities, note: String?) {
        guard !noCache, let http = settings.http else { return (settings.api, AppCore.Capabilities(), nil) }
        let directory = cacheDirectory.map { URL(fileURLWithPath: $0) } ?? SQLiteCache.defaultDirectory(environment: environment)
        let opened = SQLiteCache.open(directory: directory, baseURL: http.baseURL, token: resolvedToken(environment),
                                      accountCurrency: http.decoder.accountCurrency)
        guard let cache = opened.cache else { return (settings.api, AppCore.Capabilities(), opened.note) }
        let caching = CachingSavingsAPI(remote: http, cache: cache)
        let capabilities = AppCore.Capabilities(cache: cache, connectivity: caching.connectivity, refreshCache: { caching.refresh() })
        return (caching, capabilities, opened.note)
    }

    @MainActor
    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var settings = try settings(environment: environment)
        guard isatty(STDOUT_FILENO) == 1 else {
            throw ValidationError("standard output is not a terminal; qapital-tui is a full-screen app")
        }
        let cached = withOfflineCache(settings, environment: environment)
        settings.api = cached.api
        let core = AppCore(api: settings.api, configuration: .init(sourceName: settings.api.sourceName, colors: settings.colors,
                                                                  currency: settings.currency, images: settings.images,
                                                                  pictureSchemes: settings.pictureSchemes),
                           capabilities: cached.capabilities, achievements: settings.achievements)
        if let note = cached.note { core.showNotice(note) }
        let terminal = NcursesTerminal(theme: settings.colors ? .standard : .noColor)
        terminal.start(colors: settings.colors)
        await AppRunner(core: core, terminal: terminal).run()
        terminal.stop()
        if let signal = core.quitSignal {
            throw ExitCode(128 + signal)
        }
    }
}
