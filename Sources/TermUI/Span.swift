/// A run of text in one style, for lines that mix bold and plain words.
public struct Span: Hashable, Sendable {
    public var text: String
    public var style: Style

    public init(_ text: String, _ style: Style = .plain) {
        self.text = text
        self.style = style
    }

    /// Display width in cells.
    public var width: Int { TextWidth.of(text) }
}
