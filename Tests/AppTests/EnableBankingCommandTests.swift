import ArgumentParser
import Commands
import EnableBankingSource
import FeedModel
import Foundation
import HTTPTransport
import SourceKit
@testable import qapital_tui
import Testing

/// `login` and `logout` for a source that signs in through a consent: the command line reaches
/// the command (not the app's own `--api-url`), and only such a source is taken.
@Suite struct EnableBankingCommandTests {
    @Test func loginTakesTheConsentOptions() throws {
        let command = try #require(try QapitalCommand.parse(arguments: [
            "login", "enablebanking", "--api-url", "http://127.0.0.1:8080", "--aspsp", "Mock ASPSP", "--country", "FI",
            "--psu-type", "business", "--redirect-url", "http://127.0.0.1:8766/callback", "--days", "30", "--paste", "--no-browser",
        ]) as? LoginCommand)
        #expect(command.apiURL == "http://127.0.0.1:8080" && command.aspsp == "Mock ASPSP" && command.country == "FI")
        #expect(command.psuType == "business" && command.redirectURL == "http://127.0.0.1:8766/callback" && command.days == 30)
        #expect(command.paste && command.noBrowser)
    }

    /// `--help` said Enable Banking reads "the token from --token" (it refuses one), `login
    /// --help` told only OAuth's way, and `serve --help` that every bank takes a test token.
    @Test func eachHelpSaysHowAConsentSourceSignsIn() throws {
        let consent = try #require(QapitalCommand.banksSentence.components(separatedBy: "; ").first { $0.hasPrefix("--source enablebanking") })
        #expect(!consent.contains("--token") && consent.contains("(no token: `qapital-tui login enablebanking`"), "\(consent)")
        let login = LoginCommand.discussion
        #expect(login.contains("enablebanking (a consent given at the bank; no token)") && login.contains("monzo (your own OAuth client"))
        for flag in ["--aspsp", "--country", "--psu-type", "--redirect-url", "--days", "--paste", "--no-browser", "--timeout"] {
            #expect(login.contains(flag), "login --help leaves out \(flag)")
        }
        let serve = ServeCommand.signInSentence
        #expect(serve.contains("enablebanking takes no token: it prints an application id") && serve.contains("bunq take the token printed"))
        #expect(!QapitalCommand.helpMessage(for: ServeCommand.self, columns: 200).contains("requires the test token"))
    }

    /// A consent at the bank waits 600 s by default, an OAuth approval 300 s; `--timeout` wins.
    @Test func loginWaitsLongerForAConsent() throws {
        let plain = try #require(try QapitalCommand.parse(arguments: ["login", "enablebanking"]) as? LoginCommand)
        #expect(plain.waitSeconds(consent: true) == 600 && plain.waitSeconds(consent: false) == 300)
        let given = try #require(try QapitalCommand.parse(arguments: ["login", "enablebanking", "--timeout", "42"]) as? LoginCommand)
        #expect(given.waitSeconds(consent: true) == 42)
        #expect(throws: (any Error).self) { try QapitalCommand.parse(arguments: ["login", "enablebanking", "--timeout", "0"]) }
    }

    /// Headless: a token given to Enable Banking, or a key file others may read, exits 64 with
    /// the line naming the path and `chmod 600 PATH`, nothing sent (the address is unroutable on
    /// purpose: a request would fail otherwise, not be refused).
    @Test func aTokenOrAnOpenKeyExits64() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("eb-exit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyPath = folder.appendingPathComponent("key.pem").path
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: keyPath))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyPath)
        let environment = ["HOME": folder.path, "XDG_CONFIG_HOME": folder.path, "XDG_CACHE_HOME": folder.path]
        let settings = ["application-id": "0e3a1c7d-5b4f-4c2a-9d8e-7f6a5b4c3d2e", "key-file": keyPath]
        let base = try #require(URL(string: "http://127.0.0.1:9"))
        func failure(token: String) async -> CommandFailure? {
            do {
                _ = try await EnableBankingStart.connect(BankRequest(baseURL: base, token: token, allowInsecureHTTP: false, log: nil,
                                                                     settings: settings), environment: environment)
                return nil
            } catch {
                return bankConnectFailure(error)
            }
        }
        let token = try #require(await failure(token: "abc"))
        #expect(token.status == .usage && token.message.contains("takes no token"))
        let key = try #require(await failure(token: EnableBankingStart.keptMarker))
        #expect(key.status == .usage && key.message == "the Enable Banking key file \(keyPath) may be read by others: run chmod 600 \(keyPath)")
        // Any other refusal keeps its status.
        #expect(bankConnectFailure(APIError(kind: .rejected, request: "config", message: "x")).status == .failed)
    }

    /// `serve --api enablebanking`'s own flags reach the look-alike; the older spellings stay.
    @Test func serveTakesTheLookAlikesFlags() throws {
        let command = try #require(try QapitalCommand.parse(arguments: [
            "serve", "--api", "enablebanking", "--public-key", "/tmp/p.pem", "--application-id", "abc", "--session-seconds", "60",
            "--auth-error", "access_denied",
        ]) as? ServeCommand)
        let flags = command.flags
        #expect(flags.publicKeyFile == "/tmp/p.pem" && flags.applicationId == "abc" && flags.sessionTimeout == 60)
        #expect(flags.authError == "access_denied" && flags.keyOut == nil)
        let old = try #require(try QapitalCommand.parse(arguments: ["serve", "--api", "enablebanking", "--session-timeout", "30",
                                                                     "--key-out", "/tmp/k.pem"]) as? ServeCommand)
        #expect(old.flags.sessionTimeout == 30 && old.flags.keyOut == "/tmp/k.pem")
        #expect(throws: (any Error).self) { try QapitalCommand.parse(arguments: ["serve", "--api", "enablebanking", "--public-key", "/tmp/p.pem"]) }
    }

    /// The bank's address opens with `$BROWSER` (its first entry) when set, as the spec says,
    /// the address its one argument.
    @Test func theBrowserIsBrowserWhenSet() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("eb-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("browser")
        try Data("#!/bin/sh\nprintf '%s|%s' \"$#\" \"$1\" > \"$(dirname \"$0\")/opened\"\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let url = try #require(URL(string: "http://127.0.0.1:8080/mock-aspsp/auth?authorization_id=a-1"))
        let process = try #require(LoginCommand.openInBrowser(url, environment: ["BROWSER": script.path + ":/nonexistent/other"]))
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let opened = try String(contentsOf: folder.appendingPathComponent("opened"), encoding: .utf8)
        #expect(opened == "1|" + url.absoluteString)
    }

    @Test func logoutIsACommandWithItsOwnAPIURL() throws {
        let command = try #require(try QapitalCommand.parse(arguments: ["logout", "enablebanking", "--api-url", "http://127.0.0.1:8080"])
                                   as? LogoutCommand)
        #expect(command.source == "enablebanking" && command.apiURL == "http://127.0.0.1:8080")
        #expect(SourceRegistry.withSignIn.map(\.name) == ["monzo", "enablebanking"])
        #expect(SourceRegistry.withSignIn.map(\.name).contains("enablebanking"))
    }

    @Test func logoutRefusesASourceWithoutASignIn() async throws {
        let command = try #require(try QapitalCommand.parse(arguments: ["logout", "starling"]) as? LogoutCommand)
        await #expect(throws: ValidationError.self) { try await command.run() }
    }
}
