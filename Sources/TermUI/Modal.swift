/// A centred box with a title and lines, drawn over whatever is below (help, confirmations).
public struct Modal: Sendable {
    public var title: String
    public var lines: [[Span]]
    public var footer: String?
    /// First line shown, for content taller than the screen.
    public var scroll: Int = 0
    public var borderStyle = Style(fg: .role(.border))
    public var titleStyle = Style(fg: .role(.title), attributes: .bold)

    public init(title: String, lines: [[Span]], footer: String? = nil) {
        self.title = title
        self.lines = lines
        self.footer = footer
    }

    public init(title: String, text: [String], footer: String? = nil) {
        self.init(title: title, lines: text.map { [Span($0)] }, footer: footer)
    }

    /// The box, border included: as wide as the longest line plus a border and a space each
    /// side, as tall as the lines plus the border, shrunk to `area` and centred in it.
    public func frame(in area: Rect) -> Rect {
        let content = lines.map { $0.reduce(0) { $0 + $1.width } }.max() ?? 0
        let chrome = max(TextWidth.of(title), TextWidth.of(footer ?? "")) + 4
        let width = max(content + 4, chrome + 2)
        return area.centered(width: width, height: lines.count + 2)
    }

    @discardableResult
    public func draw(into buffer: inout CellBuffer, in area: Rect) -> Rect {
        let box = frame(in: area)
        guard box.width >= 2, box.height >= 2 else { return box }
        buffer.fill(box)
        Box.draw(into: &buffer, rect: box, style: borderStyle, title: title, titleStyle: titleStyle, footer: footer)
        let body = box.inset(dx: 2, dy: 1)
        let first = min(max(0, scroll), max(0, lines.count - body.height))
        for (row, line) in lines.dropFirst(first).prefix(body.height).enumerated() {
            buffer.write(line, x: body.x, y: body.y + row, maxWidth: body.width)
        }
        return box
    }
}
