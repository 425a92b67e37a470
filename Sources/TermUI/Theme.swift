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

    /// The default: the terminal's own colours. Roles take the first eight colours of the
    /// terminal's palette (its theme decides what they look like, for a dark or a light
    /// background), muted text and borders the default colour; nothing assumes a background.
    public static let terminal = Theme(colors: [
        .accent: .indexed(4), .selection: .indexed(4), .muted: .default, .moneyIn: .indexed(2), .moneyOut: .indexed(1),
        .warning: .indexed(3), .error: .indexed(1), .title: .default, .border: .default, .highlight: .indexed(5),
    ])

    /// For a dark background: bright xterm-256 tones.
    public static let dark = Theme(colors: [
        .accent: .indexed(39), .selection: .indexed(33), .muted: .indexed(246), .moneyIn: .indexed(42), .moneyOut: .indexed(209),
        .warning: .indexed(214), .error: .indexed(203), .title: .indexed(255), .border: .indexed(240), .highlight: .indexed(176),
    ])

    /// For a light background: deep xterm-256 tones.
    public static let light = Theme(colors: [
        .accent: .indexed(25), .selection: .indexed(25), .muted: .indexed(242), .moneyIn: .indexed(28), .moneyOut: .indexed(130),
        .warning: .indexed(136), .error: .indexed(124), .title: .indexed(232), .border: .indexed(248), .highlight: .indexed(90),
    ])

    /// The themes a config file or `--theme` can name.
    public static let named: [(name: String, theme: Theme)] = [("default", .terminal), ("light", .light), ("dark", .dark)]

    /// This theme with some roles in other colours.
    public func overriding(_ roles: [ColorRole: Color]) -> Theme {
        var copy = self
        copy.colors.merge(roles) { $1 }
        return copy
    }

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
