/// A small bar chart: one vertical bar per value in eighth blocks, evenly spread, a label for
/// the top of the scale at the left, date labels under the bars (first at the left, last at
/// the right), and one highlighted bar: in `highlightStyle` and marked `▲` in the label row,
/// so it stands out without colours too. Values at or below zero draw no bar.
///
/// It never draws outside its rect; a rect smaller than `minimumSize` gets nothing.
public struct BarChart: Sendable {
    public var values: [Int64]
    public var highlighted: Int?
    /// Written at the top left (the largest value, as the caller formats it).
    public var topLabel: String
    public var xLabels: [String]
    /// The highlighted bar's own label, written beside its `▲` ("▲ 16 Nov", or "16 Nov ▲" where
    /// the right has no room); the other labels give way to it, so the marker and the label
    /// beside it always name the same bar.
    public var highlightLabel: String?
    public var barStyle = Style(fg: .role(.accent))
    public var highlightStyle = Style(fg: .role(.highlight), attributes: .bold)
    public var axisStyle = Style(fg: .role(.border))
    public var labelStyle = Style(fg: .role(.muted))

    static let eighths: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    public init(values: [Int64], highlighted: Int? = nil, topLabel: String = "", xLabels: [String] = []) {
        self.values = values
        self.highlighted = highlighted
        self.topLabel = topLabel
        self.xLabels = xLabels
    }

    public var gutterWidth: Int { TextWidth.of(topLabel) + 1 }

    /// The gutter, a cell per bar with a gap between, two rows of bars and the label row.
    public var minimumSize: (width: Int, height: Int) { (gutterWidth + max(1, 2 * values.count - 1), 3) }

    public func fits(_ rect: Rect) -> Bool {
        !values.isEmpty && rect.width >= minimumSize.width && rect.height >= minimumSize.height
    }

    /// Draws into `rect`; false (and nothing drawn) when it does not fit.
    @discardableResult
    public func draw(into buffer: inout CellBuffer, rect: Rect) -> Bool {
        guard fits(rect) else { return false }
        let plot = Rect(x: rect.x + gutterWidth, y: rect.y, width: rect.width - gutterWidth, height: rect.height - 1)
        let count = values.count
        // Bars as wide as fit with a one-cell gap, at most four cells.
        let barWidth = min(4, max(1, (plot.width + 1) / count - 1))
        let scale = ChartScale(low: 0, high: max(0, values.max() ?? 0))
        let steps = plot.height * 8

        buffer.write(topLabel, x: rect.x, y: rect.y, maxWidth: gutterWidth - 1, style: labelStyle)
        for row in 0..<plot.height { buffer.write("│", x: plot.x - 1, y: plot.y + row, style: axisStyle) }

        var marker: Int?
        for (index, value) in values.enumerated() {
            let x = plot.x + index * (barWidth + 1)
            let style = index == highlighted ? highlightStyle : barStyle
            let eighthsHigh = scale.levelUp(value, steps: steps)
            for row in 0..<plot.height {
                let fromBottom = plot.height - 1 - row
                let filled = min(8, max(0, eighthsHigh - fromBottom * 8))
                guard filled > 0 else { continue }
                buffer.write(String(repeating: String(Self.eighths[filled - 1]), count: barWidth), x: x, y: plot.y + row, style: style)
            }
            if index == highlighted { marker = x + (barWidth - 1) / 2 }
        }

        // The label row: the marker, and the labels that leave it free.
        let labelRow = plot.maxY
        let barsWidth = count * (barWidth + 1) - 1
        var reserved = marker.map { ($0 - plot.x)..<($0 - plot.x + 1) }
        if let marker {
            buffer.write("▲", x: marker, y: labelRow, style: highlightStyle)
            if let label = highlightLabel, !label.isEmpty {
                let width = TextWidth.of(label) + 1
                let column = marker - plot.x
                // Right of the marker where it fits in the bars' width, else left of it.
                if column + 1 + width <= barsWidth {
                    buffer.write(" " + label, x: marker + 1, y: labelRow, style: highlightStyle)
                    reserved = column..<(column + 1 + width)
                } else if column - width >= 0 {
                    buffer.write(label + " ", x: marker - width, y: labelRow, style: highlightStyle)
                    reserved = (column - width)..<(column + 1)
                }
            }
        }
        LineChart.drawSpread(xLabels, into: &buffer, x: plot.x, y: labelRow, width: barsWidth, style: labelStyle,
                             reserved: reserved)
        return true
    }
}
