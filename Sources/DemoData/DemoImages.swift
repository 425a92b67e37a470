import FeedModel
import Foundation

/// The demo's pictures, drawn in code and deterministic per id: a goal is a two-hue gradient
/// with a light shape on it (circle, diamond, stripes, triangle, ring or a sun); an avatar is
/// a head and shoulders on a coloured disc. Served as PNG at `/images/goals/<id>.png` and
/// `/images/avatars/<id>.png`; the dataset names them as `demo:/images/…` URLs.
public enum DemoImages {
    /// The URL scheme of the dataset's pictures; `serve` rewrites it to its own address.
    public static let scheme = "demo"

    public static func goalURL(id: Int) -> URL { URL(string: "\(scheme):/images/goals/\(id).png")! }
    public static func avatarURL(id: Int) -> URL { URL(string: "\(scheme):/images/avatars/\(id).png")! }
    /// An achievement's picture (the demo's own, for the bundled achievements: the demo fetches nothing).
    public static func achievementURL(id: Int) -> URL { URL(string: "\(scheme):/images/achievements/\(id).png")! }

    /// The bundled achievements with the demo's own pictures instead of their URLs.
    public static func withOwnPictures(_ file: AchievementsFile) -> AchievementsFile {
        var file = file
        for index in file.achievements.indices where file.achievements[index].backgroundImageURL != nil {
            file.achievements[index].backgroundImageURL = achievementURL(id: file.achievements[index].id)
        }
        return file
    }

    /// The PNG at a path like `/images/goals/3.png`, or nil for any other path.
    public static func png(atPath path: String) -> Data? {
        let parts = path.split(separator: "/")
        guard parts.count == 3, parts[0] == "images", parts[2].hasSuffix(".png"),
              let id = Int(parts[2].dropLast(4)), id >= 0, id < 1_000_000 else { return nil }
        switch parts[1] {
        case "goals": return goalPNG(id: id)
        case "avatars": return avatarPNG(id: id)
        case "achievements": return goalPNG(id: 0x10_0000 + id)
        default: return nil
        }
    }

    public static func goalPNG(id: Int, size: Int = 48) -> Data {
        var random = SeededRandom(seed: 0x601D_0000 &+ UInt64(id))
        let hue = Double(random.next() % 360)
        let top = rgb(hue: hue, saturation: 0.75, value: 0.95)
        let bottom = rgb(hue: (hue + 40 + Double(random.next() % 80)).truncatingRemainder(dividingBy: 360), saturation: 0.85, value: 0.45)
        let light = rgb(hue: (hue + 180).truncatingRemainder(dividingBy: 360), saturation: 0.25, value: 1)
        let shape = id % 6
        var pixels = [UInt8](repeating: 255, count: size * size * 4)
        let s = Double(size)
        for y in 0..<size {
            for x in 0..<size {
                let u = (Double(x) + 0.5) / s, v = (Double(y) + 0.5) / s
                let t = (u * 0.35 + v * 0.65)
                var colour = mix(top, bottom, t)
                let dx = u - 0.5, dy = v - 0.5
                let inside: Bool
                switch shape {
                case 0: inside = dx * dx + dy * dy < 0.09                              // circle
                case 1: inside = abs(dx) + abs(dy) < 0.3                               // diamond
                case 2: inside = Int((u + v) * 6) % 2 == 0 && abs(dy) < 0.3            // stripes
                case 3: inside = v > 0.25 && v < 0.8 && abs(dx) < (v - 0.25) * 0.6     // triangle
                case 4: inside = (0.04..<0.12).contains(dx * dx + dy * dy)             // ring
                default: inside = (dx * dx + (v - 0.8) * (v - 0.8)) < 0.1 && v < 0.8   // a sun setting
                }
                if inside { colour = mix(colour, light, 0.85) }
                let i = (y * size + x) * 4
                pixels[i] = colour.0
                pixels[i + 1] = colour.1
                pixels[i + 2] = colour.2
            }
        }
        return PNGEncoder.encode(width: size, height: size, rgba: pixels)!
    }

    public static func avatarPNG(id: Int, size: Int = 32) -> Data {
        var random = SeededRandom(seed: 0xA7A7_0000 &+ UInt64(id))
        let hue = Double(random.next() % 360)
        let back = rgb(hue: hue, saturation: 0.6, value: 0.8)
        let skin = [(241, 194, 125), (224, 172, 105), (198, 134, 66), (141, 85, 36), (255, 219, 172)][Int(random.next() % 5)]
        let shirt = rgb(hue: (hue + 150).truncatingRemainder(dividingBy: 360), saturation: 0.7, value: 0.55)
        var pixels = [UInt8](repeating: 255, count: size * size * 4)
        let s = Double(size)
        for y in 0..<size {
            for x in 0..<size {
                let u = (Double(x) + 0.5) / s, v = (Double(y) + 0.5) / s
                var colour = back
                let head = (u - 0.5) * (u - 0.5) + (v - 0.4) * (v - 0.4) < 0.04
                let shoulders = (u - 0.5) * (u - 0.5) / 0.12 + (v - 1.0) * (v - 1.0) / 0.1 < 1
                if shoulders { colour = shirt }
                if head { colour = (UInt8(skin.0), UInt8(skin.1), UInt8(skin.2)) }
                let i = (y * size + x) * 4
                pixels[i] = colour.0
                pixels[i + 1] = colour.1
                pixels[i + 2] = colour.2
            }
        }
        return PNGEncoder.encode(width: size, height: size, rgba: pixels)!
    }

    private static func mix(_ a: (UInt8, UInt8, UInt8), _ b: (UInt8, UInt8, UInt8), _ t: Double) -> (UInt8, UInt8, UInt8) {
        func m(_ x: UInt8, _ y: UInt8) -> UInt8 { UInt8((Double(x) * (1 - t) + Double(y) * t).rounded()) }
        return (m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
    }

    private static func rgb(hue: Double, saturation: Double, value: Double) -> (UInt8, UInt8, UInt8) {
        let c = value * saturation
        let h = hue / 60
        let x = c * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) = switch Int(h) {
        case 0: (c, x, 0)
        case 1: (x, c, 0)
        case 2: (0, c, x)
        case 3: (0, x, c)
        case 4: (x, 0, c)
        default: (c, 0, x)
        }
        let m = value - c
        return (UInt8(((r + m) * 255).rounded()), UInt8(((g + m) * 255).rounded()), UInt8(((b + m) * 255).rounded()))
    }
}
