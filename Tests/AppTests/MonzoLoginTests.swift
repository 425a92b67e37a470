import ArgumentParser
@testable import DemoServer
@testable import DemoData
@testable import MonzoClient
import FeedModel
import Foundation
import SourceKit
@testable import MonzoSource
import HTTPTransport
import Testing
import TestSupport
@testable import qapital_tui
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `login monzo` and the kept token pair against `serve --api monzo` over loopback: the state
/// checked, the code exchanged, the pair kept 0600, refreshed once when it expires, and a refused
/// refresh ends in the sign-in form. No secret reaches a log, the cache or a message.
@Suite(.timeLimit(.minutes(1))) struct MonzoLoginTests {
    struct Home {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("qt-monzo-login-\(UUID().uuidString)")
        var config: URL { root.appendingPathComponent("config.toml") }
        var environment: [String: String] { ["XDG_CONFIG_HOME": root.appendingPathComponent("xdg").path] }
        var pairs: OAuthTokenPairs { OAuthTokenPairs(fileURL: OAuthTokenPairs.defaultFile(environment: environment)) }

        func writeConfig() throws {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try """
            [monzo]
            client-id = "\(MonzoDemoAPI.clientId)"
            client-secret = "\(MonzoDemoAPI.clientSecret)"
            """.write(to: config, atomically: true, encoding: .utf8)
        }
    }

    /// The browser: follows the bank's sign-in page back to the loopback callback.
    @Sendable static func browse(_ url: URL) {
        Task { _ = try? await rawRequest("GET", url.absoluteString) }
    }

    /// What `login monzo` said: its lines on standard output and standard error.
    struct Said: Sendable {
        let lines = Locked<[String]>([])
        let notes = Locked<[String]>([])
    }

    /// `qapital-tui login monzo`, the real command on the source's `ConsentSignIn` hook, its lines
    /// kept in `said` and the browser given; the pair it kept.
    @discardableResult
    func login(_ url: URL, _ home: Home, browser: @escaping @Sendable (URL) -> Void = Self.browse, said: Said = Said(),
               extra: [String] = []) async throws -> OAuthTokenPair {
        try home.writeConfig()
        let command = try #require(try QapitalCommand.parse(arguments: ["login", "monzo", "--api-url", url.absoluteString,
                                                                         "--config", home.config.path, "--timeout", "30"] + extra)
                                   as? LoginCommand)
        let streams = LoginCommand.Streams(say: { line in said.lines.withLock { $0.append(line) } },
                                           note: { line in said.notes.withLock { $0.append(line) } }, open: browser, readLine: { nil })
        var environment = ProcessInfo.processInfo.environment
        environment.merge(home.environment) { $1 }
        try await LoginCommand.$streams.withValue(streams) {
            try await LoginCommand.$environment.withValue(environment) { try await command.run() }
        }
        return try #require(home.pairs.pair(for: url), "login monzo kept no pair")
    }

    @Test func loginKeepsAPairThatOpensTheAccount() async throws {
        let home = Home()
        defer { try? FileManager.default.removeItem(at: home.root) }
        try await withMonzoServer(MonzoDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: .gbp)))) { url in
            let said = Said()
            let pair = try await login(url, home, said: said)
            #expect(pair.refreshToken != nil && pair.expiresAt != nil)
            let lines = said.lines.withLock { $0 }
            #expect(lines.first == "Open this address in a browser to sign in at Monzo:")
            #expect(lines.dropFirst().first?.hasPrefix("\(url.absoluteString)/auth/?client_id=") == true)
            #expect(lines.last == "Approve this sign-in in the Monzo app, then run: qapital-tui --source monzo --api-url \(url.absoluteString)")
            for line in lines + said.notes.withLock({ $0 }) {
                for secret in [MonzoDemoAPI.clientSecret, pair.accessToken, pair.refreshToken ?? "-"] { #expect(!line.contains(secret)) }
            }
            var info = stat()
            #expect(lstat(home.pairs.fileURL.path, &info) == 0 && info.st_mode & 0o777 == 0o600)

            let options = try AppOptions.parse(["--source", "monzo", "--api-url", url.absoluteString, "--no-cache"])
            let settings = try options.settings(environment: home.environment)
            guard case .connected(let connection) = try await options.startBank(settings.source, environment: home.environment) else {
                Issue.record("the kept pair did not open the account")
                return
            }
            #expect(connection.api.accountId == MonzoDemoAPI.accountId)
            // The headless commands use the same pair.
            let headless = try HeadlessOptions<JournalFormats>.parse(["--source", "monzo", "--api-url", url.absoluteString, "--no-cache"])
            let context = try await headless.context(environment: home.environment)
            #expect(try await context.api.goals().count > 0)
        }
    }

    @Test func aCallbackWithAnotherStateIsRefused() async throws {
        let home = Home()
        defer { try? FileManager.default.removeItem(at: home.root) }
        try await withMonzoServer(MonzoDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: .gbp)))) { url in
            // A return with another state is refused (400) and the wait goes on; then the bank's refusal ends it.
            let forged = Locked<Int?>(nil)
            let forger: @Sendable (URL) -> Void = { address in
                let items = URLComponents(url: address, resolvingAgainstBaseURL: false)?.queryItems ?? []
                let redirect = items.first { $0.name == "redirect_uri" }?.value ?? ""
                let state = items.first { $0.name == "state" }?.value ?? ""
                Task {
                    let status = try? await rawRequest("GET", redirect + "?code=stolen&state=not-the-one-sent").status
                    forged.withLock { $0 = status }
                    _ = try? await rawRequest("GET", redirect + "?error=access_denied&state=" + state)
                }
            }
            let said = Said()
            await #expect(throws: ExitCode(1)) { try await login(url, home, browser: forger, said: said) }
            #expect(forged.withLock { $0 } == 400)
            let notes = said.notes.withLock { $0 }
            #expect(notes.first?.hasPrefix("Waiting for the browser to come back to http://127.0.0.1:") == true)
            #expect(notes.dropFirst() == ["refused a return that is not from this sign-in", "Monzo did not give access: access_denied"])
            #expect(home.pairs.pair(for: url) == nil)
        }
    }

    /// `--paste` cannot send a redirect without a port; an API that does not answer exits 69.
    @Test func pasteNeedsAPortAndAnUnreachableBankExits69() async throws {
        let home = Home()
        defer { try? FileManager.default.removeItem(at: home.root) }
        try home.writeConfig()
        await #expect(throws: ValidationError.self) {
            try await login(URL(string: "http://127.0.0.1:9")!, home, extra: ["--paste"])
        }
        // The address is made here; the bank is first asked for the code's exchange, and does not answer.
        let closed = try RefusingPort()
        let returning: @Sendable (URL) -> Void = { address in
            let items = URLComponents(url: address, resolvingAgainstBaseURL: false)?.queryItems ?? []
            let redirect = items.first { $0.name == "redirect_uri" }?.value ?? ""
            let state = items.first { $0.name == "state" }?.value ?? ""
            Task { _ = try? await rawRequest("GET", redirect + "?code=c&state=" + state) }
        }
        await #expect(throws: ExitCode(69)) {
            try await login(URL(string: "http://127.0.0.1:\(closed.port)")!, home, browser: returning, extra: ["--port", "0"])
        }
        #expect(home.pairs.pair(for: URL(string: "http://127.0.0.1:\(closed.port)")!) == nil)
    }

    /// A token put in by the form or `L` is checked as the session's requests go: in the run's
    /// request log, under the same http rule (it was checked without either).
    @Test func aReplacedTokenIsCheckedInTheRequestLog() async throws {
        let home = Home()
        defer { try? FileManager.default.removeItem(at: home.root) }
        try FileManager.default.createDirectory(at: home.root, withIntermediateDirectories: true)
        let path = home.root.appendingPathComponent("requests.log").path
        let log = try RequestLog(path: path)
        try await withMonzoServer(MonzoDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: .gbp)))) { url in
            let api = try await MonzoAPI.connect(baseURL: url, token: MonzoDemoAPI.testToken, log: log)
            try await api.replaceToken(MonzoDemoAPI.testToken)
            let lines = (try String(contentsOfFile: path, encoding: .utf8)).split(separator: "\n").filter { $0.contains("/ping/whoami") }
            #expect(lines.count == 2, "\(lines)")
        }
    }

    /// `logout monzo` drops the pair `login monzo` kept, for that origin only; a second says there is nothing.
    @Test func logoutDropsThePair() async throws {
        let home = Home()
        defer { try? FileManager.default.removeItem(at: home.root) }
        try await withMonzoServer(MonzoDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: .gbp)))) { url in
            try await login(url, home)
            let elsewhere = try #require(URL(string: "https://api.monzo.com"))
            let other = OAuthTokenPair(accessToken: "other-origin", refreshToken: nil, expiresAt: nil)
            try home.pairs.keep(other, for: elsewhere)
            let said = Said()
            let streams = LoginCommand.Streams(say: { line in said.lines.withLock { $0.append(line) } },
                                               note: { line in said.notes.withLock { $0.append(line) } })
            for _ in 0..<2 {
                let logout = try #require(try QapitalCommand.parse(arguments: ["logout", "monzo", "--api-url", url.absoluteString,
                                                                                "--config", home.config.path]) as? LogoutCommand)
                try await LoginCommand.$streams.withValue(streams) {
                    try await LoginCommand.$environment.withValue(home.environment) { try await logout.run() }
                }
            }
            #expect(home.pairs.pair(for: url) == nil)
            #expect(home.pairs.pair(for: elsewhere)?.sameTokens(as: other) == true)
            let origin = "http://127.0.0.1:\(url.port ?? 0)"
            #expect(said.lines.withLock { $0 } == [
                "signed out of Monzo at \(origin): its token pair is removed (revoke the client's access in the bank's app)",
                "no Monzo token pair is kept for \(origin): nothing to sign out of"])
        }
    }

    /// An expired pair is refreshed once before use and the new pair replaces it (the old one is
    /// refused by the bank from then on); a refresh the bank refuses ends in the sign-in form.
    @Test func anExpiredPairIsRefreshedOnceAndARefusedRefreshSignsIn() async throws {
        let home = Home()
        defer { try? FileManager.default.removeItem(at: home.root) }
        let handler = RecordingHandler(MonzoDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: .gbp))))
        try await withMonzoServer(handler) { url in
            let fresh = try await login(url, home)
            var expired = fresh
            expired.expiresAt = Date().addingTimeInterval(-60)
            try home.pairs.keep(expired, for: url)

            let options = try AppOptions.parse(["--source", "monzo", "--api-url", url.absoluteString, "--no-cache"])
            let settings = try options.settings(environment: home.environment)
            let client = ["client-id": MonzoDemoAPI.clientId, "client-secret": MonzoDemoAPI.clientSecret]
            guard case .connected = try await options.startBank(settings.source, environment: home.environment, sourceSettings: client) else {
                Issue.record("the expired pair was not refreshed")
                return
            }
            let refreshes = await handler.targets.filter { $0 == "POST /oauth2/token" }
            #expect(refreshes.count == 2, "the login's exchange and one refresh")
            let kept = try #require(home.pairs.pair(for: url))
            #expect(kept.accessToken != fresh.accessToken && kept.refreshToken != fresh.refreshToken)
            await #expect(throws: APIError.self) { _ = try await MonzoAPI.connect(baseURL: url, token: fresh.accessToken) }

            // The bank refuses the refresh (its token was used already): the sign-in form, the pair dropped.
            var used = kept
            used.refreshToken = fresh.refreshToken
            used.expiresAt = Date().addingTimeInterval(-1)
            try home.pairs.keep(used, for: url)
            guard case .signIn(let refusal, _) = try await options.startBank(settings.source, environment: home.environment,
                                                                              sourceSettings: client) else {
                Issue.record("a refused refresh still opened the app")
                return
            }
            #expect(refusal?.hasPrefix("The sign-in has ended (POST /oauth2/token: HTTP 400: ") == true, "\(refusal ?? "")")
            #expect(refusal.map { !$0.contains(MonzoDemoAPI.clientSecret) && !$0.contains(fresh.refreshToken ?? "-") } == true)
            #expect(home.pairs.pair(for: url) == nil)
        }
    }

    /// In the middle of a session an expired token is refused (401): the transport refreshes the
    /// pair once, keeps the new one, and the request goes through; requests refused together
    /// share that one refresh.
    @Test func aTokenThatExpiresMidSessionIsRefreshedOnce() async throws {
        let home = Home()
        defer { try? FileManager.default.removeItem(at: home.root) }
        let clock = TestClock(Date())
        let handler = RecordingHandler(MonzoDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: .gbp)),
                                                    clock: { clock.now }))
        try await withMonzoServer(handler) { url in
            let pair = try await login(url, home)
            let options = try AppOptions.parse(["--source", "monzo", "--api-url", url.absoluteString, "--no-cache"])
            let settings = try options.settings(environment: home.environment)
            let client = ["client-id": MonzoDemoAPI.clientId, "client-secret": MonzoDemoAPI.clientSecret]
            guard case .connected(let connection) = try await options.startBank(settings.source, environment: home.environment,
                                                                                 sourceSettings: client) else {
                Issue.record("not connected")
                return
            }
            clock.advance(MonzoDemoAPI.tokenLifetime + 1)
            async let goals = connection.api.goals()
            async let balance = connection.api.account()
            let (pots, account) = try await (goals, balance)
            #expect(!pots.isEmpty && account != nil)
            #expect(await handler.targets.filter { $0 == "POST /oauth2/token" }.count == 2, "the login's exchange and one refresh")
            let kept = try #require(home.pairs.pair(for: url))
            #expect(kept.accessToken != pair.accessToken)
            #expect(!connection.api.tokenRefused)
        }
    }

    /// What the app writes on its own (the offline cache, its files, the request log) never holds
    /// a token or the client's secret.
    @Test func secretsStayOutOfTheCacheAndTheLog() async throws {
        let home = Home()
        defer { try? FileManager.default.removeItem(at: home.root) }
        try await withMonzoServer(MonzoDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: .gbp)))) { url in
            let pair = try await login(url, home)
            let cache = home.root.appendingPathComponent("cache")
            let log = home.root.appendingPathComponent("requests.log")
            let options = try AppOptions.parse(["--source", "monzo", "--api-url", url.absoluteString, "--cache-dir", cache.path,
                                                "--log-file", log.path, "--config", home.config.path])
            let settings = try options.settings(environment: home.environment)
            guard case .connected(let connection) = try await options.startBank(settings.source, environment: home.environment,
                                                                                 log: settings.log,
                                                                                 sourceSettings: settings.sourceSettings) else {
                Issue.record("not connected")
                return
            }
            let cached = options.withOfflineCache(connection.api, baseURL: url, partition: connection.api.accountId,
                                                  currency: connection.api.accountCurrency, environment: home.environment)
            let goals = try await cached.api.goals()
            _ = try await cached.api.activities(from: fixedNow.addingTimeInterval(-14 * 86_400), to: fixedNow)
            _ = try await cached.api.feed(goalId: try #require(goals.first).id)
            _ = try? await MonzoAPI.connect(baseURL: url, token: "wrong-token", log: settings.log)

            var files = [log]
            let walker = FileManager.default.enumerator(at: cache, includingPropertiesForKeys: nil)
            while let file = walker?.nextObject() as? URL { files.append(file) }
            #expect(files.count > 2)
            for file in files {
                let bytes = (try? Data(contentsOf: file)) ?? Data()
                for secret in [pair.accessToken, pair.refreshToken ?? "-", MonzoDemoAPI.clientSecret, "wrong-token"] {
                    #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file.lastPathComponent) holds a secret")
                }
            }
        }
    }
}

