import Testing
@testable import TermUI

@Suite struct TextInputTests {
    func typed(_ text: String) -> TextInput {
        var input = TextInput()
        for c in text { _ = input.handle(.char(c)) }
        return input
    }

    @Test func insertsAtTheCursor() {
        var input = typed("abc")
        #expect(input.handle(.left) == .moved)
        #expect(input.handle(.left) == .moved)
        #expect(input.handle(.char("X")) == .edited)
        #expect(input.text == "aXbc")
        #expect(input.cursor == 2)
    }

    @Test func backspaceDeleteHomeEnd() {
        var input = typed("héllo")
        #expect(input.handle(.backspace) == .edited)
        #expect(input.text == "héll")
        #expect(input.handle(.home) == .moved)
        #expect(input.handle(.backspace) == .moved)   // nothing before the cursor
        #expect(input.handle(.delete) == .edited)
        #expect(input.text == "éll")
        #expect(input.handle(.end) == .moved)
        #expect(input.cursor == 3)
        #expect(input.handle(.right) == .moved)
        #expect(input.cursor == 3)
        #expect(input.handle(.ctrl("u")) == .edited)
        #expect(input.text == "")
    }

    @Test func emojiIsOneStep() {
        var input = typed("a⚡️b")
        _ = input.handle(.left)
        _ = input.handle(.backspace)
        #expect(input.text == "ab")
    }

    @Test func submitCancelIgnore() {
        var input = typed("trip")
        #expect(input.handle(.enter) == .submitted)
        #expect(input.handle(.escape) == .cancelled)
        #expect(input.handle(.pageDown) == .ignored)
        #expect(input.text == "trip")
    }

    @Test func drawsWithCursorAndScrollsToKeepItVisible() {
        var buffer = CellBuffer(width: 6, height: 2)
        var input = typed("ab")
        input.draw(into: &buffer, x: 0, y: 0, width: 6)
        #expect(buffer.rowText(0) == "ab    ")
        #expect(buffer.style(atX: 2, y: 0).attributes == .reverse)   // the cursor after the text
        #expect(buffer.style(atX: 1, y: 0) == .plain)

        input = typed("abcdefgh")
        input.draw(into: &buffer, x: 0, y: 1, width: 6)
        #expect(buffer.rowText(1) == "defgh ")
        _ = input.handle(.home)
        input.draw(into: &buffer, x: 0, y: 1, width: 6)
        #expect(buffer.rowText(1) == "abcdef")
        #expect(buffer.style(atX: 0, y: 1).attributes == .reverse)
    }
}
