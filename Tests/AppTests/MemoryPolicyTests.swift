import Testing
@testable import QapitalApp

/// The allocator setting the app starts with is one glibc takes (a name it does not know, or a
/// value it refuses, would return false and leave the default arenas).
@Suite struct MemoryPolicyTests {
    @Test func glibcTakesTheArenaLimit() {
        #expect(MemoryPolicy.apply())
    }
}
