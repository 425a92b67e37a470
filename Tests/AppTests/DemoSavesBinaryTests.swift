import Foundation
import Testing
import TestSupport

extension BlockingTests {
    /// Issue 37.7: the README's own example on the demo saves once; the demo keeps its saves in
    /// the data folder (`$XDG_DATA_HOME/qapital-tui`), and `--reset-demo` starts it again.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct DemoSavesBinaryTests {
        @Test func theDemoSavesOnceAndRemembersUntilReset() throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("demo-saves-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let environment = ["PATH": "/usr/bin:/bin", "HOME": home.path, "XDG_CACHE_HOME": home.path + "/cache",
                               "XDG_CONFIG_HOME": home.path + "/config", "XDG_DATA_HOME": home.path + "/data", "TZ": "Europe/London"]
            let save = ["roundups", "--save", "--goal", "Balloons", "--week", "last", "--yes"]
            let first = try runProcess(TerminalSession.binary, save, environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.hasPrefix("saved "), "\(first.stdout)")
            let balance = try #require(first.stdout.components(separatedBy: "its balance is now ").last?
                .trimmingCharacters(in: .whitespacesAndNewlines))

            let second = try runProcess(TerminalSession.binary, save, environment: environment)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stdout.hasPrefix("already saved on "), "\(second.stdout)")
            // The goal kept the money: the next run's Balloons holds what the save said.
            let goals = try runProcess(TerminalSession.binary, ["goals"], environment: environment)
            #expect(goals.stdout.split(separator: "\n").first { $0.contains("Balloons") }?.contains(balance) == true, "\(goals.stdout)")
            let kept = home.appendingPathComponent("data/qapital-tui/demo-saves.json")
            let attributes = try FileManager.default.attributesOfItem(atPath: kept.path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)

            // Starting again: the demo forgot, and the week saves anew.
            let reset = try runProcess(TerminalSession.binary, save + ["--reset-demo"], environment: environment)
            #expect(reset.status == 0, "\(reset.stderr)")
            #expect(reset.stdout == first.stdout, "\(reset.stdout)")
        }
    }
}
