/// One terminal cell. It holds no references (scalars inline, no `String`), so a buffer of
/// cells is copied, cleared and compared as plain memory: no allocation per cell or per frame.
public struct Cell: Hashable, Sendable {
    /// The spacing scalar drawn in this cell (a space in a continuation cell).
    public var scalar: Unicode.Scalar
    /// Up to three zero-width scalars drawn with it (combining marks, VS16, ZWJ); 0 = none.
    /// ncurses keeps at most five wide characters per cell (CCHARW_MAX), so three is within it.
    var mark1: UInt32 = 0, mark2: UInt32 = 0, mark3: UInt32 = 0
    /// Display width: 1 or 2 for a leading cell, 0 for the right half of a wide character.
    public var width: UInt8
    public var style: Style

    public init(_ scalar: Unicode.Scalar = " ", width: UInt8 = 1, style: Style = .plain) {
        self.scalar = scalar
        self.width = width
        self.style = style
    }

    public static let blank = Cell()

    /// The right half of a wide character: ncurses draws nothing there.
    public var isContinuation: Bool { width == 0 }

    /// Attaches a zero-width scalar; returns false when there is no room left for it.
    @discardableResult
    mutating func addMark(_ mark: Unicode.Scalar) -> Bool {
        if mark1 == 0 { mark1 = mark.value } else if mark2 == 0 { mark2 = mark.value }
        else if mark3 == 0 { mark3 = mark.value } else { return false }
        return true
    }

    /// The scalars to hand to ncurses: the spacing scalar and its marks.
    public var scalars: [Unicode.Scalar] {
        var out = [scalar]
        for m in [mark1, mark2, mark3] where m != 0 {
            if let s = Unicode.Scalar(m) { out.append(s) }
        }
        return out
    }

    /// The text of the cell ("" for a continuation cell).
    public var text: String {
        if isContinuation { return "" }
        var s = String.UnicodeScalarView()
        s.append(contentsOf: scalars)
        return String(s)
    }

    /// The marks packed for callers that avoid arrays (the ncurses backend).
    var packedMarks: (UInt32, UInt32, UInt32) { (mark1, mark2, mark3) }
}
