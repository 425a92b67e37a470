import Foundation

/// The kitty graphics protocol (kitty, Ghostty, WezTerm with it on): a picture is sent once
/// under its id and then placed, moved and removed by id, without its pixels. Every command is
/// quiet (`q=2`): the terminal answers nothing that could reach the keys.
public enum KittyGraphics {
    /// Base64 bytes per chunk (the protocol's limit).
    static let chunkSize = 4096

    /// Sends the picture's RGB pixels (`f=24`), kept by the terminal under its id.
    public static func transmit(_ picture: TerminalPicture) -> String {
        let payload = Array(Data(picture.rgb).base64EncodedString().utf8)
        var out = ""
        var start = 0
        repeat {
            let end = min(payload.count, start + chunkSize)
            let more = end < payload.count ? 1 : 0
            let keys = start == 0 ? "a=t,f=24,s=\(picture.width),v=\(picture.height),i=\(picture.id),q=2,m=\(more)" : "m=\(more),q=2"
            out += "\u{1B}_G\(keys);" + String(decoding: payload[start..<end], as: UTF8.self) + "\u{1B}\\"
            start = end
        } while start < payload.count
        return out
    }

    /// Places a sent picture at the cursor, scaled to `columns × rows` cells; the cursor stays
    /// (`C=1`). A placement id already in use moves that placement.
    public static func place(id: UInt32, placement: UInt32, columns: Int, rows: Int) -> String {
        "\u{1B}_Ga=p,i=\(id),p=\(placement),c=\(columns),r=\(rows),C=1,q=2\u{1B}\\"
    }

    /// Removes one placement; the picture stays sent.
    public static func delete(id: UInt32, placement: UInt32) -> String {
        "\u{1B}_Ga=d,d=i,i=\(id),p=\(placement),q=2\u{1B}\\"
    }

    /// Removes every placement of the picture and forgets its pixels.
    public static func free(id: UInt32) -> String {
        "\u{1B}_Ga=d,d=I,i=\(id),q=2\u{1B}\\"
    }

    /// Removes every placement on screen; pictures stay sent.
    public static let deleteAllPlacements = "\u{1B}_Ga=d,d=a,q=2\u{1B}\\"
    /// Removes every placement and forgets every picture (when the app ends).
    public static let deleteEverything = "\u{1B}_Ga=d,d=A,q=2\u{1B}\\"
}
