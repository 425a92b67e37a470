import DemoData
import DemoServer
import EnableBankingClient
import EnableBankingSource
import Foundation
import Testing
import TestSupport

/// The real binary on a pseudo-terminal against `serve --api enablebanking`'s look-alike (in
/// this process): without a session it starts on the sign-in screen, Enter shows the bank's
/// address, the browser's return (followed here as a browser would) reaches the app's loopback
/// listener, and the app opens on the accounts. No secret is in its argument list meanwhile.
@Suite(.timeLimit(.minutes(2))) struct ConsentSignInBinaryTests {
    /// The session handed to the reading thread: used by one thread at a time (each read is
    /// awaited before the test goes on), so nothing touches it concurrently.
    final class Shared: @unchecked Sendable {
        let session: TerminalSession
        init(_ session: TerminalSession) { self.session = session }
    }

    @Test func theAppSignsInAtTheBankThroughItsOwnScreen() async throws {
        let key = try EnableBankingKey.generate()
        let applicationId = EnableBankingStart.demoApplicationId
        let lookAlike = try EnableBankingDemoAPI(backend: DemoBackend(), publicKeyPEM: key.publicKeyPEM, applicationId: applicationId)
        let server = try DemoHTTPServer(handler: lookAlike)
        try await server.start()
        var base = await server.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("eb-pty-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        // A port nothing listens on, for the redirect (released just before the app takes it).
        var held: RefusingPort? = try RefusingPort()
        let port = try #require(held?.port)
        held = nil
        let redirect = "http://127.0.0.1:\(port)/callback"
        // Registered for the application, as a user registers theirs in the Control Panel.
        await lookAlike.register(redirect: redirect)
        try EnableBankingTestHome.write(home, key: key, applicationId: applicationId, redirect: redirect)
        let environment = EnableBankingTestHome.environment(home)
        let shared = try Shared(TerminalSession(arguments: ["--no-images", "--no-browser", "--source", "enablebanking", "--api-url", base],
                                          width: 100, height: 30, environment: environment))
        let session = shared.session
        let screen = await onOwnThread { shared.session.read(until: { $0.contains("Enter: sign in") }, timeout: 30) }
        #expect(screen, "no sign-in screen: \(session.text.suffix(400))")
        // Never signed in is not an error: the screen says what Enter does, no refusal.
        #expect(!session.text.contains("✗") && session.text.contains("Enter asks Enable Banking"))
        session.send("\r")
        let prefix = base + "/mock-aspsp/auth?authorization_id="
        let shown = await onOwnThread { shared.session.read(until: { $0.contains(prefix) && $0.contains("Address:") }, timeout: 30) }
        #expect(shown, "no address: \(session.text.suffix(400))")
        // The address as drawn: one run of text on its line (the id's characters, up to the next escape).
        let start = try #require(session.text.range(of: prefix))
        let address = prefix + session.text[start.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" }

        // While it waits for the browser, the process signs requests: nothing secret in its arguments.
        let pid = session.process.processIdentifier
        let cmdlines = Self.commandLines(of: pid)
        #expect(!cmdlines.isEmpty)
        let pemBody = key.privateKeyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.prefix(3)
        for line in cmdlines {
            #expect(!line.contains("eyJ"), "a JWT in a command line")
            for part in pemBody { #expect(!line.contains(part), "the key in a command line") }
        }

        // The browser: the bank's page answers 302 to the app's listener, which it then asks.
        let serverPort = try #require(URL(string: base)?.port)
        let page = await Self.get(port: UInt16(serverPort), String(address.dropFirst(base.count)))
        let back = try #require(page?.header("Location"))
        #expect(back.hasPrefix(redirect + "?"))
        let path = String(back.dropFirst("http://127.0.0.1:\(port)".count))
        let forged = await Self.get(port: port, path.replacingOccurrences(of: "state=", with: "state=x"))
        #expect(forged?.status == 400)
        let answer = await Self.get(port: port, path)
        #expect(answer?.status == 200)
        let opened = await onOwnThread { shared.session.read(until: { $0.contains("days left") && $0.contains("1 Goals") }, timeout: 60) }
        #expect(opened, "the app did not open: \(session.text.suffix(600))")

        let sessionFile = EnableBankingSessionFile(fileURL: EnableBankingSessionFile.defaultFile(environment: environment))
        let record = try #require(sessionFile.newest(origin: EnableBankingFiles.origin(URL(string: base)!), applicationId: applicationId,
                                                     aspsp: nil, country: nil))
        for line in Self.commandLines(of: pid) { #expect(!line.contains(record.sessionId), "the session id in a command line") }
        #expect(!session.text.contains(record.sessionId), "the session id on the screen")

        session.send("q")
        let status = await onOwnThread { shared.session.waitForExit(timeout: 30) }
        #expect(status == 0)
        await server.stop()
    }

    /// `login enablebanking --paste`, which signs its requests, holds no secret in its argument
    /// list (nor do its children) while it waits for the pasted address; pasted, it signs in.
    @Test func loginHoldsNoSecretInItsArguments() async throws {
        let bank = try await EnableBankingHeadlessTests.Bank(days: 90)
        let shared = try Shared(TerminalSession(arguments: ["login", "enablebanking", "--paste", "--no-browser", "--api-url", bank.base],
                                                width: 200, height: 30, environment: bank.environment))
        let session = shared.session
        let prefix = bank.base + "/mock-aspsp/auth?authorization_id="
        let asked = await onOwnThread { shared.session.read(until: { $0.contains(prefix) && $0.contains("paste here") }, timeout: 30) }
        #expect(asked, "\(session.text.suffix(400))")
        let start = try #require(session.text.range(of: prefix))
        let address = prefix + session.text[start.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" }
        let pemBody = bank.key.privateKeyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.prefix(3)
        let lines = Self.commandLines(of: session.process.processIdentifier)
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(!line.contains("eyJ"), "a JWT in a command line")
            for part in pemBody { #expect(!line.contains(part), "the key in a command line") }
        }
        let page = await Self.get(port: UInt16(try #require(URL(string: bank.base)?.port)), String(address.dropFirst(bank.base.count)))
        session.send(try #require(page?.header("Location")) + "\r")
        let status = await onOwnThread { shared.session.waitForExit(timeout: 60) }
        #expect(status == 0, "\(session.text.suffix(600))")
        #expect(session.text.contains("signed in at \(EnableBankingDemoAPI.bankName)"))
        let record = try #require(bank.record)
        #expect(!session.text.contains(record.sessionId))
        await bank.stop()
    }

    struct Answer: Sendable {
        let status: Int
        let location: String?
        func header(_ name: String) -> String? { name == "Location" ? location : nil }
    }

    /// One GET on 127.0.0.1:`port`, as a browser would send it: its status and `Location`.
    static func get(port: UInt16, _ path: String) async -> Answer? {
        await onOwnThread {
            guard let client = try? RawHTTPClient(port: port) else { return nil }
            client.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
            return client.readResponse().map { Answer(status: $0.status, location: $0.header("Location")) }
        }
    }

    /// The argument lists of `pid` and of every process it started (from /proc).
    static func commandLines(of pid: Int32) -> [String] {
        var pids = [pid]
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in all {
            guard let child = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == pid { pids.append(child) }
        }
        return pids.compactMap { id in
            (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(id)/cmdline"))).map { data in
                String(decoding: data.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
            }
        }
    }
}
