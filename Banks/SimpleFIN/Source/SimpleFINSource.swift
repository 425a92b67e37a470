import DemoData
import DemoServer
import FeedModel
import Foundation
import HTTPTransport
import SimpleFINClient
import SourceKit

public extension RegisteredSource {
    /// SimpleFIN Bridge (US and Canadian banks), read-only: goals from the config file, round-ups
    /// as suggestions, a request budget it never breaks (docs/banks.md).
    static let simplefin = RegisteredSource(
        description: SimpleFINAPI.source, pictureSchemes: [],
        open: .bank(BankConnector(connect: { request throws(APIError) in
            try await SimpleFINStart.connect(request, environment: ProcessInfo.processInfo.environment)
        }, keptToken: { environment in
            // The access URL the last claim kept: a start without a token needs no new one.
            SimpleFINAccessFile(fileURL: SimpleFINAccessFile.defaultFile(environment: environment)).newestText()
        })),
        serve: Serving(currency: .usd,
                       handler: { backend, flags in
                           SimpleFINDemoAPI(backend: backend, budget: flags.budget ?? SimpleFINDemoAPI.defaultBudget,
                                            versionOne: flags.versionOne)
                       },
                       greeting: { url in
                           let token = SimpleFINDemoAPI.setupToken(baseURL: url)
                           return ["serving the demo in SimpleFIN's protocol on \(url)\(SimpleFINDemoAPI.basePath) (Ctrl-C to stop)",
                                   "setup token (claims an access URL once): \(token)",
                                   "try: qapital-tui --source simplefin --token \(token)",
                                   "goals: put [simplefin] goals = \"Vacation; Emergency fund\" (the savings accounts' names) in the config file"]
                       }),
        examples: [.init("--source simplefin --token SETUP_TOKEN", "US and Canadian banks through SimpleFIN Bridge (read-only)")])
}

/// How a SimpleFIN start reads its credential: a setup token is claimed once (or its access
/// URL found where the first claim kept it), an access URL is used as it is.
public enum SimpleFINStart {
    /// `request.token` is a setup token or an access URL; `request.baseURL` is the Bridge unless
    /// `--api-url` named another origin, which the credential must then have.
    public static func connect(_ request: BankRequest, environment: [String: String],
                               now: @escaping @Sendable () -> Date = { Date() }) async throws(APIError) -> SimpleFINAPI {
        var settings: SimpleFINAPI.Settings
        do {
            settings = try SimpleFINAPI.Settings.read(request.settings)
        } catch {
            throw APIError(kind: .rejected, request: "config", message: error.message)
        }
        settings.configFileShown = SimpleFINStart.configFileShown(environment)
        let credential: SimpleFINCredential
        do {
            credential = try SimpleFINCredential.read(request.token)
        } catch {
            throw APIError(kind: .unauthorized, request: "sign-in", message: error.message)
        }
        let claimOrRoot: URL = switch credential {
        case .setup(let claimURL, _): claimURL
        case .access(let access): access.root
        }
        if request.baseURL != SimpleFINAPI.bridgeURL, !sameOrigin(claimOrRoot, request.baseURL) {
            throw APIError(kind: .rejected, request: "sign-in",
                           message: "the SimpleFIN credential is for \(origin(claimOrRoot)), not --api-url's \(origin(request.baseURL)); not sent")
        }
        let access: SimpleFINAccess
        var startNote: String?
        switch credential {
        case .access(let given):
            access = given
        case .setup(let claimURL, let token):
            let file = SimpleFINAccessFile(fileURL: SimpleFINAccessFile.defaultFile(environment: environment))
            let hash = SimpleFINCredential.hash(ofSetupToken: token)
            if let kept = file.access(forTokenHash: hash) {
                access = kept
            } else {
                let claimed = try await SimpleFINClaim.claim(claimURL, allowInsecureHTTP: request.allowInsecureHTTP, log: request.log)
                do {
                    try file.keep(claimed, tokenHash: hash, at: now())
                } catch {
                    // Claimed but not kept: this run goes on; the user is told the token is spent.
                    startNote = "the claimed SimpleFIN access URL could not be kept (\(error.message)): this run works, "
                        + "the next start needs a new setup token"
                    request.log?.note("SimpleFIN: " + (startNote ?? ""))
                }
                access = claimed
            }
        }
        // The run's cache folder (nil with --no-cache: the store lives for this run); the request
        // count is kept even then (in the default folder): the budget holds across runs.
        let folder: URL? = request.cacheDirectoryGiven ? request.cacheDirectory : cacheDirectory(environment)
        let countFolder: URL? = folder ?? cacheDirectory(environment)
        return try await SimpleFINAPI.connect(access: access, settings: settings, directory: folder,
                                              budgetDirectory: countFolder,
                                              allowInsecureHTTP: request.allowInsecureHTTP, log: request.log,
                                              forced: request.force, headless: request.headless, startNote: startNote, now: now)
    }

    /// `$XDG_CACHE_HOME/qapital-tui` (default `~/.cache/qapital-tui`); `QAPITAL_CACHE_DIR` when set.
    /// `~/.config/qapital-tui/config.toml`, or where `$XDG_CONFIG_HOME` puts it, with `~` for `$HOME`.
    static func configFileShown(_ environment: [String: String]) -> String {
        let path = ConfigFolder.url(environment: environment).appendingPathComponent("config.toml").path
        guard let home = environment["HOME"], home.hasPrefix("/"), path.hasPrefix(home + "/") else { return path }
        return "~" + path.dropFirst(home.count)
    }

    static func cacheDirectory(_ environment: [String: String]) -> URL? {
        if let given = environment["QAPITAL_CACHE_DIR"], given.hasPrefix("/") { return URL(fileURLWithPath: given) }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("qapital-tui")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/qapital-tui")
    }

    static func origin(_ url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\((url.host ?? "").lowercased())\(port)"
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func full(_ url: URL) -> String {
            let scheme = url.scheme?.lowercased() ?? ""
            return "\(scheme)://\((url.host ?? "").lowercased()):\(url.port ?? (scheme == "https" ? 443 : 80))"
        }
        return full(a) == full(b)
    }
}
