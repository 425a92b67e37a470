@testable import DemoServer
import Foundation
@testable import StarlingSource
import Testing
import TestSupport
@testable import qapital_tui

extension BlockingTests {
    /// Issue 37.6: a token need not be on the command line (where `ps`, `/proc/*/cmdline` and
    /// the shell's history show it): `--token-file PATH` and `--token -` (standard input).
    @Suite(.serialized, .timeLimit(.minutes(1))) struct TokenInputTests {
        static func environment() -> [String: String] {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("token-home-\(UUID().uuidString)").path
            return ["PATH": "/usr/bin:/bin", "HOME": home, "XDG_CACHE_HOME": home + "/cache",
                    "XDG_CONFIG_HOME": home + "/config", "TZ": "Europe/London"]
        }

        /// The binary with `input` on its standard input.
        static func run(_ arguments: [String], input: String) throws -> (status: Int32, stdout: String, stderr: String) {
            let process = Process()
            process.executableURL = TerminalSession.binary
            process.arguments = arguments
            process.environment = environment()
            let (stdin, out, err) = (Pipe(), Pipe(), Pipe())
            process.standardInput = stdin
            process.standardOutput = out
            process.standardError = err
            try process.run()
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
        }

        @Test func aTokenFromAFileOrStandardInputReachesTheBank() throws {
            let serve = try ServeProcess(["--api", "starling"])
            defer { _ = serve.stop() }
            let base = ["goals", "--source", "starling", "--api-url", "http://127.0.0.1:\(serve.port)", "--no-cache"]
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("token-file-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("token")
            try Data((StarlingDemoAPI.testToken + "\n").utf8).write(to: file)

            let fromFile = try Self.run(base + ["--token-file", file.path], input: "")
            #expect(fromFile.status == 0, "\(fromFile.stderr)")
            #expect(fromFile.stdout.contains("Balloons"))

            let fromInput = try Self.run(base + ["--token", "-"], input: StarlingDemoAPI.testToken + "\n")
            #expect(fromInput.status == 0, "\(fromInput.stderr)")
            #expect(fromInput.stdout.contains("Balloons"))

            // A wrong token from the file is refused by the bank: the file was read, not ignored.
            try Data("not-the-token\n".utf8).write(to: file)
            let wrong = try Self.run(base + ["--token-file", file.path], input: "")
            #expect(wrong.status != 0)
            #expect(!wrong.stderr.contains("not-the-token"))
        }

        @Test func badTokenInputIsOneLineAndMovesNothing() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("token-file-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let empty = directory.appendingPathComponent("empty")
            try Data("\n".utf8).write(to: empty)
            let cases: [([String], String, String)] = [
                (["--token-file", directory.appendingPathComponent("missing").path], "", "cannot be read"),
                (["--token-file", empty.path], "", "is empty"),
                (["--token", "-"], "", "standard input"),
                (["--token", "x", "--token-file", empty.path], "", "not both"),
            ]
            for (arguments, input, words) in cases {
                let result = try Self.run(["goals", "--api-url", "http://127.0.0.1:9"] + arguments, input: input)
                #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
                #expect(result.stderr.contains(words), "\(arguments): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count <= 2, "\(result.stderr)")
            }
        }
    }
}

@Suite struct TokenHelpTests {
    /// `--help` says a token given as a value is visible to others, and how not to give it so.
    @Test func theHelpWarnsAboutTokensOnTheCommandLine() {
        // The help wraps its lines: words compared with single spaces between them.
        let help = QapitalCommand.helpMessage(columns: 200).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("--token-file"))
        #expect(help.contains("visible to other users"), "\(help)")
        #expect(help.contains("--token -"))
    }
}
