@testable import QapitalClient
import FeedModel
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension BlockingTests {
    /// The real binary, as a person starts it: in a terminal, in a pipe, with bad arguments.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct BinaryTests {
        /// ncurses leaves the alternate screen with smcup/rmcup; xterm's rmcup holds this.
        static let leaveAlternateScreen = "\u{1B}[?1049l"
        static let enterAlternateScreen = "\u{1B}[?1049h"
        static let showCursor = "\u{1B}[?25h"

        @Test func startsDrawsAndQuitsCleanlyOnQ() throws {
            let terminal = try TerminalSession()
            #expect(terminal.read(until: { $0.contains("Balloons") && $0.contains("? help") }))
            #expect(terminal.text.contains(Self.enterAlternateScreen))
            terminal.send("j")
            terminal.send("q")
            #expect(terminal.waitForExit() == 0)
            let tail = terminal.text.components(separatedBy: Self.enterAlternateScreen).last ?? ""
            #expect(tail.contains(Self.leaveAlternateScreen))
            #expect(tail.contains(Self.showCursor))
        }

        @Test(arguments: [SIGTERM, SIGINT, SIGHUP, SIGQUIT])
        func aSignalRestoresTheTerminal(signal: Int32) throws {
            let terminal = try TerminalSession()
            #expect(terminal.read(until: { $0.contains("Balloons") }))
            kill(terminal.process.processIdentifier, signal)
            #expect(terminal.waitForExit() == 128 + signal)
            #expect(terminal.text.contains(Self.leaveAlternateScreen))
            // Nothing printed after the terminal was restored (no "qapital-tui: failed").
            let after = terminal.text.components(separatedBy: Self.leaveAlternateScreen).last ?? ""
            #expect(!after.contains("qapital-tui:"), "\(after)")
            #expect(terminal.text.hasSuffix(Self.leaveAlternateScreen) || terminal.text.contains(Self.showCursor))
        }

        /// A hostile server answers everything with `[[[…]]]` 200,000 deep. The answer is refused
        /// with a message (the app keeps working), and SIGTERM then ends the app within the deadline
        /// with the terminal restored. Before the fix, cancelling the rules request while the goals
        /// answer failed deadlocked Foundation's URLSession with the main actor in about half the
        /// runs: the app drew nothing more and ignored every further SIGTERM.
        @Test func aSignalAfterAHostileDeeplyNestedAnswerEndsTheAppAtOnce() async throws {
            let depth = 200_000
            let deep = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            try await withServer(handler: CannedHandler(contentType: "application/json", body: deep)) { server, _ in
                let url = await server.baseURL.absoluteString
                for _ in 0..<6 {
                    // The session's reads block: on a thread of their own, so the server here can answer.
                    let round = await onOwnThread { () -> (drawn: Bool, status: Int32?, restored: Bool, tail: String) in
                        guard let terminal = try? TerminalSession(arguments: ["--api-url", url, "--no-cache", "--no-images"], width: 200)
                        else { return (false, nil, false, "no pseudo-terminal") }
                        let pid = terminal.process.processIdentifier
                        defer { if terminal.process.isRunning { kill(pid, SIGKILL) } }
                        let drawn = terminal.read(until: { $0.contains("nested deeper than 512 levels") }, timeout: 5)
                        kill(pid, SIGTERM)
                        let status = terminal.waitForExit(timeout: 10)
                        return (drawn, status, terminal.text.contains(BinaryTests.leaveAlternateScreen), String(terminal.text.suffix(300)))
                    }
                    #expect(round.drawn, "the refusal was never drawn: \(round.tail)")
                    #expect(round.status == 128 + SIGTERM)
                    #expect(round.restored)
                }
            }
        }

        /// With a server, the only files the app leaves are its own cache's: 0600 in a 0700
        /// directory; Foundation's URL cache (`org.swift.foundation.URLCache`) is not made.
        @Test func theCacheIsPrivateAndFoundationKeepsNoURLCache() async throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("home-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: home) }
            try await withDemoServer { server, _ in
                let url = await server.baseURL.absoluteString
                let status = await onOwnThread { () -> Int32? in
                    guard let terminal = try? TerminalSession(arguments: ["--api-url", url],
                                                              environment: ["HOME": home.path, "XDG_CACHE_HOME": ""]) else { return nil }
                    defer { if terminal.process.isRunning { kill(terminal.process.processIdentifier, SIGKILL) } }
                    guard terminal.read(until: { $0.contains("Balloons") }) else { return nil }
                    terminal.send("q")
                    return terminal.waitForExit()
                }
                #expect(status == 0)
            }
            let caches = home.appendingPathComponent(".cache")
            #expect(!FileManager.default.fileExists(atPath: caches.appendingPathComponent("org.swift.foundation.URLCache").path))
            let directory = caches.appendingPathComponent("qapital-tui")
            var info = stat()
            #expect(stat(directory.path, &info) == 0 && info.st_mode & 0o777 == 0o700)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            #expect(names.contains { $0.hasSuffix(".sqlite") })
            for name in names {
                #expect(stat(directory.appendingPathComponent(name).path, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(name)")
            }
        }

        @Test func helpAndTabsWorkInARealTerminal() throws {
            let terminal = try TerminalSession()
            #expect(terminal.read(until: { $0.contains("Balloons") }))
            terminal.send("?")
            #expect(terminal.read(until: { $0.contains("page down") }))
            terminal.send("\u{1B}")
            terminal.send("2")
            #expect(terminal.read(until: { $0.contains("Yesterday") }))
            terminal.send("q")
            #expect(terminal.waitForExit() == 0)
        }

        private func runPiped(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            let process = Process()
            process.executableURL = TerminalSession.binary
            process.arguments = arguments
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
        }

        @Test func aPipeInsteadOfATerminalIsOneLineAndAFailure() throws {
            let result = try runPiped([])
            #expect(result.status != 0)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr == "qapital-tui: standard output is not a terminal; qapital-tui is a full-screen app\n")
        }

        @Test(arguments: [
            (["--api-url", "ftp://example.com"], "qapital-tui: --api-url: unsupported URL scheme \"ftp\" in ftp://example.com (use http or https)\n"),
            (["--api-url", "not a url"], "qapital-tui: --api-url: not a URL: not a url\n"),
            (["--currency", "dollars"], "qapital-tui: --currency: not an ISO 4217 currency code: \"dollars\" (e.g. USD, EUR, GBP, JPY, KWD, CHF)\n"),
            (["--currency", "XYZ"], "qapital-tui: --currency: not an ISO 4217 currency code: \"XYZ\" (e.g. USD, EUR, GBP, JPY, KWD, CHF)\n"),
            (["--bogus"], "qapital-tui: Unknown option '--bogus'\n"),
            (["--achievements", "/nonexistent/a.json"], "qapital-tui: --achievements: cannot read the achievements file /nonexistent/a.json: no such file\n"),
        ])
        func badArgumentsAreOneLineAndAFailure(arguments: [String], message: String) throws {
            let result = try runPiped(arguments)
            #expect(result.status != 0)
            #expect(result.stderr == message)
            #expect(!result.stderr.contains("\u{1B}"))
        }

        @Test func versionAndHelpPrintAsUsual() throws {
            let version = try runPiped(["--version"])
            #expect(version.status == 0)
            #expect(version.stdout == "0.1.0\n")
            let help = try runPiped(["--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("serve"))
            let appHelp = try runPiped(["run", "--help"])
            #expect(appHelp.stdout.contains("--api-url"))
            #expect(appHelp.stdout.contains("--no-color"))
        }
    }
}

extension BlockingTests {
    /// `qapital-tui serve` as a process: it says where it listens, answers, and stops cleanly.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct ServeProcessTests {
        @Test(arguments: [SIGTERM, SIGINT])
        func serveAnswersAndStopsCleanlyOnASignal(signal: Int32) async throws {
            let process = Process()
            process.executableURL = TerminalSession.binary
            process.arguments = ["serve", "--port", "0"]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { process.terminate() } }

            // The first line names the address; read until it has come (bounded by the time limit).
            var text = ""
            while !text.contains("\n") {
                let chunk = errors.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            let line = try #require(text.split(separator: "\n").first)
            let address = try #require(line.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") })
            let api = QapitalHTTPAPI(baseURL: URL(string: String(address))!, timeout: serverAnswerTimeout)
            #expect(try await api.goals().count == 12)  // the deleted one included: the app drops it, not the API

            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let rest = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(rest.contains("stopped"))
        }
    }
}
