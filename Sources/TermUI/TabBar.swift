/// A row of tab titles with the selected one highlighted. Where the titles do not all fit, the
/// tabs show their numbers alone ("1 Goals" → "1"), the selected one its title where that fits.
public struct TabBar: Sendable {
    public var titles: [String]
    public var selected: Int
    public var style = Style.plain
    public var selectedStyle = Style(fg: .role(.accent), attributes: [.bold, .reverse])

    public init(titles: [String], selected: Int) {
        self.titles = titles
        self.selected = selected
    }

    /// The labels drawn in `width` cells: " label " each, one space between.
    public func labels(width: Int) -> [String] { layout(width: width).labels }

    /// The labels and the spaces between them: one, or none where even the numbers with one
    /// would not fit (six tabs in 20 columns: " 1  2  3  4  5  6 ").
    func layout(width: Int) -> (labels: [String], gap: Int) {
        if Self.width(of: titles) <= width { return (titles, 1) }
        // The number: what comes before the first space ("1 Goals" → "1").
        var short = titles.map { String($0.prefix { $0 != " " }) }
        if titles.indices.contains(selected) {
            var withTitle = short
            withTitle[selected] = titles[selected]
            if Self.width(of: withTitle) <= width { short = withTitle }
        }
        return (short, Self.width(of: short) <= width ? 1 : 0)
    }

    private static func width(of labels: [String], gap: Int = 1) -> Int {
        labels.reduce(0) { $0 + TextWidth.of($1) + 2 } + gap * max(0, labels.count - 1)
    }

    public func draw(into buffer: inout CellBuffer, rect: Rect) {
        guard !rect.isEmpty else { return }
        buffer.fill(rect.row(0), style: style)
        var spans: [Span] = []
        let (labels, gap) = layout(width: rect.width)
        for (i, title) in labels.enumerated() {
            if i > 0, gap > 0 { spans.append(Span(" ", style)) }
            spans.append(Span(" \(title) ", i == selected ? selectedStyle : style))
        }
        buffer.write(spans, x: rect.x, y: rect.y, maxWidth: rect.width)
    }

    /// The tab drawn at column `x` of a bar `width` cells wide drawn from `left` (a click's tab),
    /// as `draw` lays them out: " label " each, one space between.
    public func index(atX x: Int, left: Int = 0, width: Int = .max) -> Int? {
        var start = left
        let (labels, gap) = layout(width: width)
        for (index, label) in labels.enumerated() {
            let cells = TextWidth.of(label) + 2
            if x >= start && x < start + cells { return index }
            start += cells + gap
        }
        return nil
    }
}
