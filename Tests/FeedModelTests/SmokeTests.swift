import Testing
@testable import FeedModel

@Test func versionIsSemantic() {
    #expect(FeedModelInfo.version.split(separator: ".").count == 3)
}
