/// A line chart in braille dots (2×4 dots a cell): values evenly spaced from left to right,
/// amount labels on the left at the rows of their values, date labels under the plot (first
/// at the left, last at the right, the others evenly between), and an optional horizontal
/// target line drawn dashed (`╌`), so it stays distinct without colours.
///
/// It knows nothing of money: values are integers (minor units), labels are strings passed in.
/// The vertical range covers the values, the labels' values and the target. It never draws
/// outside its rect; a rect smaller than `minimumSize` gets nothing (`draw` returns false).
public struct LineChart: Sendable {
    public struct Label: Hashable, Sendable {
        public var value: Int64
        public var text: String
        public init(value: Int64, text: String) {
            self.value = value
            self.text = text
        }
    }

    public var values: [Int64]
    public var yLabels: [Label]
    public var xLabels: [String]
    public var target: Int64?
    public var lineStyle = Style(fg: .role(.accent))
    public var targetStyle = Style(fg: .role(.warning))
    public var axisStyle = Style(fg: .role(.border))
    public var labelStyle = Style(fg: .role(.muted))

    /// The smallest plot: columns and rows of cells (besides the labels).
    public static let minimumPlot = (width: 8, height: 3)

    public init(values: [Int64], yLabels: [Label] = [], xLabels: [String] = [], target: Int64? = nil) {
        self.values = values
        self.yLabels = yLabels
        self.xLabels = xLabels
        self.target = target
    }

    /// Columns taken by the labels and the axis at the left.
    public var gutterWidth: Int { (yLabels.map { TextWidth.of($0.text) }.max() ?? 0) + 1 }

    /// The smallest rect the chart draws in: the gutter, the plot, and the row of date labels.
    public var minimumSize: (width: Int, height: Int) {
        (gutterWidth + Self.minimumPlot.width, Self.minimumPlot.height + (xLabels.isEmpty ? 0 : 1))
    }

    public func fits(_ rect: Rect) -> Bool {
        rect.width >= minimumSize.width && rect.height >= minimumSize.height && !values.isEmpty
    }

    /// The plot's cells in `rect` (without gutter and date labels).
    public func plotRect(in rect: Rect) -> Rect {
        Rect(x: rect.x + gutterWidth, y: rect.y, width: rect.width - gutterWidth, height: rect.height - (xLabels.isEmpty ? 0 : 1))
    }

    /// How many values make one per column of dots in `rect` (what to sample for a sharp line).
    public func dotColumns(in rect: Rect) -> Int { plotRect(in: rect).width * 2 }

    /// Draws into `rect`; false (and nothing drawn) when it does not fit.
    @discardableResult
    public func draw(into buffer: inout CellBuffer, rect: Rect) -> Bool {
        guard fits(rect) else { return false }
        let plot = plotRect(in: rect)
        let scale = ChartScale(covering: values + yLabels.map(\.value) + (target.map { [$0] } ?? []))!
        let dotRows = plot.height * 4
        /// The cell row and dot row (0 top … 3) of a value.
        func position(_ value: Int64) -> (row: Int, dot: Int) {
            let fromTop = dotRows - 1 - scale.level(value, steps: dotRows)
            return (fromTop / 4, fromTop % 4)
        }

        // Gutter: the axis, and the labels right-aligned at their rows.
        let gutter = gutterWidth
        for row in 0..<plot.height {
            buffer.write("│", x: plot.x - 1, y: plot.y + row, style: axisStyle)
        }
        for label in yLabels {
            let row = position(label.value).row
            buffer.writeRightAligned(label.text, maxX: plot.x - 1, y: plot.y + row, maxWidth: gutter - 1, style: labelStyle)
            buffer.write("┤", x: plot.x - 1, y: plot.y + row, style: axisStyle)
        }

        // The target line, under the data.
        if let target {
            let row = position(target).row
            buffer.write(String(repeating: "╌", count: plot.width), x: plot.x, y: plot.y + row, style: targetStyle)
        }

        // The data: for each dot column, the dots between the previous value and this one.
        let columns = plot.width * 2
        var dots = [UInt8](repeating: 0, count: plot.width * plot.height)
        let bits: [[UInt8]] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]]
        var previous: Int?
        for column in 0..<columns {
            let index = values.count == 1 ? 0 : (column * (values.count - 1) + (columns - 1) / 2) / max(1, columns - 1)
            let level = dotRows - 1 - scale.level(values[min(index, values.count - 1)], steps: dotRows)
            let from = min(previous ?? level, level), to = max(previous ?? level, level)
            // A single value is one dot at the left edge, not a line.
            if values.count == 1 && column > 0 { break }
            for dotRow in from...to {
                dots[(dotRow / 4) * plot.width + column / 2] |= bits[column % 2][dotRow % 4]
            }
            previous = level
        }
        for row in 0..<plot.height {
            for column in 0..<plot.width where dots[row * plot.width + column] != 0 {
                let scalar = Unicode.Scalar(0x2800 + UInt32(dots[row * plot.width + column]))!
                buffer.write(String(Character(scalar)), x: plot.x + column, y: plot.y + row, style: lineStyle)
            }
        }

        if !xLabels.isEmpty {
            Self.drawSpread(xLabels, into: &buffer, x: plot.x, y: plot.maxY, width: plot.width, style: labelStyle)
        }
        return true
    }

    /// Labels along a row: the first at the left, the last ending at the right, the others
    /// centred at even steps between; a label that would touch one already placed is left out
    /// (the first and the last are placed first).
    /// `reserved` (columns from `x`) is kept free for something else.
    static func drawSpread(_ labels: [String], into buffer: inout CellBuffer, x: Int, y: Int, width: Int, style: Style,
                           reserved: Range<Int>? = nil) {
        guard width > 0 else { return }
        var taken = [Bool](repeating: false, count: width)
        for column in reserved ?? 0..<0 where column >= 0 && column < width { taken[column] = true }
        let order = labels.count <= 2 ? Array(labels.indices) : [0, labels.count - 1] + Array(1..<(labels.count - 1))
        for index in order {
            let label = labels[index]
            let labelWidth = TextWidth.of(label)
            guard labelWidth <= width else { continue }
            let anchor = labels.count == 1 ? 0 : index * (width - 1) / (labels.count - 1)
            var start: Int
            if index == 0 { start = 0 } else if index == labels.count - 1 { start = width - labelWidth } else { start = anchor - labelWidth / 2 }
            start = min(max(0, start), width - labelWidth)
            // One free cell on each side.
            let around = max(0, start - 1)..<min(width, start + labelWidth + 1)
            guard !around.contains(where: { taken[$0] }) else { continue }
            buffer.write(label, x: x + start, y: y, maxWidth: labelWidth, style: style)
            for column in start..<(start + labelWidth) { taken[column] = true }
        }
    }
}
