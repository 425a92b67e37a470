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

    /// The kitty graphics query's image id; an answer for another id is not ours.
    public static let kittyQueryID = 31

    /// Whether a control sequence (what follows `ESC [`, up to its final byte) is a terminal's
    /// answer rather than a key: a private marker (`?` DA1, DECRPM, kitty keyboard flags; `>`
    /// DA2; `=` DA3), a window report (final `t`: `4;h;w t`, `6;h;w t`, `8;r;c t`) or DECRPM
    /// for an ANSI mode (`$ y`). No key is sent that way; `<` is an SGR mouse report, not a reply.
    public static func isReply(controlSequence sequence: [UInt8]) -> Bool {
        guard let first = sequence.first, let final = sequence.last else { return false }
        if first == UInt8(ascii: "?") || first == UInt8(ascii: ">") || first == UInt8(ascii: "=") { return true }
        if final == UInt8(ascii: "t") { return true }
        return final == UInt8(ascii: "y") && sequence.dropLast().last == UInt8(ascii: "$")
    }

    /// Takes what a reply (`isReply`) says; false when it says nothing this type keeps (another
    /// mode, DA2) or says it badly (a size out of range).
    @discardableResult
    public mutating func record(controlSequence sequence: [UInt8]) -> Bool {
        guard let final = sequence.last else { return false }
        let text = String(decoding: sequence.dropLast(), as: UTF8.self)
        switch final {
        case UInt8(ascii: "c") where text.hasPrefix("?"):
            deviceAttributes = Self.numbers(text.dropFirst())
            return true
        case UInt8(ascii: "t"):
            let values = Self.numbers(Substring(text))
            guard values.count == 3, (1...4096).contains(values[1]), (1...4096).contains(values[2]) else { return false }
            let size = PixelSize(width: values[2], height: values[1])
            switch values[0] {
            case 6: cellPixels = size
            case 4: windowPixels = size
            default: return false
            }
            return true
        case UInt8(ascii: "y") where text.hasPrefix("?") && text.hasSuffix("$"):
            let values = Self.numbers(text.dropFirst().dropLast())
            guard values.count == 2, values[0] == 2026 else { return false }
            synchronizedOutputMode = values[1]
            return true
        default:
            return false
        }
    }

    /// Takes what a string (DCS, APC, …: its introducer and content) says: XTVERSION
    /// (`DCS > | name ST`) or the answer to the kitty graphics query (`APC G i=31;OK ST`).
    @discardableResult
    public mutating func record(string content: [UInt8], introducer: UInt8) -> Bool {
        let text = String(decoding: content, as: UTF8.self)
        switch introducer {
        case UInt8(ascii: "P") where text.hasPrefix(">|"):
            // Printable ASCII only: the name is shown by `doctor`.
            var name = String.UnicodeScalarView()
            name.append(contentsOf: text.dropFirst(2).unicodeScalars.filter { (0x20..<0x7F).contains($0.value) }.prefix(80))
            version = name.isEmpty ? nil : String(name)
            return true
        case UInt8(ascii: "_") where text.hasPrefix("G"):
            // "Gi=31;OK" or "Gi=31;ENOENT:…"
            let parts = text.dropFirst().split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            let keys = parts.first.map { $0.split(separator: ",") } ?? []
            guard keys.contains("i=\(Self.kittyQueryID)") else { return false }
            if parts.count == 2, parts[1] == "OK" {
                kittyGraphics = true
            } else {
                kittyGraphicsRefused = true
            }
            return true
        default:
            return false
        }
    }

    /// The numbers of a parameter list ("62;4;22"); a parameter that is not a number is -1.
    private static func numbers(_ text: Substring) -> [Int] {
        text.split(separator: ";", omittingEmptySubsequences: false).map { Int($0).map { min($0, 1_000_000) } ?? -1 }
    }
}
