/// The semantic colours in one place.
///
/// The standard palette uses mid-tone xterm-256 colours that read on both dark and light
/// backgrounds (no white, black or pale yellow text). Selection is meant to be drawn with
/// `.reverse`: its colour becomes the bar and the text takes the terminal's own background,
/// which is readable whatever that background is. `noColor` resolves every colour to the
/// terminal default, so only attributes (bold, reverse, dim) remain.
public struct Theme: Hashable, Sendable {
    public var colors: [ColorRole: Color]
    public var usesColor: Bool

    public init(colors: [ColorRole: Color], usesColor: Bool = true) {
        self.colors = colors
        self.usesColor = usesColor
    }

    public static let standard = Theme(colors: [
        .accent: .indexed(33),      // #0087ff
        .selection: .indexed(33),
        .muted: .indexed(245),      // mid grey
        .moneyIn: .indexed(34),     // #00af00
        .moneyOut: .indexed(166),   // #d75f00
        .warning: .indexed(172),    // #d78700
        .error: .indexed(160),      // #d70000
        .title: .default,
        .border: .indexed(244),
        .highlight: .indexed(133),  // #af5faf
    ])

    public static let noColor = Theme(colors: [:], usesColor: false)

    /// A concrete colour: roles looked up, everything `.default` under no-colour.
    public func resolve(_ color: Color) -> Color {
        guard usesColor else { return .default }
        if case .role(let role) = color { return colors[role] ?? .default }
        return color
    }

    /// A style with concrete colours.
    public func resolve(_ style: Style) -> Style {
        Style(fg: resolve(style.fg), bg: resolve(style.bg), attributes: style.attributes)
    }
}
