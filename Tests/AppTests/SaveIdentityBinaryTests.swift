import Foundation
import Testing
import TestSupport

extension BlockingTests {
    /// Issue 37.1 through the binary: `roundups --save` against `serve`, from two "machines"
    /// (each its own cache folder, so its own record) with different tokens, then the first one
    /// again after signing in with a third token. The week moves once (before: 320 → 321.50 → 323.00).
    @Suite(.serialized, .timeLimit(.minutes(1))) struct SaveIdentityBinaryTests {
        static func environment(token: String) -> [String: String] {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("identity-home-\(UUID().uuidString)").path
            return ["PATH": "/usr/bin:/bin", "HOME": home, "XDG_CACHE_HOME": home + "/cache", "XDG_CONFIG_HOME": home + "/config",
                    "TZ": "Europe/London", "QAPITAL_TOKEN": token]
        }

        @Test func aNewTokenOrAnotherMachineIsTheSameAccount() throws {
            let serve = try ServeProcess()
            defer { _ = serve.stop() }
            let save = ["roundups", "--save", "--goal", "Balloons", "--week", "last", "--yes", "--api-url", "http://127.0.0.1:\(serve.port)"]
            var first = Self.environment(token: "token-one")
            let one = try runProcess(TerminalSession.binary, save, environment: first)
            #expect(one.status == 0, "\(one.stderr)")
            #expect(one.stdout.hasPrefix("saved "), "\(one.stdout)")

            let other = try runProcess(TerminalSession.binary, save, environment: Self.environment(token: "token-two"))
            #expect(other.status == 0, "\(other.stderr)")
            #expect(other.stdout.contains("already saved by another run or machine; nothing moved"), "\(other.stdout)")

            first["QAPITAL_TOKEN"] = "token-three"
            let again = try runProcess(TerminalSession.binary, save, environment: first)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.hasPrefix("already saved on "), "\(again.stdout)")

            // Balloons holds what the first save said, and no more.
            let balance = try #require(one.stdout.components(separatedBy: "its balance is now ").last?
                .trimmingCharacters(in: .whitespacesAndNewlines))
            let goals = try runProcess(TerminalSession.binary, ["goals", "--no-cache", "--api-url", "http://127.0.0.1:\(serve.port)"],
                                       environment: first)
            let row = try #require(goals.stdout.split(separator: "\n").first { $0.contains("Balloons") })
            #expect(row.contains(balance), "\(row) (expected \(balance))")
        }
    }
}
