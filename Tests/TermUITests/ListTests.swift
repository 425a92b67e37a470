import Testing
@testable import TermUI

@Suite struct ListTests {
    /// Draws `count` rows "Item i" into a width×height buffer; returns lines and the rows drawn.
    func render(count: Int, state: inout ListState, width: Int = 12, height: Int = 5) -> (lines: [String], drawn: [Int], range: Range<Int>, buffer: CellBuffer) {
        var buffer = CellBuffer(width: width, height: height)
        var drawn: [Int] = []
        let range = ListView().draw(into: &buffer, rect: buffer.area, count: count, state: &state) { buffer, index, rect, _ in
            drawn.append(index)
            buffer.write("Item \(index)", x: rect.x, y: rect.y, maxWidth: rect.width)
        }
        return (buffer.lines, drawn, range, buffer)
    }

    @Test func atTheTop() {
        var state = ListState()
        let out = render(count: 20, state: &state)
        #expect(out.lines == [
            "Item 0     █",
            "Item 1     │",
            "Item 2     │",
            "Item 3     │",
            "     1 of 20",
        ])
        #expect(out.range == 0..<4)
        #expect(out.drawn == [0, 1, 2, 3])
        #expect(out.buffer.style(atX: 0, y: 0).attributes.contains(.reverse))
        #expect(out.buffer.style(atX: 10, y: 0).attributes.contains(.reverse))
        #expect(!out.buffer.style(atX: 0, y: 1).attributes.contains(.reverse))
    }

    @Test func inTheMiddleOnlyVisibleRowsAreDrawn() {
        var state = ListState()
        _ = render(count: 1_000_000, state: &state)
        state.moveBy(10, count: 1_000_000)
        let out = render(count: 1_000_000, state: &state, width: 16)
        #expect(state.offset == 7)
        #expect(out.drawn == [7, 8, 9, 10])
        #expect(out.lines == [
            "Item 7         █",
            "Item 8         │",
            "Item 9         │",
            "Item 10        │",
            "11 of 1000000",
        ].map { TextWidth.pad($0, to: 16, alignRight: $0.contains(" of ")) })
        #expect(out.buffer.style(atX: 0, y: 3).attributes.contains(.reverse))
    }

    @Test func scrollbarThumbMovesWithTheOffset() {
        var state = ListState()
        _ = render(count: 20, state: &state)
        state.moveBy(10, count: 20)
        let out = render(count: 20, state: &state)
        #expect(out.lines == [
            "Item 7     │",
            "Item 8     █",
            "Item 9     │",
            "Item 10    │",
            "    11 of 20",
        ])
    }

    @Test func atTheEnd() {
        var state = ListState()
        _ = render(count: 20, state: &state)
        state.bottom(count: 20)
        let out = render(count: 20, state: &state)
        #expect(out.lines == [
            "Item 16    │",
            "Item 17    │",
            "Item 18    │",
            "Item 19    █",
            "    20 of 20",
        ])
        #expect(out.range == 16..<20)
    }

    @Test func noScrollbarWhenEverythingFits() {
        var state = ListState()
        let out = render(count: 3, state: &state)
        #expect(out.lines == ["Item 0      ", "Item 1      ", "Item 2      ", "            ", "      1 of 3"])
    }

    @Test func emptyListDrawsNothing() {
        var state = ListState(selected: 5, offset: 3)
        let out = render(count: 0, state: &state)
        #expect(out.range == 0..<0)
        #expect(out.lines.allSatisfy { $0 == String(repeating: " ", count: 12) })
        #expect(state.selected == 0 && state.offset == 0 && state.visibleRows == 4)
    }

    @Test func offsetIsStableAcrossResizes() {
        var state = ListState()
        _ = render(count: 20, state: &state)
        state.moveBy(10, count: 20)
        _ = render(count: 20, state: &state)
        #expect(state.offset == 7)
        // Taller: the selection is still visible, so the view does not jump.
        let taller = render(count: 20, state: &state, height: 8)
        #expect(state.offset == 7)
        #expect(taller.lines.first == "Item 7     │")
        // Shorter than the selection's row: scroll just enough to keep it on screen.
        let shorter = render(count: 20, state: &state, height: 3)
        #expect(state.offset == 9)
        #expect(shorter.lines == ["Item 9     █", "Item 10    │", "    11 of 20"])
    }

    @Test func growingPastTheEndLeavesNoBlankRows() {
        var state = ListState()
        _ = render(count: 20, state: &state)
        state.bottom(count: 20)
        _ = render(count: 20, state: &state)
        let out = render(count: 20, state: &state, height: 11)
        #expect(state.offset == 10)
        #expect(out.lines.first == "Item 10    │")
        #expect(out.lines[9] == "Item 19    █")
    }

    @Test func appendingRowsKeepsSelectionAndOffset() {
        var state = ListState()
        _ = render(count: 20, state: &state)
        state.bottom(count: 20)
        _ = render(count: 20, state: &state)
        let out = render(count: 40, state: &state)
        #expect(state.selected == 19)
        #expect(state.offset == 16)
        #expect(out.lines == [
            "Item 16    │",
            "Item 17    █",
            "Item 18    │",
            "Item 19    │",
            "    20 of 40",
        ])
    }

    @Test func pagingMovesByAScreenAndClamps() {
        var state = ListState(visibleRows: 4)
        state.page(1, count: 10)
        #expect(state.selected == 4)
        #expect(state.offset == 4)
        state.page(1, count: 10)
        #expect(state.selected == 8)
        #expect(state.offset == 6)
        state.page(1, count: 10)
        #expect(state.selected == 9)
        state.page(-1, count: 10)
        #expect(state.selected == 5)
        #expect(state.offset == 2)
        state.top()
        #expect(state == ListState(selected: 0, offset: 0, visibleRows: 4))
        state.moveBy(-3, count: 10)
        #expect(state.selected == 0)
    }
}
