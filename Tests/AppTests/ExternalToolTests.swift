import Foundation
import Testing
import TestSupport

/// The tools CI installs are required there: a test that needs a missing one skips on a
/// developer's machine, saying why, and fails in CI (`QT_CI=1`, which .ci/run sets).
@Suite struct ExternalToolTests {
    @Test func aMissingToolSkipsHereAndFailsInCI() {
        let here = ExternalTool("qt-no-such-tool", environment: ["PATH": "/nonexistent"])
        #expect(here.path == nil && !here.runs)
        let ci = ExternalTool("qt-no-such-tool", environment: ["PATH": "/nonexistent", "QT_CI": "1"])
        #expect(ci.runs, "in CI the test runs")
        #expect(throws: ExternalTool.Missing.self) { try ci.require() }
        let sh = ExternalTool("sh", environment: ["PATH": "/bin:/usr/bin", "QT_CI": "1"])
        #expect(sh.runs && sh.path != nil)
    }

    @Test func ciSaysItIsCI() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = try String(contentsOf: root.appendingPathComponent(".ci/run"), encoding: .utf8)
        #expect(script.contains("\nexport QT_CI=1\n"))
    }

    /// A signal fired before or after the wait ends it; firing twice is once.
    @Test func aSignalEndsTheWaitWhenFired() async {
        let early = TestSignal()
        early.fire()
        await early.wait()
        let late = TestSignal()
        async let waited: Void = late.wait()
        late.fire()
        late.fire()
        await waited
        #expect(early.hasFired && late.hasFired)
        // One that never fires ends with its task's cancellation (a test's time limit).
        let never = TestSignal()
        let waiting = Task { await never.wait() }
        waiting.cancel()
        await waiting.value
        #expect(!never.hasFired)
    }
}
