import Foundation

/// iTerm2's inline images (iTerm2, WezTerm, mintty): a picture file in an OSC 1337 sequence,
/// drawn over `columns × rows` cells from the cursor. The file is a 24-bit BMP, which every
/// decoder reads and which needs no compression.
public enum ITerm2Image {
    public static func encode(_ picture: TerminalPicture, columns: Int, rows: Int) -> String {
        let file = bmp(picture)
        return "\u{1B}]1337;File=inline=1;size=\(file.count);width=\(columns);height=\(rows);preserveAspectRatio=0:"
            + Data(file).base64EncodedString() + "\u{07}"
    }

    /// A BMP file: a 14-byte file header, a 40-byte BITMAPINFOHEADER, then rows bottom to top
    /// in blue, green, red order, each padded to four bytes.
    static func bmp(_ picture: TerminalPicture) -> [UInt8] {
        let rowBytes = (picture.width * 3 + 3) / 4 * 4
        let imageSize = rowBytes * picture.height
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8((v >> 24) & 0xFF)] }
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
        var out: [UInt8] = Array("BM".utf8) + le32(54 + imageSize) + le32(0) + le32(54)
        out += le32(40) + le32(picture.width) + le32(picture.height) + le16(1) + le16(24) + le32(0) + le32(imageSize)
        out += le32(2835) + le32(2835) + le32(0) + le32(0)
        out.reserveCapacity(54 + imageSize)
        for y in stride(from: picture.height - 1, through: 0, by: -1) {
            for x in 0..<picture.width {
                let p = picture.pixel(x: x, y: y)
                out += [p.b, p.g, p.r]
            }
            out += [UInt8](repeating: 0, count: rowBytes - picture.width * 3)
        }
        return out
    }
}
