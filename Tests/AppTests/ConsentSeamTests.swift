import ArgumentParser
import DemoServer
import FeedModel
import Foundation
import HTTPTransport
@testable import qapital_tui
import SourceKit
import Testing

/// Issue 48's seam, delivered: a bank that signs every request with its own header (a JWT's
/// place) and gives access through a consent and a redirect back, declared here and nowhere
/// else, signs in through the real `login` command (its lines and browser given to it) and its
/// `ConsentSignIn` hook, end to end over loopback.
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

        func setBase(_ url: String) { base = url }

        func handle(_ request: ServeRequest) async -> ServeResponse {
            let signed = request.headers["Authorization"] == (try? FakeSigner(applicationId: "app-1").authorization(token: nil))
            let body = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: String] ?? [:]
            switch (request.method, request.path) {
            case ("POST", "/auth"):
                guard signed else { unsigned += 1; return .error(401, "UNAUTHORIZED_ACCESS") }
                guard let redirect = body["redirect_url"], let state = body["state"] else { return .error(422, "missing") }
                let id = "auth-\(pending.count + 1)"
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
            default:
                return .error(404, "not found")
            }
        }
    }

    /// What the fake source keeps: the session its sign-in got (a session record's place).
    static let kept = Locked<[String]>([])

    /// The fake source: nothing but this declaration.
    static let fake = RegisteredSource(
        description: SourceDescription(
            name: "fakeconsent", title: "Fake Consent Bank", baseURL: URL(string: "https://api.fakeconsent.example/"),
            signIn: .token, tokenVariables: [], abilities: [.bankAccount], configKeys: ["application-id"],
            documentation: "docs/fakeconsent.md"),
        pictureSchemes: [],
        open: .bank(BankConnector(connect: { _ throws(APIError) in
            throw APIError(kind: .unauthorized, request: "sign-in", message: "run qapital-tui login fakeconsent")
        }, consentSignIn: ConsentSignIn(run: { request throws(APIError) in
            let transport = HTTPTransport(baseURL: request.apiURL, token: nil, allowInsecureHTTP: request.allowInsecureHTTP,
                                          scheme: .signed(FakeSigner(applicationId: request.settings["application-id"] ?? "")))
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

    @Test func aFakeJWTAndRedirectBankSignsInThroughTheConsentHook() async throws {
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
        }
        await bankServer.stop()
        #expect(SourceRegistry.named("fakeconsent") == nil)
    }
}
