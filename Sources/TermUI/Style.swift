/// How a cell looks: foreground, background and attributes.
public struct Style: Hashable, Sendable {
    public var fg: Color
    public var bg: Color
    public var attributes: Attributes

    public init(fg: Color = .default, bg: Color = .default, attributes: Attributes = []) {
        self.fg = fg
        self.bg = bg
        self.attributes = attributes
    }

    public static let plain = Style()
    public static let bold = Style(attributes: .bold)
    public static let dim = Style(attributes: .dim)
    public static let reverse = Style(attributes: .reverse)
    public static let underline = Style(attributes: .underline)
    public static let italic = Style(attributes: .italic)

    /// A plain style in a role's colour.
    public static func role(_ role: ColorRole, _ attributes: Attributes = []) -> Style {
        Style(fg: .role(role), attributes: attributes)
    }

    /// This style with more attributes.
    public func adding(_ more: Attributes) -> Style {
        var copy = self
        copy.attributes.formUnion(more)
        return copy
    }

    /// `patch` laid over this style: its attributes are added, its non-default colours win.
    public func patched(with patch: Style) -> Style {
        Style(
            fg: patch.fg == .default ? fg : patch.fg,
            bg: patch.bg == .default ? bg : patch.bg,
            attributes: attributes.union(patch.attributes)
        )
    }
}
