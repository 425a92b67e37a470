import Foundation
import Testing
@testable import FeedModel

@Suite struct LockedTests {
    @Test func updatesFromManyThreadsAreNeverLost() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test func aThrowingBodyReleasesTheLock() {
        struct Refused: Error {}
        let names = Locked(["a"])
        #expect(throws: Refused.self) {
            try names.withLock { (value: inout [String]) throws(Refused) -> Void in throw Refused() }
        }
        // The lock was released: taking it again does not block.
        #expect(names.withLock { $0.append("b"); return $0 } == ["a", "b"])
    }
}
