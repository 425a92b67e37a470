import Foundation
import Testing
@testable import TermUI

/// The Activity feed's frames through the writer the real terminal uses (`ScreenWriter`), as
/// `qapital-bench bytes` measures them in a pty: a `j` at the bottom of the screen scrolls the
/// terminal and writes about one new row, a `j` inside the screen only the two selection
/// blocks and the counter (issue 25; the bench's figures are in docs/performance.md).
@MainActor
@Suite struct ScrollBytesTests {
    @Test func aStepOfTheActivityFeedScrollsTheTerminalAndWritesAboutOneRow() async {
        let app = AppHarness(colors: true)
        _ = await app.start()
        _ = await app.press(.char("2"))
        var writer = ScreenWriter(features: .init(colors: 256, backColorErase: true), theme: .terminal)
        _ = writer.frame(app.terminal.screen)

        // Inside the screen: the old block, the new block, the counter.
        await app.press(.char("j"))
        let inside = writer.frame(app.terminal.screen)
        #expect(inside.count < 100, "\(String(decoding: inside, as: UTF8.self).debugDescription)")

        // To the bottom, then steps that scroll. A step writes the scroll, the thumb's ends, the
        // old block, the new row (two across a day) and the counter: far less than the screen.
        for _ in 0..<30 {
            await app.press(.char("j"))
            _ = writer.frame(app.terminal.screen)
        }
        var scrolled = 0, total = 0
        for _ in 0..<20 {
            await app.press(.char("j"))
            let bytes = writer.frame(app.terminal.screen)
            let text = String(decoding: bytes, as: UTF8.self)
            if text.contains(try! Regex("\u{1B}\\[\\d+;\\d+r")) { scrolled += 1 }
            total += bytes.count
        }
        #expect(scrolled == 20)
        // One row of the feed is about 100 cells; the whole screen about 3,000.
        #expect(total / 20 < 300)
    }
}
