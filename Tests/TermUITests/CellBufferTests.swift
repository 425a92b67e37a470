import Testing
@testable import TermUI

@Suite struct CellBufferTests {
    @Test func writeClipsAtTheEdgeWithEllipsis() {
        var buffer = CellBuffer(width: 10, height: 2)
        let used = buffer.write("Hello, world", x: 0, y: 0)
        buffer.write("Hi", x: 0, y: 1)
        #expect(used == 10)
        #expect(buffer.lines == ["Hello, wo…", "Hi        "])
    }

    @Test func writeClipsAtMaxWidthInsideABorder() {
        var buffer = CellBuffer(width: 12, height: 1)
        buffer.write("│", x: 0, y: 0)
        buffer.write("│", x: 11, y: 0)
        let used = buffer.write("Hello, world", x: 1, y: 0, maxWidth: 10)
        #expect(used == 10)
        #expect(buffer.lines == ["│Hello, wo…│"])
    }

    @Test func textThatFitsReturnsItsWidth() {
        var buffer = CellBuffer(width: 10, height: 1)
        #expect(buffer.write("中文", x: 1, y: 0) == 4)
        #expect(buffer.lines == [" 中文     "])
    }

    @Test func outOfBoundsWritesNothing() {
        var buffer = CellBuffer(width: 4, height: 1)
        #expect(buffer.write("x", x: 4, y: 0) == 0)
        #expect(buffer.write("x", x: 0, y: 1) == 0)
        #expect(buffer.write("x", x: -1, y: 0) == 0)
        #expect(buffer.lines == ["    "])
    }

    @Test func cjkAndEmojiKeepColumnsAligned() {
        var buffer = CellBuffer(width: 9, height: 5)
        let names = ["Trip", "中文名字", "⚡️ Fast", "Cafe\u{301}", "🎉🎉🎉🎉🎉"]
        for (y, name) in names.enumerated() {
            buffer.write(name, x: 0, y: y, maxWidth: 6)
            buffer.write("│7", x: 6, y: y)
        }
        #expect(buffer.lines == [
            "Trip  │7 ",
            "中文… │7 ",
            "⚡️ Fa…│7 ",
            "Cafe\u{301}  │7 ",
            "🎉🎉… │7 ",
        ])
        for y in 0..<5 { #expect(buffer[6, y].text == "│", "row \(y)") }
    }

    @Test func variationSelectorStaysWithItsCharacter() {
        var buffer = CellBuffer(width: 4, height: 1)
        buffer.write("⚡️!", x: 0, y: 0)
        #expect(buffer[0, 0].text == "⚡️")
        #expect(buffer[0, 0].width == 2)
        #expect(buffer[1, 0].isContinuation)
        #expect(buffer[2, 0].text == "!")
    }

    @Test func combiningMarkJoinsThePreviousCell() {
        var buffer = CellBuffer(width: 5, height: 1)
        buffer.write("e\u{301}\u{323}x", x: 0, y: 0)
        #expect(buffer[0, 0].text == "e\u{301}\u{323}")
        #expect(buffer[1, 0].text == "x")
    }

    @Test func wideCharacterAtTheRightEdgeIsNeverSplit() {
        var buffer = CellBuffer(width: 4, height: 2)
        buffer.write("ab中d", x: 0, y: 0)
        buffer.write("abc中", x: 0, y: 1)
        // 中 would straddle the edge: the text is cut and the cell it would have used is a space.
        #expect(buffer.lines == ["ab… ", "abc…"])
        #expect(!buffer[3, 0].isContinuation)
    }

    @Test func wideCharacterFillingTheLastTwoColumnsFits() {
        var buffer = CellBuffer(width: 5, height: 1)
        buffer.write("abc中", x: 0, y: 0)
        #expect(buffer.lines == ["abc中"])
        #expect(buffer[4, 0].isContinuation)
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var buffer = CellBuffer(width: 6, height: 2)
        buffer.write("中文", x: 0, y: 0)
        buffer.write("x", x: 1, y: 0)
        buffer.write("中文", x: 0, y: 1)
        buffer.write("y", x: 2, y: 1)
        #expect(buffer.lines == [" x文  ", "中y   "])
    }

    @Test func spansKeepTheirStyles() {
        var buffer = CellBuffer(width: 20, height: 1)
        buffer.write([Span("Saved "), Span("$5.00", .bold), Span(" to Trip")], x: 0, y: 0)
        #expect(buffer.lines == ["Saved $5.00 to Trip "])
        #expect(buffer.style(atX: 5, y: 0) == .plain)
        #expect(buffer.style(atX: 6, y: 0) == .bold)
        #expect(buffer.style(atX: 10, y: 0) == .bold)
        #expect(buffer.style(atX: 11, y: 0) == .plain)
    }

    @Test func spansAreCutWithEllipsisInTheStyleWhereTheyEnd() {
        var buffer = CellBuffer(width: 12, height: 1)
        let used = buffer.write([Span("Saved "), Span("$5.00", .bold), Span(" to Trip")], x: 0, y: 0, maxWidth: 10)
        #expect(used == 10)
        #expect(buffer.lines == ["Saved $5.…  "])
        #expect(buffer.style(atX: 9, y: 0) == .bold)
    }

    @Test func controlCharactersAreReplaced() {
        var buffer = CellBuffer(width: 8, height: 1)
        buffer.write("a\u{1B}[2Jb", x: 0, y: 0)
        #expect(buffer.lines == ["a\u{FFFD}[2Jb  "])
    }

    @Test func fillPatchAndClear() {
        var buffer = CellBuffer(width: 4, height: 2)
        buffer.write("ab", x: 0, y: 0, style: Style(fg: .role(.moneyIn)))
        buffer.fill(Rect(x: 2, y: 0, width: 5, height: 5), style: .reverse)
        buffer.patch(Rect(x: 0, y: 0, width: 1, height: 1), with: .bold)
        #expect(buffer.style(atX: 0, y: 0) == Style(fg: .role(.moneyIn), attributes: .bold))
        #expect(buffer.style(atX: 3, y: 1) == .reverse)
        #expect(buffer.style(atX: 1, y: 1) == .plain)
        buffer.clear()
        #expect(buffer == CellBuffer(width: 4, height: 2))
    }

    @Test func rightAlignedText() {
        var buffer = CellBuffer(width: 10, height: 1)
        let x = buffer.writeRightAligned("中 12", maxX: 10, y: 0)
        #expect(x == 5)
        #expect(buffer.lines == ["     中 12"])
    }

    @Test func changedCellsListsOnlyDifferences() {
        let a = CellBuffer(width: 5, height: 2)
        var b = a
        b.write("x", x: 1, y: 1)
        #expect(b.changedCells(since: a) == [6])
        #expect(a.changedCells(since: a) == [])
        #expect(b.changedCells(since: CellBuffer(width: 4, height: 2)) == nil)
    }
}
