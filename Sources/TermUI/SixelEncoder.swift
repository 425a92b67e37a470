/// Sixel (xterm `-ti vt340`, foot, WezTerm, mlterm, tmux with sixel): pixels six rows at a time,
/// one pass per colour. Colours are those of an even RGB cube as big as the terminal's colour
/// registers allow (6 × 6 × 6 of 256), numbered as they first appear.
public enum SixelEncoder {
    public static func encode(_ picture: TerminalPicture, registers: Int = 256) -> String {
        var levels = 2
        while (levels + 1) * (levels + 1) * (levels + 1) <= max(8, registers) { levels += 1 }
        let step = levels - 1
        func level(_ value: UInt8) -> Int { (Int(value) * step + 127) / 255 }

        // Each pixel's register, registers in order of first appearance.
        var registerOf: [Int: Int] = [:]
        var palette = ""
        var indices = [Int](repeating: 0, count: picture.width * picture.height)
        for y in 0..<picture.height {
            for x in 0..<picture.width {
                let p = picture.pixel(x: x, y: y)
                let cube = (level(p.r) * levels + level(p.g)) * levels + level(p.b)
                if let register = registerOf[cube] {
                    indices[y * picture.width + x] = register
                } else {
                    let register = registerOf.count
                    registerOf[cube] = register
                    indices[y * picture.width + x] = register
                    func percent(_ l: Int) -> Int { (l * 100 + step / 2) / step }
                    palette += "#\(register);2;\(percent(level(p.r)));\(percent(level(p.g)));\(percent(level(p.b)))"
                }
            }
        }

        // P1 0, P2 1 (pixels not drawn stay as they are), raster attributes: 1:1 pixels, W × H.
        var out = "\u{1B}P0;1;0q\"1;1;\(picture.width);\(picture.height)" + palette
        var bandTop = 0
        while bandTop < picture.height {
            if bandTop > 0 { out += "-" }
            let bandRows = min(6, picture.height - bandTop)
            // The registers in this band, in register order, each with its sixel column bits.
            var bits: [Int: [UInt8]] = [:]
            for row in 0..<bandRows {
                for x in 0..<picture.width {
                    let register = indices[(bandTop + row) * picture.width + x]
                    bits[register, default: [UInt8](repeating: 0, count: picture.width)][x] |= 1 << row
                }
            }
            var first = true
            for register in bits.keys.sorted() {
                guard var columns = bits[register] else { continue }
                while columns.last == 0 { columns.removeLast() }
                if !first { out += "$" }
                first = false
                out += "#\(register)" + runLength(columns)
            }
            bandTop += 6
        }
        return out + "\u{1B}\\"
    }

    /// Sixel characters (63 + bits), runs of three or more as `!count char`.
    static func runLength(_ columns: [UInt8]) -> String {
        var out = ""
        var i = 0
        while i < columns.count {
            var j = i
            while j < columns.count && columns[j] == columns[i] { j += 1 }
            let char = String(UnicodeScalar(63 + columns[i]))
            out += j - i >= 3 ? "!\(j - i)\(char)" : String(repeating: char, count: j - i)
            i = j
        }
        return out
    }
}
