import Testing
@testable import TermUI

/// The charts drawn into a buffer at fixed sizes, compared cell by cell.
@Suite struct ChartTests {
    static let labels = [LineChart.Label(value: 0, text: "0"), LineChart.Label(value: 100, text: "1")]

    func line(_ values: [Int64], target: Int64? = nil, width: Int = 10, height: Int = 4, xLabels: [String] = ["a", "z"],
              yLabels: [LineChart.Label] = labels) -> (CellBuffer, Bool) {
        var buffer = CellBuffer(width: width, height: height)
        let drawn = LineChart(values: values, yLabels: yLabels, xLabels: xLabels, target: target).draw(into: &buffer, rect: buffer.area)
        return (buffer, drawn)
    }

    @Test func aFlatLine() {
        let (buffer, drawn) = line(Array(repeating: 50, count: 16))
        #expect(drawn)
        #expect(buffer.lines == [
            "1┤        ",
            " │⠒⠒⠒⠒⠒⠒⠒⠒",
            "0┤        ",
            "  a      z",
        ])
        #expect(buffer.style(atX: 2, y: 1).fg == .role(.accent))
        #expect(buffer.style(atX: 0, y: 0).fg == .role(.muted))
    }

    @Test func aRisingLine() {
        let (buffer, _) = line((0..<16).map { Int64($0) * 100 / 15 })
        #expect(buffer.lines == [
            "1┤     ⢀⡤⠞",
            " │  ⢀⣠⠞⠉  ",
            "0┤⣠⠴⠋     ",
            "  a      z",
        ])
    }

    @Test func aSinglePointIsOneDotAtTheLeft() {
        let (buffer, _) = line([100])
        #expect(buffer.lines == [
            "1┤⠁       ",
            " │        ",
            "0┤        ",
            "  a      z",
        ])
    }

    @Test func aTargetAboveTheLineIsDashedAtItsRow() {
        let (buffer, _) = line(Array(repeating: 0, count: 16), target: 100)
        #expect(buffer.lines == [
            "1┤╌╌╌╌╌╌╌╌",
            " │        ",
            "0┤⣀⣀⣀⣀⣀⣀⣀⣀",
            "  a      z",
        ])
        #expect(buffer.style(atX: 2, y: 0).fg == .role(.warning))
    }

    @Test func aTargetBelowTheLineWidensTheRangeDownwards() {
        let (buffer, _) = line(Array(repeating: 100, count: 16), target: -100)
        #expect(buffer.lines == [
            "1┤⠉⠉⠉⠉⠉⠉⠉⠉",
            "0┤        ",
            " │╌╌╌╌╌╌╌╌",
            "  a      z",
        ])
    }

    /// Two values over sixteen dot columns: each column takes the nearest value (a step).
    @Test func theLineDrawsOverTheTarget() {
        let (buffer, _) = line([0, 100], target: 50)
        #expect(buffer.lines == [
            "1┤    ⡏⠉⠉⠉",
            " │╌╌╌╌⡇╌╌╌",
            "0┤⣀⣀⣀⣀⡇   ",
            "  a      z",
        ])
    }

    @Test func tooSmallDrawsNothing() {
        for (width, height) in [(9, 4), (10, 3), (0, 0), (1, 1), (40, 2)] {
            let (buffer, drawn) = line([1, 2, 3], width: width, height: height)
            #expect(!drawn, "\(width)×\(height)")
            #expect(buffer.lines.allSatisfy { $0.allSatisfy { $0 == " " } }, "\(width)×\(height)")
        }
        let (_, noValues) = line([])
        #expect(!noValues)
    }

    @Test func neverDrawsOutsideItsRect() {
        var buffer = CellBuffer(width: 30, height: 10)
        buffer.fill(buffer.area, with: "x")
        let rect = Rect(x: 5, y: 2, width: 14, height: 5)
        LineChart(values: [0, 100, -50, 7_000_000_000_000_000_000, .min], yLabels: Self.labels + [.init(value: -999, text: "a long label")],
                  xLabels: ["one", "two", "three", "four"], target: 300).draw(into: &buffer, rect: rect)
        for y in 0..<10 {
            for x in 0..<30 where !rect.contains(x: x, y: y) {
                #expect(buffer[x, y].scalar == "x", "(\(x), \(y))")
            }
        }
    }

    @Test func dateLabelsThatWouldTouchAreLeftOut() {
        let (buffer, _) = line([0, 100], width: 12, xLabels: ["Jan", "Feb", "Mar", "Apr"])
        #expect(buffer.lines[3] == "  Jan    Apr")
        let (three, _) = line([0, 100], width: 20, xLabels: ["Jan", "Feb", "Mar"])
        #expect(three.lines[3] == "  Jan    Feb     Mar")
    }

    // MARK: - Sparkline

    func spark(_ values: [Int64], width: Int = 8, highlighted: Int? = nil) -> (CellBuffer, Bool) {
        var buffer = CellBuffer(width: width, height: 1)
        let drawn = Sparkline(values: values, highlighted: highlighted).draw(into: &buffer, rect: buffer.area)
        return (buffer, drawn)
    }

    @Test func sparklines() {
        #expect(spark([0, 1, 2, 3, 4, 5, 6, 7]).0.lines == ["▁▂▃▄▅▆▇█"])
        #expect(spark([0, 0, 0]).0.lines == ["     ▁▁▁"])
        #expect(spark([5, 5, 5]).0.lines == ["     ███"])
        #expect(spark([7]).0.lines == ["       █"])
        // More values than cells: the newest that fit.
        #expect(spark([700, 0, 100, 700], width: 3).0.lines == ["▁▂█"])
        // A negative week lowers the bottom.
        #expect(spark([-7, 0, 7], width: 3).0.lines == ["▁▅█"])
        #expect(!spark([1, 2], width: 1).1)
        #expect(!spark([], width: 8).1)
    }

    @Test func aHighlightedSparklineCellIsBoldAndUnderlined() {
        let (buffer, _) = spark([1, 2, 3], width: 3, highlighted: 1)
        #expect(buffer.style(atX: 1, y: 0).attributes.contains(.bold))
        #expect(buffer.style(atX: 1, y: 0).attributes.contains(.underline))
        #expect(!buffer.style(atX: 0, y: 0).attributes.contains(.bold))
        #expect(Theme.noColor.resolve(buffer.style(atX: 1, y: 0)) != Theme.noColor.resolve(buffer.style(atX: 0, y: 0)))
    }

    // MARK: - Bar chart

    func bars(_ values: [Int64], highlighted: Int? = nil, width: Int = 12, height: Int = 3) -> (CellBuffer, Bool) {
        var buffer = CellBuffer(width: width, height: height)
        let drawn = BarChart(values: values, highlighted: highlighted, topLabel: "$8", xLabels: ["a", "d"]).draw(into: &buffer, rect: buffer.area)
        return (buffer, drawn)
    }

    @Test func barsWithOneHighlighted() {
        let (buffer, drawn) = bars([16, 8, 0, 1], highlighted: 1)
        #expect(drawn)
        #expect(buffer.lines == [
            "$8│█        ",
            "  │█ █   ▁  ",
            "   a ▲   d  ",
        ])
        #expect(buffer.style(atX: 5, y: 1).fg == .role(.highlight))
        #expect(buffer.style(atX: 5, y: 1).attributes.contains(.bold))
        #expect(buffer.style(atX: 3, y: 1).fg == .role(.accent))
    }

    /// The highlighted bar's label stands beside its ▲ (right of it where it fits, else left),
    /// and an axis label that would touch it gives way: the marker and the words beside it name
    /// one bar, for every bar highlighted.
    @Test func theHighlightedBarsLabelStandsBesideItsMarker() {
        let labels = ["w1", "w2", "w3", "w4", "w5", "w6"]
        for highlighted in labels.indices {
            var chart = BarChart(values: [5, 6, 7, 8, 9, 10], highlighted: highlighted, topLabel: "$9", xLabels: ["w1", "w6"])
            chart.highlightLabel = labels[highlighted]
            var buffer = CellBuffer(width: 3 + 6 * 5 - 1, height: 4)
            #expect(chart.draw(into: &buffer, rect: buffer.area))
            let axis = buffer.lines[3]
            let beside = axis.contains("▲ " + labels[highlighted]) || axis.contains(labels[highlighted] + " ▲")
            #expect(beside, "bar \(highlighted + 1): \(axis)")
            // No other bar's label touches the marker.
            for (index, label) in labels.enumerated() where index != highlighted {
                #expect(!axis.contains("▲ " + label) && !axis.contains(label + " ▲"), "bar \(highlighted + 1): \(axis)")
            }
        }
        // The last bar: its label left of the marker, the axis' own last label left out.
        var chart = BarChart(values: [5, 6, 7, 8, 9, 10], highlighted: 5, topLabel: "$9", xLabels: ["w1", "w6"])
        chart.highlightLabel = "w6"
        var buffer = CellBuffer(width: 32, height: 4)
        chart.draw(into: &buffer, rect: buffer.area)
        #expect(buffer.lines[3] == "   w1                     w6 ▲  ")
    }

    @Test func barsTooSmallDrawNothing() {
        #expect(!bars([1, 2, 3, 4], width: 9).1)
        #expect(!bars([1, 2, 3, 4], height: 2).1)
        #expect(!bars([]).1)
        #expect(bars([0, 0], width: 6).0.lines == ["$8│   ", "  │   ", "   a d"])
    }
}
