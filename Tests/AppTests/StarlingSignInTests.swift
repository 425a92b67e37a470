@testable import DemoServer
@testable import DemoData
import FeedModel
import Foundation
@testable import StarlingSource
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension BlockingTests {
    /// The real binary on `serve --api starling`: a refused token opens the sign-in screen, a good
    /// one opens the app, "remember" keeps it (0600) for the next start; the token is never shown.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct StarlingSignInTests {
        static let good = StarlingDemoAPI.testToken
        static let wrong = "wrong-token-abc987"

        @Test func aRefusedTokenShowsSignInAndAGoodOneOpensTheApp() async throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("signin-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let environment = ["XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                               "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
                               "STARLING_TOKEN": "", "QAPITAL_TOKEN": "", "QAPITAL_SOURCE": ""]
            try await withStarlingServer { _, url in
                let arguments = ["--source", "starling", "--api-url", url.absoluteString]
                // 1. A wrong token: the sign-in screen with the refusal; a good one (remembered) opens the app.
                do {
                    let terminal = try TerminalSession(arguments: arguments + ["--token", Self.wrong], environment: environment)
                    #expect(terminal.read(until: { $0.contains("Sign in to 127.0.0.1") && $0.contains("the token was refused (HTTP 401)") }))
                    terminal.send(Self.wrong)
                    terminal.send("\r")
                    #expect(terminal.read(until: { $0.components(separatedBy: "refused (HTTP 401)").count > 2 }))
                    terminal.send("\u{15}")          // Ctrl-U clears the field
                    terminal.send(Self.good)
                    terminal.send("\t ")             // tick "remember"
                    terminal.send("\r")
                    #expect(terminal.read(until: { $0.contains("Balloons") && $0.contains("60-83-71 12345678") }))
                    terminal.send("q")
                    #expect(terminal.waitForExit() == 0)
                    #expect(!terminal.text.contains(Self.good))
                    #expect(!terminal.text.contains(Self.wrong))
                }
                let file = home.appendingPathComponent("config/qapital-tui/starling-tokens.json")
                var info = stat()
                #expect(stat(file.path, &info) == 0 && info.st_mode & 0o777 == 0o600)

                // 2. No token given: the remembered one opens the app at once.
                do {
                    let terminal = try TerminalSession(arguments: arguments, environment: environment)
                    #expect(terminal.read(until: { $0.contains("Balloons") }))
                    #expect(!terminal.text.contains("Sign in to"))
                    terminal.send("q")
                    #expect(terminal.waitForExit() == 0)
                }

                // 3. No token anywhere: the sign-in screen; Esc leaves cleanly, but not as a success
                // (77: sign-in needed, as the headless commands say it), with one line.
                try FileManager.default.removeItem(at: file)
                do {
                    let terminal = try TerminalSession(arguments: arguments, environment: environment)
                    #expect(terminal.read(until: { $0.contains("Sign in to") && $0.contains("Access token") }))
                    terminal.send("\u{1b}")
                    #expect(terminal.waitForExit() == 77)
                    #expect(terminal.text.contains("qapital-tui: not signed in"))
                }
                // The cache the app wrote holds no token.
                for name in (try? FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("cache/qapital-tui").path)) ?? [] {
                    let data = try Data(contentsOf: home.appendingPathComponent("cache/qapital-tui/\(name)"))
                    #expect(data.range(of: Data(Self.good.utf8)) == nil, "the token is in \(name)")
                }
            }
        }

        /// The second start, with Starling unreachable: the last account's cache, marked offline.
        @Test func startsOfflineOnTheLastAccountsCache() async throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("offline-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let environment = ["XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                               "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
                               "STARLING_TOKEN": Self.good, "QAPITAL_TOKEN": "", "QAPITAL_SOURCE": "starling"]
            var served: URL?
            try await withStarlingServer { _, url in
                served = url
                let terminal = try TerminalSession(arguments: ["--api-url", url.absoluteString], environment: environment)
                #expect(terminal.read(until: { $0.contains("Balloons") && $0.contains("Mikael · 60-83-71 12345678") }))
                terminal.send("q")
                #expect(terminal.waitForExit() == 0)
            }
            let url = try #require(served)
            let terminal = try TerminalSession(arguments: ["--api-url", url.absoluteString], environment: environment)
            #expect(terminal.read(until: { $0.contains("Balloons") && $0.contains("offline") && $0.contains("Mikael · 60-83-71") }))
            terminal.send("q")
            #expect(terminal.waitForExit() == 0)
            // Nothing kept beside the cache holds the token.
            let directory = home.appendingPathComponent("cache/qapital-tui")
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(names.contains { $0.hasPrefix("starling-account-") })
            for name in names {
                let data = try Data(contentsOf: directory.appendingPathComponent(name))
                #expect(data.range(of: Data(Self.good.utf8)) == nil, "the token is in \(name)")
            }
        }
    }
}
