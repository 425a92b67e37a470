import Foundation

/// kitty's Unicode placeholders (kitty ≥ 0.28, Ghostty): a picture is sent once with a virtual
/// placement (`U=1`), and the cells it covers are written as text: U+10EEEE, a row and a
/// column diacritic, the picture's id in the foreground colour (24-bit). The terminal draws the
/// picture wherever such cells are, so a scroll moves a picture with its text and a line costs
/// its placeholder cells, with no graphics command at all.
///
/// Every cell carries both diacritics (kitty may infer them from the cell to the left, but the
/// writer does not always write the cell to the left in the same frame). Pictures up to
/// `maxSpan` cells across and down, ids up to 2²⁴ − 1 (no third diacritic); any other is left
/// to its half blocks.
public enum KittyPlaceholders {
    /// The placeholder character (a private-use scalar in plane 16).
    public static let placeholder = Unicode.Scalar(0x10EEEE)!

    /// The first entries of kitty's `rowcolumn-diacritics.txt`: entry n stands for row or
    /// column n. All are combining marks (class 230) that no normalisation reorders.
    static let diacritics: [UInt32] = [
        0x0305, 0x030D, 0x030E, 0x0310, 0x0312, 0x033D, 0x033E, 0x033F,
        0x0346, 0x034A, 0x034B, 0x034C, 0x0350, 0x0351, 0x0352, 0x0357,
        0x035B, 0x0363, 0x0364, 0x0365, 0x0366, 0x0367, 0x0368, 0x0369,
        0x036A, 0x036B, 0x036C, 0x036D, 0x036E, 0x036F, 0x0483, 0x0484,
        0x0485, 0x0486, 0x0487, 0x0592, 0x0593, 0x0594, 0x0595, 0x0597,
        0x0598, 0x0599, 0x059C, 0x059D, 0x059E, 0x059F, 0x05A0, 0x05A1,
        0x05A8, 0x05A9, 0x05AB, 0x05AC, 0x05AF, 0x05C4, 0x0610, 0x0611,
        0x0612, 0x0613, 0x0614, 0x0615, 0x0616, 0x0617, 0x0657, 0x0658,
    ]

    /// The most rows or columns a picture may span here.
    public static var maxSpan: Int { diacritics.count }
    /// The largest id the foreground colour carries alone.
    public static let maxID: UInt32 = 0xFF_FFFF

    /// Whether `placement` can be drawn by placeholders.
    public static func fits(_ placement: PicturePlacement) -> Bool {
        placement.rect.width <= maxSpan && placement.rect.height <= maxSpan && placement.picture.id <= maxID
    }

    /// The cell at `row`, `column` of picture `id` (both within `maxSpan`, `id` within `maxID`).
    public static func cell(id: UInt32, row: Int, column: Int) -> Cell {
        var cell = Cell(placeholder, width: 1, style: Style(fg: color(id: id)))
        cell.addMark(Unicode.Scalar(diacritics[row])!)
        cell.addMark(Unicode.Scalar(diacritics[column])!)
        return cell
    }

    /// The picture's id as the foreground colour kitty reads it from (24 bits, high byte red).
    public static func color(id: UInt32) -> Color {
        .rgb(UInt8(truncatingIfNeeded: id >> 16), UInt8(truncatingIfNeeded: id >> 8), UInt8(truncatingIfNeeded: id))
    }

    /// Where a placeholder cell points: the picture's id, its row and column; nil for any
    /// other cell (a reader of what was written, for tests and the model terminal).
    public static func decode(_ cell: Cell) -> (id: UInt32, row: Int, column: Int)? {
        guard cell.scalar == placeholder, case .rgb(let r, let g, let b) = cell.style.fg else { return nil }
        let marks = cell.scalars.dropFirst().map(\.value)
        guard marks.count == 2, let row = diacritics.firstIndex(of: marks[0]), let column = diacritics.firstIndex(of: marks[1]) else {
            return nil
        }
        return (UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b), row, column)
    }

    /// `buffer` with each of `placements` written as placeholder cells over its half blocks.
    public static func overlay(_ placements: [PicturePlacement], on buffer: inout CellBuffer) {
        for placement in placements where fits(placement) {
            let rect = placement.rect.intersection(Rect(x: 0, y: 0, width: buffer.width, height: buffer.height))
            guard rect == placement.rect else { continue }
            for row in 0..<rect.height {
                for column in 0..<rect.width {
                    buffer[rect.x + column, rect.y + row] = cell(id: placement.picture.id, row: row, column: column)
                }
            }
        }
    }
}

extension KittyGraphics {
    /// The virtual placement the placeholder cells draw: `columns × rows` cells.
    public static func virtualPlacement(id: UInt32, columns: Int, rows: Int) -> String {
        "\u{1B}_Ga=p,U=1,i=\(id),c=\(columns),r=\(rows),q=2\u{1B}\\"
    }

    /// `commands` with each APC sequence wrapped for tmux's passthrough (`allow-passthrough
    /// on`): `DCS tmux; … ST` with its escapes doubled, so tmux hands it to the outer terminal.
    public static func tmuxPassthrough(_ commands: String) -> String {
        var out = ""
        var rest = Substring(commands)
        while let start = rest.range(of: "\u{1B}_G"), let end = rest[start.upperBound...].range(of: "\u{1B}\\") {
            out += rest[..<start.lowerBound]
            out += "\u{1B}Ptmux;" + rest[start.lowerBound..<end.upperBound].replacingOccurrences(of: "\u{1B}", with: "\u{1B}\u{1B}") + "\u{1B}\\"
            rest = rest[end.upperBound...]
        }
        return out + rest
    }
}
