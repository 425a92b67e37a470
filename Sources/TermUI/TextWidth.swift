import CNcurses

/// Display width in terminal cells, counted the way ncurses counts it: libc `wcwidth` per
/// Unicode scalar under a UTF-8 LC_CTYPE.
///
/// Rules shared with `CellBuffer.write` (so measuring and drawing never disagree):
/// - a scalar of width 0 (combining mark, VS16, ZWJ) joins the cell before it;
/// - a scalar `wcwidth` calls unprintable (C0/C1 controls) is drawn as U+FFFD, one cell;
/// - a grapheme of several spacing scalars (a flag, a ZWJ family) takes the sum of their widths,
///   because ncurses puts each spacing scalar into a cell of its own.
/// Text is only ever cut between graphemes.
public enum TextWidth {
    /// Replacement drawn for unprintable scalars.
    static let replacement: Unicode.Scalar = "\u{FFFD}"

    /// Width of one scalar in cells: 0, 1 or 2; unprintable scalars count 1 (they become U+FFFD).
    @inline(__always)
    static func cells(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v >= 0x20 && v < 0x7F { return 1 }
        return cellsSlow(v)
    }

    /// Raw `wcwidth`: -1 for unprintable.
    static func wcwidthOf(_ value: UInt32) -> Int {
        TerminalLocale.activate()
        return Int(qt_wcwidth(value))
    }

    private static func cellsSlow(_ v: UInt32) -> Int {
        let w = wcwidthOf(v)
        return w < 0 ? 1 : w
    }

    /// Whether the scalar must be replaced by U+FFFD when drawn.
    @inline(__always)
    static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v >= 0x20 && v < 0x7F { return false }
        return wcwidthOf(v) < 0
    }

    /// Display width of `s` in cells.
    public static func of(_ s: String) -> Int {
        var total = 0
        for scalar in s.unicodeScalars { total += cells(scalar) }
        return total
    }

    /// Display width of one grapheme.
    public static func of(_ c: Character) -> Int {
        var total = 0
        for scalar in c.unicodeScalars { total += cells(scalar) }
        return total
    }

    /// `s` cut to at most `width` cells; when it had to be cut it ends with `…`.
    public static func truncate(_ s: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if of(s) <= width { return s }
        var result = ""
        var used = 0
        for c in s {
            let w = of(c)
            if used + w > width - 1 { break }
            result.append(c)
            used += w
        }
        result.append("…")
        return result
    }

    /// `s` padded with spaces (or cut with `…`) to exactly `width` cells.
    public static func pad(_ s: String, to width: Int, alignRight: Bool = false) -> String {
        let cut = truncate(s, to: width)
        let gap = max(0, width - of(cut))
        let spaces = String(repeating: " ", count: gap)
        return alignRight ? spaces + cut : cut + spaces
    }
}
