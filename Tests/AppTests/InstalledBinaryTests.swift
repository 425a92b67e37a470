import Foundation
import Testing
import TestSupport

extension BlockingTests {
    /// The binary as a package installs it: alone in a folder, nothing of the build beside it.
    /// Scripts/check-package.sh found the installed binary trapping on the achievements'
    /// resource bundle, which SwiftPM looks for beside the binary, then in the build folder:
    /// here the build folder is still there, so this test could not catch that; it keeps the
    /// commands working from a copy, and the clean-root check is what shows the fix.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct InstalledBinaryTests {
        @Test func theBinaryAloneRunsTheCommands() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("installed-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let alone = folder.appendingPathComponent("qapital-tui")
            try FileManager.default.copyItem(at: TerminalSession.binary, to: alone)
            let environment = CommandBinaryTests.environment()
            let goals = try runProcess(alone, ["goals"], environment: environment)
            #expect(goals.status == 0, "\(goals.stderr)")
            #expect(goals.stdout.contains("Balloons"))
            let achievements = try runProcess(alone, ["goals", "--output", "json"], environment: environment)
            #expect(achievements.status == 0, "\(achievements.stderr)")
        }
    }
}
