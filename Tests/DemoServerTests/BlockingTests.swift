import Testing
import TestSupport

/// Suites that block a thread on a raw socket (poll with a deadline) run one at a time under
/// this parent, as in AppTests: the cooperative pool has one thread a core (two here), and two
/// blocked threads would starve every other test, and the in-process servers' handlers with
/// them. It shares `BlockingGate.suites` with AppTests' `BlockingTests`, so the two never run
/// at once.
@Suite(.serialized, .oneBlockingSuiteAtATime) struct BlockingTests {
    @Test func holdsTheProcessWideGate() {
        #expect(BlockingGate.suites.holder == "DemoServerTests")
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
