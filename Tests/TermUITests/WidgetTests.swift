import Testing
@testable import TermUI

@Suite struct WidgetTests {
    func bar(_ fraction: Double, width: Int = 10, blocks: Bool = true) -> CellBuffer {
        var buffer = CellBuffer(width: width, height: 1)
        ProgressBar(fraction: fraction, usesBlocks: blocks).draw(into: &buffer, x: 0, y: 0, width: width)
        return buffer
    }

    @Test func progressBarWithEighthBlocks() {
        #expect(bar(0).lines == ["·····   0%"])
        #expect(bar(0.5).lines == ["██▌··  50%"])
        #expect(bar(1).lines == ["█████ 100%"])
        #expect(bar(0.999).lines == ["████▉  99%"])
        #expect(bar(0.1).lines == ["▌····  10%"])
        #expect(bar(0.075).lines == ["▍····   7%"])
    }

    @Test func progressBarOverOneHundredPercentIsFullAndMarked() {
        let over = bar(1.5)
        #expect(over.lines == ["█████ 150%"])
        #expect(over.style(atX: 0, y: 0).fg == .role(.moneyIn))
        #expect(over.style(atX: 9, y: 0).attributes.contains(.bold))
        #expect(!bar(1).style(atX: 9, y: 0).attributes.contains(.bold))
        #expect(bar(1).style(atX: 0, y: 0).fg == .role(.accent))
    }

    @Test func progressBarTextFallback() {
        #expect(bar(0, width: 14, blocks: false).lines == ["[-------]   0%"])
        #expect(bar(0.5, width: 14, blocks: false).lines == ["[###----]  50%"])
        #expect(bar(1, width: 14, blocks: false).lines == ["[#######] 100%"])
        #expect(bar(1.5, width: 14, blocks: false).lines == ["[#######] 150%"])
    }

    @Test func progressBarIgnoresNonsense() {
        #expect(bar(-1).lines == ["·····   0%"])
        #expect(bar(.nan).lines == ["·····   0%"])
    }

    @Test func tabBarHighlightsTheSelectedTab() {
        var buffer = CellBuffer(width: 40, height: 1)
        TabBar(titles: ["1 Goals", "2 Activity", "3 Round-ups"], selected: 1).draw(into: &buffer, rect: buffer.area)
        #expect(buffer.lines == [" 1 Goals   2 Activity   3 Round-ups     "])
        #expect(!buffer.style(atX: 1, y: 0).attributes.contains(.reverse))
        #expect(buffer.style(atX: 10, y: 0).attributes == [.bold, .reverse])
        #expect(buffer.style(atX: 21, y: 0).attributes == [.bold, .reverse])
        #expect(!buffer.style(atX: 22, y: 0).attributes.contains(.reverse))
    }

    /// A click finds the tab drawn under it, wide characters counted as the bar draws them.
    @Test func tabBarFindsTheTabAtAColumn() {
        let bar = TabBar(titles: ["1 Goals", "2 資料", "3 Round-ups"], selected: 0)
        var buffer = CellBuffer(width: 40, height: 1)
        bar.draw(into: &buffer, rect: buffer.area)
        let line = buffer.lines[0]
        for x in 0..<40 {
            let expected: Int? = switch x {
            case 0..<9: 0          // " 1 Goals "
            case 10..<18: 1        // " 2 資料 " (each CJK character two cells)
            case 19..<32: 2        // " 3 Round-ups "
            default: nil           // the gaps and past the end
            }
            #expect(bar.index(atX: x) == expected, "column \(x) of \(line)")
        }
        #expect(bar.index(atX: 12, left: 10) == 0)
    }

    @Test func statusBarSegments() {
        let bar = StatusBar(left: [Span("Demo")], center: [Span("loading")], right: [Span("? help", .bold)])
        var wide = CellBuffer(width: 30, height: 1)
        bar.draw(into: &wide, rect: wide.area)
        #expect(wide.lines == ["Demo       loading      ? help"])
        #expect(wide.style(atX: 24, y: 0).attributes == [.reverse, .bold])
        #expect(wide.style(atX: 5, y: 0).attributes == .reverse)

        // Narrow: the centre gives way, the right keeps its place.
        var narrow = CellBuffer(width: 14, height: 1)
        bar.draw(into: &narrow, rect: narrow.area)
        #expect(narrow.lines == ["Demo    ? help"])

        var tiny = CellBuffer(width: 10, height: 1)
        StatusBar(left: [Span("Demo data source")], right: [Span("? help")]).draw(into: &tiny, rect: tiny.area)
        #expect(tiny.lines == ["De… ? help"])

        // A centre too long for its room is cut with … rather than left out.
        var error = CellBuffer(width: 40, height: 1)
        StatusBar(left: [Span("demo")], center: [Span("✗ GET /savingsgoals: malformed JSON (savingsGoals[2].currentBalance)")],
                  right: [Span("? help")]).draw(into: &error, rect: error.area)
        #expect(error.lines == ["demo ✗ GET /savingsgoals: malfor… ? help"])

        // A left part as long as the bar (a header and a source's note) leaves the centre room:
        // it keeps 20 columns, the message gets the rest.
        var crowded = CellBuffer(width: 60, height: 1)
        StatusBar(left: [Span(String(repeating: "header ", count: 12))], center: [Span("SimpleFIN is read-only")],
                  right: [Span("? help")]).draw(into: &crowded, rect: crowded.area)
        #expect(crowded.lines[0].contains("SimpleFIN is read-only"))
        #expect(crowded.lines[0].hasPrefix("header header header"))
    }

