import CImageCodecs
import Foundation

/// PNG and JPEG bytes to an `RGBAImage`, through libpng and libjpeg. Anything broken,
/// truncated, too large or not an image gives nil: the caller shows a monogram instead.
public enum ImageDecoder {
    /// Bodies larger than this are not decoded (nor, by the store, kept).
    public static let maxBytes = 10 * 1024 * 1024
    /// Pictures with a side longer than this are refused before any pixel is decoded.
    public static let maxSide = 8000

    public enum Format: Equatable, Sendable { case png, jpeg }

    /// The format the first bytes announce, if any.
    public static func sniff(_ data: Data) -> Format? {
        let head = [UInt8](data.prefix(8))
        if head == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        return nil
    }

    /// Decodes `data`. `atLeast` lets JPEG decoding scale down by 1/2, 1/4 or 1/8 on the way
    /// while staying at least that many pixels on each side (0 = full size).
    public static func decode(_ data: Data, atLeast minimum: (width: Int, height: Int) = (0, 0)) -> RGBAImage? {
        guard !data.isEmpty, data.count <= maxBytes, let format = sniff(data) else { return nil }
        // No minimum: full size.
        let least = minimum.width > 0 && minimum.height > 0 ? minimum : (Int(UInt32.max), Int(UInt32.max))
        var image = qic_image(width: 0, height: 0, pixels: nil)
        let status: Int32 = data.withUnsafeBytes { raw in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return Int32(QIC_ERROR) }
            switch format {
            case .png:
                return qic_decode_png(base, raw.count, UInt32(maxSide), &image)
            case .jpeg:
                return qic_decode_jpeg(base, raw.count, UInt32(maxSide), UInt32(clamping: least.0),
                                       UInt32(clamping: least.1), &image)
            }
        }
        defer { qic_free(image.pixels) }
        guard status == Int32(QIC_OK), let pixels = image.pixels else { return nil }
        let width = Int(image.width), height = Int(image.height)
        let buffer = UnsafeBufferPointer(start: pixels, count: width * height * 4)
        return RGBAImage(width: width, height: height, pixels: Array(buffer))
    }
}
