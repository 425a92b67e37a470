/// A decoded picture: 8-bit RGBA, rows top to bottom, alpha not premultiplied.
public struct RGBAImage: Hashable, Sendable {
    public let width: Int
    public let height: Int
    /// `width × height × 4` bytes.
    public let pixels: [UInt8]

    public init?(width: Int, height: Int, pixels: [UInt8]) {
        guard width > 0, height > 0, pixels.count == width * height * 4 else { return nil }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Memory held by the pixels, for cache accounting.
    public var byteCount: Int { pixels.count }

    /// The pixel at (x, y) as (r, g, b, a).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }

    /// Shrinks (never enlarges) so that neither side exceeds `maxSide`, keeping the aspect ratio.
    public func limited(toMaxSide maxSide: Int) -> RGBAImage {
        guard width > maxSide || height > maxSide, maxSide > 0 else { return self }
        let scale = Double(maxSide) / Double(max(width, height))
        let w = max(1, Int((Double(width) * scale).rounded()))
        let h = max(1, Int((Double(height) * scale).rounded()))
        return resampled(width: w, height: h, crop: (0, 0, Double(width), Double(height)))
    }

    /// Exactly `width × height`, filling it: the centre of the picture, cropped to the target's
    /// aspect ratio, then area-averaged.
    public func scaledToFill(width targetWidth: Int, height targetHeight: Int) -> RGBAImage {
        let tw = max(1, targetWidth), th = max(1, targetHeight)
        let target = Double(tw) / Double(th)
        let source = Double(width) / Double(height)
        var crop = (x: 0.0, y: 0.0, width: Double(width), height: Double(height))
        if source > target {
            crop.width = Double(height) * target
            crop.x = (Double(width) - crop.width) / 2
        } else if source < target {
            crop.height = Double(width) / target
            crop.y = (Double(height) - crop.height) / 2
        }
        return resampled(width: tw, height: th, crop: crop)
    }

    /// Box filter: each target pixel is the average of the source area it covers, weighted by
    /// how much of each source pixel falls inside it, in premultiplied alpha (so transparent
    /// pixels lend no colour). Enlarging degrades gracefully to nearest-neighbour.
    func resampled(width tw: Int, height th: Int, crop: (x: Double, y: Double, width: Double, height: Double)) -> RGBAImage {
        let columns = RGBAImage.spans(count: tw, start: crop.x, length: crop.width, limit: width)
        let rows = RGBAImage.spans(count: th, start: crop.y, length: crop.height, limit: height)
        var out = [UInt8](repeating: 0, count: tw * th * 4)
        pixels.withUnsafeBufferPointer { src in
            for (ty, row) in rows.enumerated() {
                for (tx, column) in columns.enumerated() {
                    var r = 0.0, g = 0.0, b = 0.0, a = 0.0, total = 0.0
                    for (sy, wy) in row {
                        let base = sy * width
                        for (sx, wx) in column {
                            let w = wx * wy
                            let i = (base + sx) * 4
                            let alpha = Double(src[i + 3]) * w
                            r += Double(src[i]) * alpha
                            g += Double(src[i + 1]) * alpha
                            b += Double(src[i + 2]) * alpha
                            a += alpha
                            total += w
                        }
                    }
                    let o = (ty * tw + tx) * 4
                    if a > 0 {
                        out[o] = RGBAImage.clamp(r / a)
                        out[o + 1] = RGBAImage.clamp(g / a)
                        out[o + 2] = RGBAImage.clamp(b / a)
                    }
                    out[o + 3] = total > 0 ? RGBAImage.clamp(a / total) : 0
                }
            }
        }
        return RGBAImage(width: tw, height: th, pixels: out)!
    }

    /// For each of `count` target pixels along one axis: the source pixels it covers and the
    /// share of each (lengths in source pixels).
    private static func spans(count: Int, start: Double, length: Double, limit: Int) -> [[(Int, Double)]] {
        let step = length / Double(count)
        return (0..<count).map { t in
            let from = start + Double(t) * step
            let to = from + step
            var first = Int(from.rounded(.down))
            var last = Int(to.rounded(.up)) - 1
            first = min(max(first, 0), limit - 1)
            last = min(max(last, first), limit - 1)
            var weights: [(Int, Double)] = []
            for s in first...last {
                let overlap = min(to, Double(s + 1)) - max(from, Double(s))
                if overlap > 1e-9 { weights.append((s, overlap)) }
            }
            if weights.isEmpty { weights.append((first, 1)) }
            return weights
        }
    }

    private static func clamp(_ value: Double) -> UInt8 {
        UInt8(max(0, min(255, value.rounded())))
    }
}
