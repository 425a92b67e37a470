import Foundation
import Testing
import TestSupport

extension BlockingTests {
    /// `~/` is `$HOME` in every path the binary takes, also where no shell expands it: after
    /// `--flag=` (issue 41, item 9). Each case failed before with "cannot be read" or a folder
    /// called `~` in the working directory.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct HomePathBinaryTests {
        let home: URL
        let environment: [String: String]

        init() throws {
            home = FileManager.default.temporaryDirectory.appendingPathComponent("home-path-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            environment = ["PATH": "/usr/bin:/bin", "HOME": home.path, "XDG_CACHE_HOME": home.path + "/cache",
                           "XDG_CONFIG_HOME": home.path + "/config", "XDG_DATA_HOME": home.path + "/data", "TZ": "UTC"]
        }

        func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            // Run from a folder of its own, so a literal `~` folder would show up there.
            try runProcess(TerminalSession.binary, arguments, environment: environment)
        }

        @Test func tokenFileConfigCacheAndLogFollowHome() throws {
            defer { try? FileManager.default.removeItem(at: home) }
            try "EUR-token-not-sent\n".write(to: home.appendingPathComponent("token"), atomically: true, encoding: .utf8)
            try "currency = \"EUR\"\n".write(to: home.appendingPathComponent("qt.toml"), atomically: true, encoding: .utf8)

            // The config file: its currency is the demo's.
            let goals = try run(["goals", "--output", "json", "--config=~/qt.toml"])
            #expect(goals.status == 0, "\(goals.stderr)")
            #expect(goals.stdout.contains("\"EUR\""))

            // The token file is read (the run goes on to the server, which is not there: 69, not 64).
            let token = try run(["goals", "--api-url", "http://127.0.0.1:9", "--token-file=~/token"])
            #expect(token.status == 69, "\(token.stderr)")

            // The cache folder and the log file.
            let export = try run(["export", "--new", "--output", "csv", "--cache-dir=~/kept", "--log-file=~/requests.log"])
            #expect(export.status == 0, "\(export.stderr)")
            let kept = try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("kept").path)
            #expect(kept.contains { $0.hasPrefix("export-") && $0.hasSuffix(".latest") })
            #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("requests.log").path))
        }
    }
}