    @Test func spinnerWaitsForTheDelay() {
        let spinner = Spinner(startedAt: ContinuousClock.now)
        #expect(spinner.frame(elapsed: .milliseconds(0)) == nil)
        #expect(spinner.frame(elapsed: .milliseconds(999)) == nil)
        #expect(spinner.frame(elapsed: .seconds(1)) == "⠋")
        #expect(spinner.frame(elapsed: .milliseconds(1250)) == "⠹")
        #expect(spinner.frame(elapsed: .milliseconds(2000)) == "⠋")
        #expect(spinner.frame(at: spinner.startedAt.advanced(by: .milliseconds(1100))) == "⠙")
        let ascii = Spinner(startedAt: .now, delay: .zero, frames: Spinner.asciiFrames)
        #expect(ascii.frame(elapsed: .milliseconds(300)) == "\\")
    }

    @Test func modalIsCentred() {
        var buffer = CellBuffer(width: 20, height: 7)
        buffer.fill(buffer.area, with: ".")
        let box = Modal(title: "Quit?", text: ["Really quit?"]).draw(into: &buffer, in: buffer.area)
        #expect(box == Rect(x: 2, y: 2, width: 16, height: 3))
        #expect(buffer.lines == [
            "....................",
            "....................",
            "..┌─ Quit? ──────┐..",
            "..│ Really quit? │..",
            "..└──────────────┘..",
            "....................",
            "....................",
        ])
    }

    @Test func modalShrinksToASmallScreen() {
        var buffer = CellBuffer(width: 10, height: 4)
        let box = Modal(title: "T", text: ["a long line of text", "2", "3", "4"]).draw(into: &buffer, in: buffer.area)
        #expect(box == Rect(x: 0, y: 0, width: 10, height: 4))
        // Lines 3 and 4 do not fit: the bottom edge says so (cut to the width there is).
        #expect(buffer.lines == ["┌─ T ────┐", "│ a lon… │", "│ 2      │", "└─ 1–2/…─┘"])
    }

    @Test func aTallModalSaysWhereItIsAndHowToScroll() {
        var buffer = CellBuffer(width: 50, height: 5)
        var modal = Modal(title: "Keys", text: (1...10).map { "line \($0)" }, footer: "Esc to close")
        modal.scroll = 4
        modal.draw(into: &buffer, in: buffer.area)
        #expect(buffer.rowText(1).contains("line 5"))
        #expect(buffer.rowText(4).contains(" 5–7 of 10 · j k scroll · Esc to close "))
    }

    /// A box too narrow for its footer says the short one whole rather than the long one cut.
    @Test func aNarrowModalKeepsItsKeysInTheShortFooter() {
        func bottom(width: Int, lines: Int, height: Int) -> String {
            var buffer = CellBuffer(width: width, height: height)
            var modal = Modal(title: "Activity", text: (1...lines).map { "line \($0)" }, footer: "Enter opens Emergency fund · Esc closes")
            modal.shortFooter = "↵ Emergency fund · Esc"
            let box = modal.draw(into: &buffer, in: buffer.area)
            return buffer.rowText(box.maxY - 1)
        }
        #expect(bottom(width: 60, lines: 3, height: 10).contains(" Enter opens Emergency fund · Esc closes "))
        #expect(bottom(width: 80, lines: 20, height: 8).contains(" 1–6 of 20 · j k scroll · Enter opens Emergency fund · Esc closes "))
        #expect(bottom(width: 30, lines: 3, height: 10).contains(" ↵ Emergency fund · Esc "))
        // Taller than the screen: the position leads while it fits, then a compact one.
        #expect(bottom(width: 60, lines: 20, height: 8).contains(" 1–6 of 20 · j k scroll · ↵ Emergency fund · Esc "))
        #expect(bottom(width: 38, lines: 20, height: 8).contains(" 1–6/20 · ↵ Emergency fund · Esc "))
        #expect(bottom(width: 28, lines: 20, height: 8).contains(" ↵ Emergency fund · Esc "))
    }

    @Test func rectSplits() {
        let r = Rect(x: 0, y: 0, width: 100, height: 30)
        let (left, right) = r.splitHorizontally(leftWidth: 40, gap: 1)
        #expect(left == Rect(x: 0, y: 0, width: 40, height: 30))
        #expect(right == Rect(x: 41, y: 0, width: 59, height: 30))
        let (top, rest) = r.splitVertically(topHeight: 1)
        #expect(top.height == 1 && rest == Rect(x: 0, y: 1, width: 100, height: 29))
        #expect(r.inset(1) == Rect(x: 1, y: 1, width: 98, height: 28))
        #expect(r.bottom(1) == Rect(x: 0, y: 29, width: 100, height: 1))
        #expect(r.rows.count == 30 && r.rows[3] == Rect(x: 0, y: 3, width: 100, height: 1))
        #expect(r.splitHorizontally(leftWidth: 500).right.width == 0)
        #expect(Rect(x: 0, y: 0, width: 3, height: 3).inset(2).isEmpty)
    }
}

@Suite struct ProgressBarLimitTests {
    @Test func anAbsurdFractionDrawsWithoutOverflow() {
        let bar = ProgressBar(fraction: 1e17)
        #expect(bar.percent == 999_999)
        #expect(bar.isOver)
        var buffer = CellBuffer(width: 20, height: 1)
        bar.draw(into: &buffer, x: 0, y: 0, width: 20)
        #expect(buffer.rowText(0).hasPrefix("███"))
    }
}
