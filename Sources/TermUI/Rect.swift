/// A rectangle of cells. Splits never produce negative sizes.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var description: String { "Rect(x: \(x), y: \(y), width: \(width), height: \(height))" }

    public func contains(x px: Int, y py: Int) -> Bool {
        px >= x && px < maxX && py >= y && py < maxY
    }

    /// The part both rectangles cover (empty when they do not meet).
    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Shrunk by `dx` columns on the left and right and `dy` rows at the top and bottom.
    public func inset(dx: Int, dy: Int) -> Rect {
        Rect(x: x + dx, y: y + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    /// Shrunk by `amount` on every side (a border of one cell: `inset(1)`).
    public func inset(_ amount: Int) -> Rect { inset(dx: amount, dy: amount) }

    /// Left part `leftWidth` wide (clamped), a `gap`, and the rest.
    public func splitHorizontally(leftWidth: Int, gap: Int = 0) -> (left: Rect, right: Rect) {
        let lw = min(max(0, leftWidth), width)
        let rx = min(x + lw + max(0, gap), maxX)
        return (Rect(x: x, y: y, width: lw, height: height),
                Rect(x: rx, y: y, width: maxX - rx, height: height))
    }

    /// Top part `topHeight` high (clamped), a `gap`, and the rest.
    public func splitVertically(topHeight: Int, gap: Int = 0) -> (top: Rect, bottom: Rect) {
        let th = min(max(0, topHeight), height)
        let by = min(y + th + max(0, gap), maxY)
        return (Rect(x: x, y: y, width: width, height: th),
                Rect(x: x, y: by, width: width, height: maxY - by))
    }

    /// The first `n` rows.
    public func top(_ n: Int) -> Rect { splitVertically(topHeight: n).top }

    /// The last `n` rows.
    public func bottom(_ n: Int) -> Rect {
        let h = min(max(0, n), height)
        return Rect(x: x, y: maxY - h, width: width, height: h)
    }

    /// Row `i` as a one-row rectangle.
    public func row(_ i: Int) -> Rect { Rect(x: x, y: y + i, width: width, height: i < height ? 1 : 0) }

    /// Each row as a one-row rectangle, top to bottom.
    public var rows: [Rect] { (0..<height).map { row($0) } }

    /// A `width`×`height` rectangle centred in this one (clamped to fit).
    public func centered(width w: Int, height h: Int) -> Rect {
        let cw = min(max(0, w), width), ch = min(max(0, h), height)
        return Rect(x: x + (width - cw) / 2, y: y + (height - ch) / 2, width: cw, height: ch)
    }
}
