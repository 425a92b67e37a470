import Testing
@testable import TermUI

@Test func moduleLoads() {
    #expect(Bool(true))
}
