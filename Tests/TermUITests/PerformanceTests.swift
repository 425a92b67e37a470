import Testing
@testable import TermUI

/// A typical 100×30 frame (tabs, a virtualized list of a million rows with mixed styles and
/// CJK, a progress bar per row, a status bar) must stay far below the 1 ms frame budget.
/// Debug builds are several times slower than release, hence the generous bound here.
@Suite struct PerformanceTests {
    @Test func aFullFrameIsCheap() {
        var buffer = CellBuffer(width: 100, height: 30)
        var previous = buffer
        var state = ListState()
        let clock = ContinuousClock()
        var timings: [Duration] = []
        for frame in 0..<200 {
            let elapsed = clock.measure {
                buffer.clear()
                let (top, rest) = buffer.area.splitVertically(topHeight: 1)
                let (body, status) = rest.splitVertically(topHeight: rest.height - 1)
                TabBar(titles: ["1 Goals", "2 Activity", "3 Round-ups", "4 Achievements"], selected: 1)
                    .draw(into: &buffer, rect: top)
                state.moveBy(1, count: 1_000_000)
                ListView().draw(into: &buffer, rect: body, count: 1_000_000, state: &state) { buffer, index, rect, _ in
                    let used = buffer.write([Span("2024-05-\(index % 28 + 1) "), Span("Saved ", .plain),
                                             Span("$\(index).00", .bold), Span(" into 東京 trip ⚡️")],
                                            x: rect.x, y: rect.y, maxWidth: 60)
                    ProgressBar(fraction: Double(index % 150) / 100)
                        .draw(into: &buffer, x: rect.x + used + 1, y: rect.y, width: rect.width - used - 1)
                }
                StatusBar(left: [Span("demo")], center: [Span("frame \(frame)")], right: [Span("? help")])
                    .draw(into: &buffer, rect: status)
                _ = buffer.changedCells(since: previous)
                previous = buffer
            }
            timings.append(elapsed)
        }
        timings.sort()
        let p99 = timings[timings.count * 99 / 100]
        #expect(p99 < .milliseconds(20), "p99 \(p99)")
        #expect(buffer.rowText(0).hasPrefix(" 1 Goals "))
    }
}
