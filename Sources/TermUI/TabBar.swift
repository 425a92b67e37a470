/// A row of tab titles with the selected one highlighted.
public struct TabBar: Sendable {
    public var titles: [String]
    public var selected: Int
    public var style = Style.plain
    public var selectedStyle = Style(fg: .role(.accent), attributes: [.bold, .reverse])

    public init(titles: [String], selected: Int) {
        self.titles = titles
        self.selected = selected
    }

    public func draw(into buffer: inout CellBuffer, rect: Rect) {
        guard !rect.isEmpty else { return }
        buffer.fill(rect.row(0), style: style)
        var spans: [Span] = []
        for (i, title) in titles.enumerated() {
            if i > 0 { spans.append(Span(" ", style)) }
            spans.append(Span(" \(title) ", i == selected ? selectedStyle : style))
        }
        buffer.write(spans, x: rect.x, y: rect.y, maxWidth: rect.width)
    }

    /// The tab drawn at column `x` of a bar drawn from `left` (a click's tab), as `draw` lays
    /// them out: " title " each, one space between.
    public func index(atX x: Int, left: Int = 0) -> Int? {
        var start = left
        for (index, title) in titles.enumerated() {
            let width = TextWidth.of(title) + 2
            if x >= start && x < start + width { return index }
            start += width + 1
        }
        return nil
    }
}
