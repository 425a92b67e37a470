/// A foreground or background colour. Four bytes, no references: cells stay trivially copyable.
public enum Color: Hashable, Sendable {
    /// The terminal's own colour (keeps its background, whether dark or light).
    case `default`
    /// A semantic colour, resolved by the `Theme` when drawn.
    case role(ColorRole)
    /// One of the 256 xterm colours (0–15 are the terminal's own palette).
    case indexed(UInt8)
    /// A true colour; shown as the nearest colour the terminal has.
    case rgb(UInt8, UInt8, UInt8)
}
