import Synchronization

/// A picture for the terminal's own graphics (kitty, sixel): opaque RGB pixels already scaled
/// to the cells it covers. Immutable and shared; its `id` names it to the terminal (kitty keeps
/// a transmitted picture by id and places it again without sending the pixels).
public final class TerminalPicture: Hashable, Sendable {
    public let id: UInt32
    public let width: Int
    public let height: Int
    /// `width × height × 3` bytes, rows top to bottom.
    public let rgb: [UInt8]

    private static let nextID = Atomic<UInt32>(0)

    public init?(width: Int, height: Int, rgb: [UInt8]) {
        guard width > 0, height > 0, rgb.count == width * height * 3 else { return nil }
        self.width = width
        self.height = height
        self.rgb = rgb
        // Ids 1 … 2³¹ − 1 in turn (kitty reserves 0); a wrap after two billion pictures is harmless.
        id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue % 0x7FFF_FFFF + 1
    }

    public static func == (a: TerminalPicture, b: TerminalPicture) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// Memory held, for cache accounting.
    public var byteCount: Int { rgb.count + 64 }

    /// The pixel at (x, y).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let i = (y * width + x) * 3
        return (rgb[i], rgb[i + 1], rgb[i + 2])
    }
}

/// Where a frame shows a picture: the cells it covers, and a digest of what those cells held
/// when it was placed (its half-block stand-in). Anything drawn over them afterwards (an overlay,
/// a dimmed background) changes the digest, and the picture is not shown: the cells are.
public struct PicturePlacement: Hashable, Sendable {
    public let picture: TerminalPicture
    public let rect: Rect
    let cellDigest: Int
}
