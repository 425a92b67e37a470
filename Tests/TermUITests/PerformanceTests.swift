import Testing
@testable import TermUI

/// What keeps a frame cheap, checked by counting rather than timing (the timings are
/// qapital-bench's job): a list of a million rows draws only the rows on screen.
@Suite struct VirtualizedDrawingTests {
    @Test func aMillionRowListDrawsOnlyTheVisibleRows() {
        var buffer = CellBuffer(width: 100, height: 30)
        var state = ListState()
        var drawn: [Int] = []
        for _ in 0..<500 {
            state.moveBy(1, count: 1_000_000)
            drawn = []
            let visible = ListView().draw(into: &buffer, rect: buffer.area, count: 1_000_000, state: &state) { buffer, index, rect, _ in
                drawn.append(index)
                buffer.write("row \(index) 東京 ⚡️", x: rect.x, y: rect.y, maxWidth: rect.width)
            }
            #expect(drawn == Array(visible))
            #expect(drawn.count <= 30)
        }
        #expect(state.selected == 500)
        #expect(buffer.rowText(29).hasSuffix("501 of 1000000"))
    }

    @Test func unchangedFramesHaveNoChangedCells() {
        var buffer = CellBuffer(width: 100, height: 30)
        buffer.write("hello 世界", x: 0, y: 0)
        let previous = buffer
        #expect(buffer.changedCells(since: previous) == [])
        buffer.write("j", x: 0, y: 1)
        #expect(buffer.changedCells(since: previous)?.count == 1)
    }
}
