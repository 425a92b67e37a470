@testable import BunqClient
@testable import BunqSource
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension BlockingTests {
    /// Issue 39's "secrets absent from every file written, every log line and the process list",
    /// on the real binary: the API key typed into the sign-in form, and the session and
    /// installation tokens it earns, are in no process's command line or environment while the app
    /// runs, and in no file but the context file (0600) that exists to keep the tokens.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct BunqProcessListTests {
        /// Every process's command line and environment that this user may read, with its pid.
        static func processList() -> [(pid: String, text: Data)] {
            let ids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return ids.filter { $0.allSatisfy(\.isNumber) }.flatMap { pid in
                ["cmdline", "environ"].compactMap { part in
                    (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/\(part)"))).map { (pid: "\(pid)/\(part)", text: $0) }
                }
            }
        }

        @Test func theKeyAndItsTokensAreInNoProcessAndOnlyInTheContextFile() throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("bunq-ps-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let config = home.appendingPathComponent("config")
            let environment = ["XDG_CONFIG_HOME": config.path, "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
                               "BUNQ_API_KEY": "", "QAPITAL_TOKEN": "", "QAPITAL_SOURCE": ""]
            let serve = try ServeProcess(["--api", "bunq", "--rate-limit", "0"])
            defer { _ = serve.stop() }
            let key = BunqDemoAPI.testKey
            let terminal = try TerminalSession(arguments: ["--source", "bunq", "--api-url", "http://127.0.0.1:\(serve.port)/v1"],
                                               environment: environment)
            #expect(terminal.read(until: { $0.contains("Sign in to") }))
            terminal.send(key)
            terminal.send("\r")
            #expect(terminal.read(until: { $0.contains("Dog") }, timeout: 20))

            // While the app runs with a session: the context file holds the tokens, 0600 …
            let contextFile = BunqContextFile(directory: config.appendingPathComponent("qapital-tui"),
                                              baseURL: try #require(URL(string: "http://127.0.0.1:\(serve.port)/v1")))
            let contextURL = contextFile.url
            let context = try #require(contextFile.load())
            var info = stat()
            #expect(stat(contextURL.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
            let secrets = ["the API key": key, "the session token": try #require(context.sessionToken),
                           "the installation token": try #require(context.installationToken)]
            // … and no process shows any of them: not the app, not serve, not anything they started.
            let processes = Self.processList()
            // (The scan reads the app's own command line: its base URL is there.)
            let own = processes.filter { $0.pid == "\(terminal.process.processIdentifier)/cmdline" }
            #expect(own.count == 1 && own.allSatisfy { $0.text.range(of: Data("127.0.0.1:\(serve.port)/v1".utf8)) != nil })
            for (name, secret) in secrets {
                for process in processes {
                    #expect(process.text.range(of: Data(secret.utf8)) == nil, "\(name) is in /proc/\(process.pid)")
                }
            }
            terminal.send("q")
            #expect(terminal.waitForExit() == 0)
            #expect(!terminal.text.contains(key))

            // Every file the app wrote: the key in none (it was not remembered), the tokens only in
            // the context file.
            let written = regularFiles(under: home)
            #expect(written.count > 1)
            for file in written {
                let data = try Data(contentsOf: file)
                #expect(data.range(of: Data(key.utf8)) == nil, "the API key is in \(file.lastPathComponent)")
                if file.standardizedFileURL.path == contextURL.standardizedFileURL.path { continue }
                for (name, secret) in secrets {
                    #expect(data.range(of: Data(secret.utf8)) == nil, "\(name) is in \(file.lastPathComponent)")
                }
            }
        }
    }
}
