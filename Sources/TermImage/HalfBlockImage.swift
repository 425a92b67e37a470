import TermUI

/// A picture as terminal cells: each cell is an upper half block `▀` whose foreground is the
/// upper pixel and whose background is the lower one, so `columns × rows` cells show
/// `columns × 2·rows` pixels, about square on a usual terminal font.
public struct HalfBlockImage: Hashable, Sendable {
    public struct RGB: Hashable, Sendable {
        public var r: UInt8, g: UInt8, b: UInt8
        public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
            self.r = r
            self.g = g
            self.b = b
        }
    }

    public let columns: Int
    public let rows: Int
    /// `columns × 2·rows` colours, rows top to bottom.
    public let pixels: [RGB]
    /// The same picture at the terminal's resolution (kitty, sixel), placed over these cells
    /// when drawn; nil where the terminal draws half blocks only.
    public let picture: TerminalPicture?

    /// What transparent pixels are laid over (a dark grey: most terminals are dark).
    public static let defaultBackdrop = RGB(24, 24, 24)

    /// `image` filled into `columns × rows` cells (cropped to fit, area-averaged), its alpha
    /// composited over `backdrop`.
    /// `cellPixels`: the terminal's cell in pixels when it draws pictures itself (the picture
    /// is then also made at `columns × cellPixels.width` by `rows × cellPixels.height`).
    public init(_ image: RGBAImage, columns: Int, rows: Int, backdrop: RGB = HalfBlockImage.defaultBackdrop,
                cellPixels: PixelSize? = nil) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        let scaled = image.scaledToFill(width: self.columns, height: self.rows * 2)
        var pixels: [RGB] = []
        pixels.reserveCapacity(scaled.width * scaled.height)
        HalfBlockImage.composite(scaled, over: backdrop) { pixels.append(RGB($0, $1, $2)) }
        self.pixels = pixels
        if let cellPixels, cellPixels.width > 0, cellPixels.height > 0 {
            let full = image.scaledToFill(width: self.columns * cellPixels.width, height: self.rows * cellPixels.height)
            var rgb: [UInt8] = []
            rgb.reserveCapacity(full.width * full.height * 3)
            HalfBlockImage.composite(full, over: backdrop) { rgb.append($0); rgb.append($1); rgb.append($2) }
            picture = TerminalPicture(width: full.width, height: full.height, rgb: rgb)
        } else {
            picture = nil
        }
    }

    /// Each pixel's colour with its alpha laid over `backdrop`, rows top to bottom.
    private static func composite(_ image: RGBAImage, over backdrop: RGB, _ emit: (UInt8, UInt8, UInt8) -> Void) {
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                let a = Int(p.a)
                func blend(_ c: UInt8, _ back: UInt8) -> UInt8 { UInt8((Int(c) * a + Int(back) * (255 - a) + 127) / 255) }
                emit(blend(p.r, backdrop.r), blend(p.g, backdrop.g), blend(p.b, backdrop.b))
            }
        }
    }

    /// Memory held, for cache accounting.
    public var byteCount: Int { pixels.count * MemoryLayout<RGB>.stride + (picture?.byteCount ?? 0) + 64 }

    /// The cell at (column, row): `▀` in the upper pixel's colour on the lower pixel's colour.
    public func cell(column: Int, row: Int) -> Cell {
        let upper = pixels[(row * 2) * columns + column]
        let lower = pixels[(row * 2 + 1) * columns + column]
        return Cell("▀", style: Style(fg: .rgb(upper.r, upper.g, upper.b), bg: .rgb(lower.r, lower.g, lower.b)))
    }

    /// Draws the cells with their top-left corner at (x, y), clipped to the buffer and to `clip`.
    /// Where the picture is whole inside the clip, the terminal's own picture is placed over the
    /// cells (`CellBuffer.place`); a picture cut by the clip stays half blocks.
    public func draw(into buffer: inout CellBuffer, x: Int, y: Int, clip: Rect? = nil) {
        let area = clip.map { $0.intersection(buffer.area) } ?? buffer.area
        defer {
            let rect = Rect(x: x, y: y, width: columns, height: rows)
            if let picture, rect.intersection(area) == rect { buffer.place(picture, in: rect) }
        }
        for row in 0..<rows {
            let cy = y + row
            guard cy >= area.y, cy < area.maxY else { continue }
            for column in 0..<columns {
                let cx = x + column
                guard cx >= area.x, cx < area.maxX else { continue }
                // A wide character that this overwrites half of would be left broken: blank it.
                if buffer[cx, cy].isContinuation, cx > 0 { buffer[cx - 1, cy] = Cell(" ", style: buffer[cx - 1, cy].style) }
                if buffer[cx, cy].width == 2, cx + 1 < buffer.width { buffer[cx + 1, cy] = Cell(" ", style: buffer[cx + 1, cy].style) }
                buffer[cx, cy] = cell(column: column, row: row)
            }
        }
    }
}
