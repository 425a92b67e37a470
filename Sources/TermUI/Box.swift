/// A single-line border with an optional title in the top edge and footer in the bottom edge.
public enum Box {
    public static func draw(into buffer: inout CellBuffer, rect: Rect, style: Style = Style(fg: .role(.border)),
                            title: String? = nil, titleStyle: Style = Style(fg: .role(.title), attributes: .bold),
                            footer: String? = nil) {
        guard rect.width >= 2, rect.height >= 2 else { return }
        let inner = rect.width - 2
        let horizontal = String(repeating: "─", count: inner)
        buffer.write("┌" + horizontal + "┐", x: rect.x, y: rect.y, style: style)
        buffer.write("└" + horizontal + "┘", x: rect.x, y: rect.maxY - 1, style: style)
        for y in (rect.y + 1)..<(rect.maxY - 1) {
            buffer.write("│", x: rect.x, y: y, style: style)
            buffer.write("│", x: rect.maxX - 1, y: y, style: style)
        }
        if let title, inner >= 5 {
            buffer.write(" \(title) ", x: rect.x + 2, y: rect.y, maxWidth: inner - 2, style: titleStyle)
        }
        if let footer, inner >= 5 {
            let text = " \(footer) "
            let w = min(TextWidth.of(text), inner - 2)
            buffer.write(text, x: rect.maxX - 2 - w, y: rect.maxY - 1, maxWidth: w, style: style)
        }
    }
}
