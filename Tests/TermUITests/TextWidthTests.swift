import Testing
@testable import TermUI

@Suite struct TextWidthTests {
    @Test func asciiCountsOneCellPerCharacter() {
        #expect(TextWidth.of("Goals") == 5)
        #expect(TextWidth.of("") == 0)
    }

    @Test func cjkAndEmojiAreTwoCells() {
        #expect(TextWidth.of("中文") == 4)
        #expect(TextWidth.of("🎉") == 2)
        #expect(TextWidth.of("a中b") == 4)
    }

    @Test func variationSelector16AndCombiningMarksAddNothing() {
        #expect(TextWidth.of("⚡️") == 2)            // U+26A1 U+FE0F
        #expect(TextWidth.of("⚡") == 2)
        #expect(TextWidth.of("Cafe\u{301}") == 4)   // e + COMBINING ACUTE
        #expect(TextWidth.of("Caf\u{E9}") == 4)
    }

    @Test func controlCharactersCountAsTheirReplacement() {
        #expect(TextWidth.of("a\u{1B}b") == 3)
        #expect(TextWidth.of("\u{9B}") == 1)
    }

    @Test func truncateCutsWithEllipsis() {
        #expect(TextWidth.truncate("Hello, world", to: 8) == "Hello, …")
        #expect(TextWidth.truncate("Hello", to: 5) == "Hello")
        #expect(TextWidth.truncate("Hello", to: 0) == "")
        #expect(TextWidth.truncate("Hello", to: 1) == "…")
    }

    @Test func truncateNeverSplitsWideCharacters() {
        #expect(TextWidth.truncate("中文字", to: 5) == "中文…")
        #expect(TextWidth.truncate("中文字", to: 4) == "中…")
        #expect(TextWidth.of(TextWidth.truncate("中文字", to: 4)) == 3)
        #expect(TextWidth.truncate("⚡️⚡️⚡️", to: 4) == "⚡️…")
    }

    @Test func padFillsToExactWidth() {
        #expect(TextWidth.pad("中", to: 4) == "中  ")
        #expect(TextWidth.pad("7", to: 3, alignRight: true) == "  7")
        #expect(TextWidth.pad("abcdef", to: 4) == "abc…")
    }
}
