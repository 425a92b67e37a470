import Testing
import TestSupport

/// Suites whose tests wait on a child process or a raw socket by blocking their thread (poll
/// with a deadline). They run one at a time under this parent: the cooperative pool has one
/// thread a core (two here), and two blocked threads would starve every other test, and the
/// in-process servers' handlers with them. Other test targets have a `BlockingTests` of their
/// own (DemoServerTests); all of them share `BlockingGate.suites`, so no two run at once.
@Suite(.serialized, .oneBlockingSuiteAtATime) struct BlockingTests {
    @Test func holdsTheProcessWideGate() {
        #expect(BlockingGate.suites.holder == "AppTests")
    }
}

/// Holds `BlockingGate.suites` while the suite it is on runs (once, around all of its tests).
struct OneBlockingSuiteAtATime: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        try await BlockingGate.suites.holding(as: test.id.moduleName, function)
    }
}

extension Trait where Self == OneBlockingSuiteAtATime {
    static var oneBlockingSuiteAtATime: Self { Self() }
}
