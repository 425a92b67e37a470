import DemoData
import DemoServer
import EnableBankingClient
import FeedModel
import Foundation
import HTTPTransport
import SourceKit
#if canImport(Glibc)
import Glibc
#endif

public extension RegisteredSource {
    /// EU and UK banks through Enable Banking, read-only: the user's own application and key,
    /// a consent given at the bank, four reads a day per account kept (docs/banks.md).
    static let enablebanking = RegisteredSource(
        description: EnableBankingAPI.source, pictureSchemes: [],
        open: .bank(BankConnector(connect: { request throws(APIError) in
            try await EnableBankingStart.connect(request, environment: ProcessInfo.processInfo.environment)
        }, keptToken: { _ in
            // The credential is the key file and the kept session, which the start reads itself.
            EnableBankingStart.keptMarker
        }, consentSignIn: ConsentSignIn(run: { request throws(APIError) in
            try await EnableBankingLogin.run(request)
        }, end: { request throws(APIError) in
            try await EnableBankingLogin.end(request)
        }))),
        serve: Serving(currency: .eur,
                       handler: { backend, flags in
                           EnableBankingStart.lookAlike(backend: backend, flags: flags,
                                                        environment: ProcessInfo.processInfo.environment)
                       },
                       greeting: { url in EnableBankingStart.greeting(url) }),
        examples: [.init("--source enablebanking", "EU and UK banks through Enable Banking (read-only; login enablebanking first)")])
}

/// How an Enable Banking start reads its credential: the key file and application id from the
/// environment or the config file, and the session `login enablebanking` kept.
public enum EnableBankingStart {
    /// What the registry hands the start in place of a token: not a secret, never sent.
    public static let keptMarker = "enablebanking:kept-session"

    /// `timeZone`: where a row's date is 00:00 (this machine's; tests fix it).
    public static func connect(_ request: BankRequest, environment: [String: String], timeZone: TimeZone = .current,
                               now: @escaping @Sendable () -> Date = { Date() }) async throws(APIError) -> EnableBankingAPI {
        var settings: EnableBankingSettings
        do {
            settings = try EnableBankingSettings.read(request.settings, environment: environment)
        } catch {
            throw APIError(kind: .rejected, request: "config", message: error.message)
        }
        settings.configFileShown = configFileShown(environment)
        settings.timeZone = timeZone
        guard request.token == keptMarker else {
            throw APIError(kind: .rejected, request: "token",
                           message: "Enable Banking takes no token (--token, --token-file): it signs with [enablebanking] key-file; nothing sent")
        }
        guard let applicationId = settings.applicationId, let keyFile = settings.keyFile else {
            throw APIError(kind: .rejected, request: "config",
                           message: "Enable Banking needs [enablebanking] application-id and key-file in \(settings.configFileShown) "
                           + "(or ENABLEBANKING_APPLICATION_ID and ENABLEBANKING_KEY_FILE)")
        }
        let key: EnableBankingKey
        do {
            key = try EnableBankingKey.read(path: keyFile)
        } catch {
            throw APIError(kind: .rejected, request: "key", message: error.message)
        }
        do {
            try HTTPTransport.checkTokenTransport(baseURL: request.baseURL, allowInsecureHTTP: request.allowInsecureHTTP)
        } catch {
            throw APIError(kind: .rejected, request: "sign-in", message: "Enable Banking: not sent: \(error.message)")
        }
        let origin = EnableBankingFiles.origin(request.baseURL)
        let sessionFile = EnableBankingSessionFile(fileURL: EnableBankingSessionFile.defaultFile(environment: environment))
        guard let record = sessionFile.newest(origin: origin, applicationId: applicationId, aspsp: settings.aspsp, country: settings.country) else {
            throw APIError(kind: .unauthorized, request: APIError.notSignedInYet,
                           message: "no Enable Banking session for this application yet: run qapital-tui login enablebanking")
        }
        let client = EnableBankingClient(baseURL: request.baseURL, signer: EnableBankingSigner(key: key, applicationId: applicationId, now: now),
                                         allowInsecureHTTP: request.allowInsecureHTTP, log: request.log)
        // PSU headers only when the user is there (the app, not a timer's command).
        let psu: EnableBankingClient.PSU? = request.headless ? nil
            : EnableBankingClient.PSU(ipAddress: settings.psuIPAddress ?? localAddress(toward: request.baseURL) ?? "127.0.0.1",
                                      userAgent: "qapital-tui/\(FeedModelInfo.version)")
        let folder: URL? = request.cacheDirectoryGiven ? request.cacheDirectory : cacheDirectory(environment)
        let api = EnableBankingAPI(client: client, settings: settings, record: record, bank: record.aspsp, fingerprint: record.fingerprint,
                                   sessionFile: sessionFile, directory: folder, budgetDirectory: folder ?? cacheDirectory(environment), psu: psu,
                                   headless: request.headless, forced: request.force, now: now)
        return try await EnableBankingAPI.connect(api)
    }

