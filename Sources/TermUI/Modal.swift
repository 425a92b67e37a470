/// A centred box with a title and lines, drawn over whatever is below (help, confirmations).
public struct Modal: Sendable {
    public var title: String
    public var lines: [[Span]]
    public var footer: String?
    /// What the footer says where the whole one does not fit the box ("↵ Emergency · Esc").
    public var shortFooter: String?
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
        let longestFooter = footer(first: lines.count, shown: max(1, area.height - 2)) ?? ""
        let chrome = max(TextWidth.of(title), TextWidth.of(longestFooter)) + 4
        let width = max(content + 4, chrome + 2)
        return area.centered(width: width, height: lines.count + 2)
    }

    /// The footer, led by the position and a scroll hint when the content is taller than the box:
    /// the longest form that fits `width` cells (nil: the longest), then shorter ones, so a narrow
    /// box keeps what its keys do rather than a cut sentence.
    private func footer(first: Int, shown: Int, width: Int? = nil) -> String? {
        let short = shortFooter ?? footer
        var forms: [String?]
        if lines.count > shown, shown > 0 {
            let position = "\(first + 1)–\(first + shown) of \(lines.count) · j k scroll"
            let compact = "\(first + 1)–\(first + shown)/\(lines.count)"
            forms = [footer.map { position + " · " + $0 } ?? position, short.map { position + " · " + $0 },
                     short.map { compact + " · " + $0 } ?? compact, short, compact]
        } else {
            forms = [footer, short]
        }
        let candidates = forms.compactMap { $0 }
        guard let width else { return candidates.first }
        return candidates.first { TextWidth.of($0) <= width } ?? candidates.last
    }

    @discardableResult
    public func draw(into buffer: inout CellBuffer, in area: Rect) -> Rect {
        let box = frame(in: area)
        guard box.width >= 2, box.height >= 2 else { return box }
        buffer.fill(box)
        let body = box.inset(dx: 2, dy: 1)
        let first = min(max(0, scroll), max(0, lines.count - body.height))
        Box.draw(into: &buffer, rect: box, style: borderStyle, title: title, titleStyle: titleStyle,
                 footer: footer(first: first, shown: body.height, width: box.width - 6))
        for (row, line) in lines.dropFirst(first).prefix(body.height).enumerated() {
            buffer.write(line, x: body.x, y: body.y + row, maxWidth: body.width)
        }
        // A screen reader starts reading the box at its first line shown.
        buffer.placeCursor(onTextOf: body.top(1))
        return box
    }
}
