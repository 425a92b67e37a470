/// The xterm colour cube, to turn RGB into the nearest colour a terminal has.
enum ColorPalette {
    /// The RGB value of xterm colour `index`.
    static func rgb(of index: Int) -> (Int, Int, Int) {
        switch index {
        case 0..<16:
            let base: [(Int, Int, Int)] = [
                (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
                (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
            ]
            return base[index]
        case 16..<232:
            let levels = [0, 95, 135, 175, 215, 255]
            let i = index - 16
            return (levels[i / 36], levels[(i / 6) % 6], levels[i % 6])
        default:
            let v = 8 + 10 * (index - 232)
            return (v, v, v)
        }
    }

    /// The nearest of the first `count` colours (16…255 are only searched when `count` ≥ 256).
    static func nearest(r: Int, g: Int, b: Int, count: Int) -> Int {
        var best = 0, bestDistance = Int.max
        // On 256-colour terminals skip 0–15: their real values are the user's theme, not xterm's.
        let range = count >= 256 ? 16..<256 : 0..<min(max(count, 1), 16)
        for i in range {
            let (cr, cg, cb) = rgb(of: i)
            let d = (cr - r) * (cr - r) + (cg - g) * (cg - g) + (cb - b) * (cb - b)
            if d < bestDistance { best = i; bestDistance = d }
        }
        return best
    }
}
