/// A size in pixels (a cell, or the text area).
public struct PixelSize: Hashable, Sendable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// What a terminal answered to the start-up queries (`TerminalProbe.queries`). Nothing here is
/// trusted further than its type: numbers are ranged, the name is cleaned of control characters.
public struct TerminalReplies: Hashable, Sendable {
    /// The primary device attributes (`CSI ? … c`); nil when the terminal did not answer.
    public var deviceAttributes: [Int]?
    /// The kitty graphics query (`a=q`) was answered `OK`.
    public var kittyGraphics = false
    /// The kitty graphics query was answered with an error (the protocol is known but refused).
    public var kittyGraphicsRefused = false
    /// `CSI 16 t`: the size of one cell in pixels.
    public var cellPixels: PixelSize?
    /// `CSI 14 t`: the size of the text area in pixels.
    public var windowPixels: PixelSize?
    /// `CSI > q` (XTVERSION): the terminal's name and version, e.g. "kitty(0.35.2)".
    public var version: String?
    /// DECRQM for mode 2026 (synchronized output): 0 unknown, 1 set, 2 reset, 3 always set,
    /// 4 always reset; nil when not answered.
    public var synchronizedOutputMode: Int?

    public init() {}

    /// The terminal answered the closing query: everything it would say has been said.
    public var answered: Bool { deviceAttributes != nil }
    /// DA1 lists 4: sixel graphics.
    public var sixel: Bool { deviceAttributes?.dropFirst().contains(4) ?? false }
    /// Mode 2026 is known to the terminal (set or reset, or permanently set).
    public var synchronizedOutput: Bool { [1, 2, 3].contains(synchronizedOutputMode ?? 0) }
}
