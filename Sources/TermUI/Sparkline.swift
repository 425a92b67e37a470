/// A one-row chart of values in eighth blocks (`▁▂▃▄▅▆▇█`), one cell each, the newest at the
/// right; when there are more values than cells, the newest that fit. The lowest level is the
/// range's bottom (zero or the lowest value, whichever is lower), so an empty week reads `▁`.
/// One value may be highlighted (`highlightStyle`, bold, so it shows without colours too).
public struct Sparkline: Sendable {
    public var values: [Int64]
    public var highlighted: Int?
    public var style = Style(fg: .role(.accent))
    public var highlightStyle = Style(fg: .role(.highlight), attributes: [.bold, .underline])

    static let levels: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    public static let minimumWidth = 2

    public init(values: [Int64], highlighted: Int? = nil) {
        self.values = values
        self.highlighted = highlighted
    }

    /// The cells it takes at most.
    public var width: Int { values.count }

    public func fits(_ rect: Rect) -> Bool { rect.width >= Self.minimumWidth && rect.height >= 1 && !values.isEmpty }

    /// Draws on the first row of `rect`, right-aligned; false (nothing drawn) when it does not fit.
    @discardableResult
    public func draw(into buffer: inout CellBuffer, rect: Rect) -> Bool {
        guard fits(rect) else { return false }
        let shown = min(values.count, rect.width)
        let first = values.count - shown
        let scale = ChartScale(covering: values[first...] + [0])!
        let x = rect.maxX - shown
        for index in first..<values.count {
            let level = scale.isFlat ? 0 : scale.level(values[index], steps: Self.levels.count)
            let cellStyle = index == highlighted ? highlightStyle : style
            buffer.write(String(Self.levels[level]), x: x + index - first, y: rect.y, style: cellStyle)
        }
        return true
    }
}
