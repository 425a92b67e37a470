/// How long one part of a split is along the split's direction (ratatui's `Constraint`).
public enum Constraint: Equatable, Sendable {
    /// Exactly this many cells, when there is room.
    case length(Int)
    /// At least this many cells; takes what is left when no part fills.
    case min(Int)
    /// At most this many cells; takes what is left up to it when no part fills.
    case max(Int)
    /// This share of the room, in percent (rounded down).
    case percentage(Int)
    /// This share of the room, `numerator / denominator` (rounded down).
    case ratio(Int, Int)
    /// What is left after the others, shared among the fills by weight.
    case fill(Int)
}

/// A rectangle split into parts along one direction by constraints (ratatui's `Layout`), so screens say what they
/// want (a header of 5 rows, a list that takes the rest, a column of 30% no narrower than 20)
/// instead of computing `Rect(x:…)` by hand. The rules, in order:
/// 1. Each part starts at its base: a length, a minimum, a percentage or a ratio of the room
///    (after `spacing` between parts); a maximum and a fill start at nothing.
/// 2. When the bases do not fit, parts give back from the last one towards the first, first
///    lengths, percentages and ratios, then minimums; no part goes below zero.
/// 3. What is left goes to the fills by weight (the remainder of the division to the first
///    fills); with no fill, to the minimums and maximums in equal shares, a maximum never past
///    its cap; what nobody takes stays empty at the end.
/// Parts never overlap, never reach outside the rectangle, and keep their order.
public struct Split: Equatable, Sendable {
    public enum Direction: Equatable, Sendable { case horizontal, vertical }

    public var direction: Direction
    public var constraints: [Constraint]
    /// Cells between neighbouring parts.
    public var spacing: Int

    public init(_ direction: Direction, _ constraints: [Constraint], spacing: Int = 0) {
        self.direction = direction
        self.constraints = constraints
        self.spacing = Swift.max(0, spacing)
    }

    public static func vertical(_ constraints: [Constraint], spacing: Int = 0) -> Split {
        Split(.vertical, constraints, spacing: spacing)
    }

    public static func horizontal(_ constraints: [Constraint], spacing: Int = 0) -> Split {
        Split(.horizontal, constraints, spacing: spacing)
    }

    /// The lengths of the parts in `available` cells.
    public func lengths(_ available: Int) -> [Int] {
        let count = constraints.count
        guard count > 0 else { return [] }
        let room = Swift.max(0, Swift.max(0, available) - spacing * (count - 1))
        var sizes = constraints.map { constraint -> Int in
            switch constraint {
            case .length(let n), .min(let n): Swift.max(0, n)
            case .percentage(let p): room * Swift.min(Swift.max(0, p), 100) / 100
            case .ratio(let a, let b): b <= 0 ? 0 : room * Swift.min(Swift.max(0, a), b) / b
            case .max, .fill: 0
            }
        }
        var over = sizes.reduce(0, +) - room
        if over > 0 {
            // Give back: lengths, percentages and ratios first, then minimums, last part first.
            for pass in 0..<2 {
                for index in sizes.indices.reversed() where over > 0 {
                    let isMinimum: Bool = if case .min = constraints[index] { true } else { false }
                    guard isMinimum == (pass == 1) else { continue }
                    let given = Swift.min(sizes[index], over)
                    sizes[index] -= given
                    over -= given
                }
            }
            return sizes
        }
        var left = -over
        let fills = constraints.indices.compactMap { index -> (Int, Int)? in
            if case .fill(let weight) = constraints[index] { return (index, Swift.max(0, weight)) }
            return nil
        }
        if !fills.isEmpty {
            let total = fills.reduce(0) { $0 + $1.1 }
            if total == 0 {
                for (offset, fill) in fills.enumerated() { sizes[fill.0] = left / fills.count + (offset < left % fills.count ? 1 : 0) }
            } else {
                var given = 0
                for fill in fills {
                    sizes[fill.0] = left * fill.1 / total
                    given += sizes[fill.0]
                }
                for fill in fills where given < left && fill.1 > 0 {
                    sizes[fill.0] += 1
                    given += 1
                }
            }
            return sizes
        }
        // No fill: minimums and maximums share what is left, a maximum up to its cap.
        var growing = constraints.indices.filter { index in
            switch constraints[index] {
            case .min: true
            case .max(let cap): cap > 0
            default: false
            }
        }
        while left > 0 && !growing.isEmpty {
            let share = Swift.max(1, left / growing.count)
            var next: [Int] = []
            for index in growing where left > 0 {
                var step = Swift.min(share, left)
                if case .max(let cap) = constraints[index] { step = Swift.min(step, cap - sizes[index]) }
                sizes[index] += step
                left -= step
                let capped: Bool = if case .max(let cap) = constraints[index] { sizes[index] >= cap } else { false }
                if !capped { next.append(index) }
            }
            growing = next
        }
        return sizes
    }

    /// The parts of `rect`, in order.
    public func split(_ rect: Rect) -> [Rect] {
        let horizontal = direction == .horizontal
        let sizes = lengths(horizontal ? rect.width : rect.height)
        var position = horizontal ? rect.x : rect.y
        let end = horizontal ? rect.maxX : rect.maxY
        return sizes.map { size in
            let start = Swift.min(position, end)
            let length = Swift.min(size, end - start)
            position = start + length + spacing
            return horizontal ? Rect(x: start, y: rect.y, width: length, height: rect.height)
                              : Rect(x: rect.x, y: start, width: rect.width, height: length)
        }
    }
}

extension Rect {
    /// The rectangle cut into rows by `constraints` (`Split.vertical`).
    public func rows(_ constraints: [Constraint], spacing: Int = 0) -> [Rect] {
        Split.vertical(constraints, spacing: spacing).split(self)
    }

    /// The rectangle cut into columns by `constraints` (`Split.horizontal`).
    public func columns(_ constraints: [Constraint], spacing: Int = 0) -> [Rect] {
        Split.horizontal(constraints, spacing: spacing).split(self)
    }
}