    /// This machine's address toward the API (a UDP socket connected, nothing sent), for
    /// `Psu-Ip-Address` when the config file names none.
    static func localAddress(toward url: URL) -> String? {
        guard let host = url.host else { return nil }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(url.port ?? 443), &hints, &found) == 0, let first = found else { return nil }
        defer { freeaddrinfo(found) }
        let fd = socket(first.pointee.ai_family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard Glibc.connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else { return nil }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let written = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard written == 0 else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func configFileShown(_ environment: [String: String]) -> String {
        let path = ConfigFolder.url(environment: environment).appendingPathComponent("config.toml").path
        guard let home = environment["HOME"], home.hasPrefix("/"), path.hasPrefix(home + "/") else { return path }
        return "~" + path.dropFirst(home.count)
    }

    /// `$XDG_CACHE_HOME/qapital-tui` (default `~/.cache/qapital-tui`); `QAPITAL_CACHE_DIR` when set.
    static func cacheDirectory(_ environment: [String: String]) -> URL? {
        if let given = environment["QAPITAL_CACHE_DIR"], given.hasPrefix("/") { return URL(fileURLWithPath: given) }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("qapital-tui")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/qapital-tui")
    }

    // MARK: - The look-alike

    /// The look-alike's application and the key it signs with: made once per `serve`.
    struct DemoApplication: Sendable {
        let applicationId: String
        let keyPath: String?
        let problem: String?
        var redirectURLs: [String] = []
        var savingsNames: [String] = []
    }

    static let demoApplication = Locked<DemoApplication?>(nil)

    /// The application id the look-alike prints, the same every run.
    public static let demoApplicationId = "0e3a1c7d-5b4f-4c2a-9d8e-7f6a5b4c3d2e"

    /// `serve --api enablebanking`: JWTs checked with `--public-key` for `--application-id`;
    /// without them a key pair made at start, its private half written 0600 to `--key-out`
    /// (default `enablebanking-demo-key.pem` in the config folder) for the app to sign with.
    static func lookAlike(backend: DemoBackend, flags: ServeFlags, environment: [String: String]) -> any ServeHandler {
        let applicationId = flags.applicationId ?? demoApplicationId
        do throws(EnableBankingKeyError) {
            let unknown = flags.faults.subtracting(EnableBankingDemoAPI.faultNames).sorted()
            guard unknown.isEmpty else {
                throw EnableBankingKeyError(message: "no fault \(unknown.map { "\"\(TextSanitizer.clean(String($0.prefix(40))))\"" }.joined(separator: ", ")) "
                                            + "(faults: \(EnableBankingDemoAPI.faultNames.joined(separator: ", ")))")
            }
            let publicKeyPEM: String
            var keyPath: String?
            if let file = flags.publicKeyFile {
                let path = HomePath.expand(file, environment: environment)
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw EnableBankingKeyError(message: "the public key \(path) cannot be read")
                }
                publicKeyPEM = String(decoding: data, as: UTF8.self)
            } else {
                let path = flags.keyOut.map { URL(fileURLWithPath: HomePath.expand($0, environment: environment)) }
                    ?? ConfigFolder.url(environment: environment).appendingPathComponent("enablebanking-demo-key.pem")
                let key = try EnableBankingKey.generate()
                guard EnableBankingFiles.writePrivate(Data(key.privateKeyPEM.utf8), to: path) else {
                    throw EnableBankingKeyError(message: "the look-alike's key could not be written to \(path.path)")
                }
                publicKeyPEM = key.publicKeyPEM
                keyPath = path.path
            }
            let redirects = EnableBankingDemoAPI.registeredRedirects + flags.redirectURLs.filter { !EnableBankingDemoAPI.registeredRedirects.contains($0) }
            let handler = try EnableBankingDemoAPI(backend: backend, publicKeyPEM: publicKeyPEM, applicationId: applicationId,
                                                   budget: flags.budget ?? EnableBankingDemoAPI.defaultBudget,
                                                   pageSize: flags.pageSize ?? EnableBankingDemoAPI.defaultPageSize,
                                                   sessionSeconds: flags.sessionTimeout,
                                                   authError: flags.faults.contains(EnableBankingDemoAPI.authErrorFault),
                                                   authErrorCode: flags.authError, faults: flags.faults, redirectURLs: redirects)
            // The savings accounts' names, for the greeting's `goals` line (the served demo's goals do not depend on its clock).
            let savings = EnableBankingDemoAPI.savingsGoals(DemoDataset(now: Date(), options: .init(currency: .eur)).goals, currency: .eur)
            demoApplication.withLock {
                $0 = DemoApplication(applicationId: applicationId, keyPath: keyPath, problem: nil, redirectURLs: redirects,
                                     savingsNames: savings.map(\.name))
            }
            return handler
        } catch {
            demoApplication.withLock { $0 = DemoApplication(applicationId: applicationId, keyPath: nil, problem: error.message) }
            return RefusingHandler(message: error.message)
        }
    }

    static func greeting(_ url: String) -> [String] {
        let application = demoApplication.withLock { $0 }
        var lines = ["serving the demo in Enable Banking's API on \(url) (Ctrl-C to stop)"]
        if let problem = application?.problem {
            return lines + ["cannot serve: \(problem)"]
        }
        let applicationId = application?.applicationId ?? demoApplicationId
        let keyFile = application?.keyPath ?? "YOUR PRIVATE KEY (the pair of --public-key)"
        let savings = application?.savingsNames ?? []
        let redirects = application?.redirectURLs ?? EnableBankingDemoAPI.registeredRedirects
        lines += ["application id: \(applicationId)",
                  application?.keyPath.map { "its private key (0600): \($0)" } ?? "JWTs checked with the public key given",
                  "config file lines:",
                  "  [enablebanking]",
                  "  application-id = \"\(applicationId)\"",
                  "  key-file = \"\(keyFile)\"",
                  "  aspsp = \"\(EnableBankingDemoAPI.bankName)\"",
                  "  country = \"FI\"",
                  "  goals = \"\(savings.joined(separator: "; "))\"   # the look-alike's savings accounts",
                  "redirect URLs registered: \(redirects.joined(separator: ", ")) (--redirect-url URL registers another)",
                  "faults (--fault NAME): \(EnableBankingDemoAPI.faultNames.joined(separator: ", ")); --auth-error CODE; --session-seconds S; --budget N",
                  "try: qapital-tui login enablebanking --api-url \(url), then qapital-tui --source enablebanking --api-url \(url)"]
        return lines
    }
}

/// What `serve` answers when the look-alike could not be made: every request, the reason.
struct RefusingHandler: ServeHandler {
    let message: String
    func handle(_ request: ServeRequest) async -> ServeResponse { .error(503, message) }
}