/// A sign-in whose start asks the server (an aggregator's `POST /auth`) and fails: the failure is
/// said and nothing is opened in a browser.
@Suite struct FailingSignInStartTests {
    struct Refusing: OAuthFlow {
        func authorizationURL(redirectURI: String, state: String) async throws(APIError) -> URL {
            throw APIError(kind: .rejected, request: "POST /auth", message: "POST /auth: the bank is not available (HTTP 422)", status: 422)
        }
        func exchange(code: String, redirectURI: String) async throws(APIError) -> OAuthTokenPair { throw APIError(kind: .rejected, request: "", message: "") }
        func refresh(_ refreshToken: String) async throws(APIError) -> OAuthTokenPair { throw APIError(kind: .rejected, request: "", message: "") }
    }

    @Test func aStartThatFailsOpensNothing() async {
        let opened = Locked<[URL]>([])
        let signIn = ConsentSignIn.oauth(OAuthSupport { _, _, _, _, _ in Refusing() }, source: MonzoAPI.source)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qt-failing-start-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let request = ConsentSignInRequest(apiURL: URL(string: "https://api.monzo.com")!, settings: ["client-id": "id", "client-secret": "secret"],
                                           environment: ["XDG_CONFIG_HOME": folder.path], allowInsecureHTTP: false, options: [:],
                                           paste: false, timeout: 30, open: { url in opened.withLock { $0.append(url) } }, say: { _ in },
                                           note: { _ in }, readLine: { nil })
        await #expect {
            try await signIn.run(request)
        } throws: { error in
            (error as? APIError)?.message == "POST /auth: the bank is not available (HTTP 422)"
        }
        #expect(opened.withLock { $0 }.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.path), "nothing kept")
    }
}
