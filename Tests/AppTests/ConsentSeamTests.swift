import ArgumentParser
import Commands
import DemoServer
import FeedModel
import Foundation
import HTTPTransport
@testable import QapitalApp
@testable import qapital_tui
import SourceKit
import Testing
import TestSupport

/// Issue 48's seam, delivered: a bank that signs every request with its own header (a JWT's
/// place) and gives access through a consent and a redirect back, declared here and nowhere
/// else, signs in through the real `login` command (its lines and browser given to it) and its
/// `ConsentSignIn` hook, end to end over loopback; then a headless command reads its goals with
/// the session, the app opens on them and signs in again by `L`, and `logout` ends it.
@Suite struct ConsentSeamTests {
    /// The fake bank's "JWT": its application id and a digest of the id with the secret only
    /// the signer and the bank know; the bank refuses any other.
    struct FakeSigner: RequestSigner {
        let applicationId: String
        func authorization(token: String?) throws -> String {
            "Bearer fake.\(applicationId).\(FakeSigner.digest(applicationId))"
        }

        static func digest(_ text: String) -> String {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in ("fake-bank-secret:" + text).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return String(hash, radix: 16)
        }
    }

    /// The bank: `POST /auth` (signed) gives its page's address; the page answers 302 back to
    /// the redirect URL with a code and the state; `POST /sessions` (signed) takes the code once.
    actor FakeConsentBank: ServeHandler {
        var base = ""
        var pending: [String: (redirect: String, state: String)] = [:]
        var codes: Set<String> = []
        var unsigned = 0
        var sessions: [String] = []
        var goalReads = 0
        var authorizations = 0

        func setBase(_ url: String) { base = url }

        func handle(_ request: ServeRequest) async -> ServeResponse {
            let signed = request.headers["Authorization"] == (try? FakeSigner(applicationId: "app-1").authorization(token: nil))
            let body = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: String] ?? [:]
            switch (request.method, request.path) {
            case ("POST", "/auth"):
                guard signed else { unsigned += 1; return .error(401, "UNAUTHORIZED_ACCESS") }
                guard let redirect = body["redirect_url"], let state = body["state"] else { return .error(422, "missing") }
                authorizations += 1
                let id = "auth-\(authorizations)"
                pending[id] = (redirect, state)
                return .json(["url": base + "/bank?authorization_id=" + id])
            case ("GET", "/bank"):
                let id = request.rawQuery.replacingOccurrences(of: "authorization_id=", with: "")
                guard let authorization = pending.removeValue(forKey: id) else { return .error(404, "no such authorization") }
                let code = "code-" + id
                codes.insert(code)
                var response = ServeResponse(status: 302)
                response.headers.set("Location", authorization.redirect + "?code=\(code)&state=\(authorization.state)")
                return response
            case ("POST", "/sessions"):
                guard signed else { unsigned += 1; return .error(401, "UNAUTHORIZED_ACCESS") }
                guard let code = body["code"], codes.remove(code) != nil else { return .error(400, "WRONG_AUTHORIZATION_CODE") }
                sessions.append("session-for-" + code)
                return .json(["session_id": "session-for-" + code])
            case ("POST", "/goals"):
                // The account's savings, for a signed request with a session this bank gave.
                guard signed else { unsigned += 1; return .error(401, "UNAUTHORIZED_ACCESS") }
                guard let session = body["session_id"], sessions.contains(session) else { return .error(401, "EXPIRED_SESSION") }
                goalReads += 1
                return .json(["name": "Holiday", "saved": "1234"])
            default:
                return .error(404, "not found")
            }
        }
    }

    /// What the fake source keeps: the session its sign-in got (a session record's place).
    static let kept = Locked<[String]>([])

    /// The fake bank's account: one goal, read with the newest kept session on a signed request.
    struct FakeBankAPI: BankAPI {
        let transport: HTTPTransport
        let baseURL: URL
        var sourceName: String { "Fake Consent Bank" }
        var accountId: String { "fake-account" }
        var accountCurrency: Currency { .eur }
        var skippedRecords: SkippedRecords? { nil }
        var tokenRefused: Bool { false }

        func goals() async throws -> [Goal] {
            guard let session = ConsentSeamTests.kept.withLock({ $0.last }) else {
                throw APIError(kind: .unauthorized, request: "POST /goals", message: "run qapital-tui login fakeconsent")
            }
            let data = try await transport.send("POST", "/goals", body: try JSONEncoder().encode(["session_id": session]))
            let answer = try JSONDecoder().decode([String: String].self, from: data)
            guard let name = answer["name"], let saved = answer["saved"].flatMap(Int64.init) else {
                throw APIError(kind: .malformed, request: "POST /goals", message: "POST /goals: unreadable")
            }
            return [Goal(id: GoalID("g1"), name: name, ownerId: 1, target: nil, balance: Money(minorUnits: saved, currency: .eur))]
        }
        func feed(goalId: GoalID) async throws -> [FeedItem] { [] }
        func rules() async throws -> [SavingsRule] { [] }
        func user(id: Int) async throws -> User { User(id: id, displayName: "You") }
        func activities(from: Date, to: Date) async throws -> ActivityPage { ActivityPage(oldest: from, activities: []) }
        func transactions(from: Date, to: Date) async throws -> [Transaction] { [] }
        func createGoal(name: String, target: Money?) async throws -> Goal {
            throw APIError(kind: .rejected, request: "new goal", message: "read-only")
        }
        func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
            throw APIError(kind: .rejected, request: "transfer", message: "read-only")
        }
        /// A consent replaces no token: the newest kept session is read at the next request.
        func replaceToken(_ token: String) async throws(APIError) {}
    }

    /// The fake bank's signed transport for its table's application id.
    static func transport(_ base: URL, settings: [String: String], allowInsecureHTTP: Bool) -> HTTPTransport {
        HTTPTransport(baseURL: base, token: nil, allowInsecureHTTP: allowInsecureHTTP,
                      scheme: .signed(FakeSigner(applicationId: settings["application-id"] ?? "")))
    }

    /// The fake source: nothing but this declaration.
    static let fake = RegisteredSource(
        description: SourceDescription(
            name: "fakeconsent", title: "Fake Consent Bank", baseURL: URL(string: "https://api.fakeconsent.example/"),
            signIn: .token, tokenVariables: [], abilities: [.bankAccount], configKeys: ["application-id"],
            documentation: "docs/fakeconsent.md"),
        pictureSchemes: [],
        open: .bank(BankConnector(connect: { request throws(APIError) in
            guard !kept.withLock({ $0.isEmpty }) else {
                throw APIError(kind: .unauthorized, request: "sign-in", message: "run qapital-tui login fakeconsent")
            }
            return FakeBankAPI(transport: transport(request.baseURL, settings: request.settings, allowInsecureHTTP: request.allowInsecureHTTP),
                               baseURL: request.baseURL)
        }, keptToken: { _ in
            // The credential is the kept session, which `connect` reads itself (never sent as a token).
            "fakeconsent:kept"
        }, consentSignIn: ConsentSignIn(run: { request throws(APIError) in
            let transport = transport(request.apiURL, settings: request.settings, allowInsecureHTTP: request.allowInsecureHTTP)
            // SourceKit's browser half: the listener first (any free port), then the bank's address, the return read with its state.
            let state = SignInRedirect.newState()
            let given = try await RedirectSignIn.run(request, redirect: "http://127.0.0.1:0/callback", state: state,
                                                     bank: "Fake Consent Bank") { redirect throws(APIError) in
                let auth = try await transport.send("POST", "/auth", body: try? JSONEncoder().encode(["redirect_url": redirect, "state": state]))
                guard let url = (try? JSONDecoder().decode([String: String].self, from: auth))?["url"].flatMap(URL.init(string:)) else {
                    throw APIError(kind: .rejected, request: "POST /auth", message: "no url")
                }
                return url
            }
            let code = given.code
            let session = try await transport.send("POST", "/sessions", body: try? JSONEncoder().encode(["code": code]))
            guard let id = (try? JSONDecoder().decode([String: String].self, from: session))?["session_id"] else {
                throw APIError(kind: .rejected, request: "POST /sessions", message: "no session")
            }
            kept.withLock { $0.append(id) }
        }, end: { _ throws(APIError) in
            kept.withLock { $0 = [] }
        }))),
        serve: nil)

    @MainActor
    @Test func aFakeJWTAndRedirectBankSignsInThroughTheConsentHook() async throws {
        Self.kept.withLock { $0 = [] }
        let bank = FakeConsentBank()
        let bankServer = try DemoHTTPServer(handler: bank)
        try await bankServer.start()
        let base = await bankServer.baseURL
        await bank.setBase(base.absoluteString)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("consent-seam-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func config(_ applicationId: String) throws -> String {
            let file = folder.appendingPathComponent("\(applicationId).toml")
            try Data("[fakeconsent]\napplication-id = \"\(applicationId)\"\n".utf8).write(to: file)
            return file.path
        }
        let (first, second) = (try config("app-1"), try config("app-2"))
        try await SourceRegistry.$added.withValue([Self.fake]) {
            #expect(SourceRegistry.withSignIn.map(\.name).contains("fakeconsent"))
            let said = Locked<[String]>([])
            let notes = Locked<[String]>([])
            let opened = Locked(0)
            // The browser: opens the bank's page, follows its 302 back to the loopback listener.
            let browser: @Sendable (URL) -> Void = { url in
                opened.withLock { $0 += 1 }
                Task {
                    let page = try await HTTPTransport(baseURL: base, token: nil, followsRedirects: false).answer("GET", absolute: url, label: "page")
                    let back = try #require(page.header("Location").flatMap(URL.init(string:)))
                    let listener = try #require(URL(string: "/", relativeTo: back)?.absoluteURL)
                    // A return with another state first: refused, the wait goes on.
                    let forged = try #require(URL(string: back.absoluteString.replacingOccurrences(of: "state=", with: "state=x")))
                    let refused = try? await HTTPTransport(baseURL: listener, token: nil).answer("GET", absolute: forged, label: "forged")
                    #expect(refused?.status == 400)
                    _ = try await HTTPTransport(baseURL: listener, token: nil).answer("GET", absolute: back, label: "back")
                }
            }
            let streams = LoginCommand.Streams(say: { line in said.withLock { $0.append(line) } },
                                               note: { line in notes.withLock { $0.append(line) } }, open: browser, readLine: { nil })
            // `login fakeconsent`, the real command: its table from the config file, its lines and browser given here.
            let login = try #require(try QapitalCommand.parse(arguments: ["login", "fakeconsent", "--api-url", base.absoluteString,
                                                                           "--config", first]) as? LoginCommand)
            try await LoginCommand.$streams.withValue(streams) { try await login.run() }
            #expect(said.withLock { $0 }.last?.hasPrefix(base.appendingPathComponent("bank").absoluteString + "?authorization_id=") == true)
            #expect(opened.withLock { $0 } == 1)
            #expect(Self.kept.withLock { $0 } == ["session-for-code-auth-1"])
            #expect(await bank.sessions == ["session-for-code-auth-1"])
            #expect(await bank.unsigned == 0)

            // Signed with another application's header: the bank refuses before any address (exit 77,
            // the reason on the note stream), nothing is opened or kept.
            let other = try #require(try QapitalCommand.parse(arguments: ["login", "fakeconsent", "--api-url", base.absoluteString,
                                                                           "--config", second]) as? LoginCommand)
            await #expect(throws: ExitCode(77)) { try await LoginCommand.$streams.withValue(streams) { try await other.run() } }
            #expect(await bank.unsigned == 1)
            #expect(opened.withLock { $0 } == 1)
            #expect(notes.withLock { $0 }.last?.isEmpty == false)
            #expect(Self.kept.withLock { $0 }.count == 1)

            // A headless command reads the goals with the kept session, each request signed.
            let environment = ["XDG_CONFIG_HOME": folder.appendingPathComponent("xdg").path, "QAPITAL_TOKEN": "", "QAPITAL_SOURCE": ""]
            let headless = try HeadlessOptions<JournalFormats>.parse(["--source", "fakeconsent", "--api-url", base.absoluteString,
                                                                      "--config", first, "--no-cache"])
            let context = try await headless.context(environment: environment)
            #expect(try await context.api.goals().map(\.name) == ["Holiday"])
            #expect(await bank.goalReads == 1)
            #expect(await bank.unsigned == 1)

            // The app opens on them; `L` runs the same hook over it, the browser sent back as before.
            let options = try AppOptions.parse(["--source", "fakeconsent", "--api-url", base.absoluteString, "--config", first, "--no-cache"])
            var settings = try options.settings(environment: environment)
            settings.noBrowser = true
            guard case .connected(let connection) = try await options.startBank(settings.source, environment: environment,
                                                                                 sourceSettings: settings.sourceSettings) else {
                Issue.record("the kept session did not open the app")
                return
            }
            let app = AppHarness(core: options.openBank(connection, source: settings.source, settings: settings, environment: environment),
                                       width: 160)
            let goals = await app.start()
            #expect(goals.contains { $0.contains("Holiday") && $0.contains("€12.34") }, "\(goals.joined(separator: "\n"))")
            let panel = await app.press(.char("L"))
            #expect(panel.contains { $0.contains("Sign in at the bank through Fake Consent Bank") })
            app.terminal.send(.key(.enter))
            let page = base.appendingPathComponent("bank").absoluteString + "?authorization_id="
            await app.runner.run(until: { app.terminal.lines.contains { $0.hasPrefix(page) } }, timeout: .seconds(30))
            let address = try #require(app.terminal.lines.first { $0.hasPrefix(page) }).trimmingCharacters(in: .whitespaces)
            let answer = try await HTTPTransport(baseURL: base, token: nil, followsRedirects: false)
                .answer("GET", absolute: try #require(URL(string: address)), label: "page")
            let back = try #require(answer.header("Location").flatMap(URL.init(string:)))
            _ = try await HTTPTransport(baseURL: try #require(URL(string: "/", relativeTo: back)?.absoluteURL), token: nil)
                .answer("GET", absolute: back, label: "back")
            await app.runner.run(until: { app.terminal.lines.contains { $0.contains("the new consent is in use") } }, timeout: .seconds(30))
            #expect(Self.kept.withLock { $0 } == ["session-for-code-auth-1", "session-for-code-auth-2"])

            // `logout fakeconsent`: the source's `end`; then a headless command needs a sign-in (77).
            let logout = try #require(try QapitalCommand.parse(arguments: ["logout", "fakeconsent", "--api-url", base.absoluteString,
                                                                            "--config", first]) as? LogoutCommand)
            try await LoginCommand.$streams.withValue(streams) { try await logout.run() }
            #expect(Self.kept.withLock { $0 }.isEmpty)
            let reads = await bank.goalReads
            do {
                _ = try await headless.context(environment: environment)
                Issue.record("a command read after logout")
            } catch let failure as CommandFailure {
                #expect(failure.status == .signInNeeded, "\(failure)")
            }
            #expect(await bank.goalReads == reads)
        }
        await bankServer.stop()
        #expect(SourceRegistry.named("fakeconsent") == nil)
    }
}
