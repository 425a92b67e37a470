import Testing
@testable import TermUI

/// The constraint layout: a table of constraints, room and the lengths they give, then the
/// invariants over generated constraints and rectangles.
@Suite struct SplitTests {
    struct Case: CustomStringConvertible, Sendable {
        let constraints: [Constraint]
        let room: Int
        let spacing: Int
        let lengths: [Int]
        var description: String { "\(constraints) in \(room) (spacing \(spacing))" }
    }

    static let table: [Case] = [
        // A header, a body that takes the rest, a status bar (the app's frame).
        Case(constraints: [.length(1), .fill(1), .length(1)], room: 24, spacing: 0, lengths: [1, 22, 1]),
        // Fills share by weight; the remainder goes to the first.
        Case(constraints: [.fill(1), .fill(2)], room: 10, spacing: 0, lengths: [4, 6]),
        Case(constraints: [.fill(1), .fill(1), .fill(1)], room: 10, spacing: 0, lengths: [4, 3, 3]),
        Case(constraints: [.fill(0), .fill(0)], room: 5, spacing: 0, lengths: [3, 2]),
        // Percentages and ratios of the room after spacing.
        Case(constraints: [.percentage(30), .fill(1)], room: 100, spacing: 0, lengths: [30, 70]),
        Case(constraints: [.percentage(50), .percentage(50)], room: 11, spacing: 1, lengths: [5, 5]),
        Case(constraints: [.ratio(1, 3), .ratio(2, 3)], room: 9, spacing: 0, lengths: [3, 6]),
        // Without a fill, minimums and maximums take what is left; a maximum stops at its cap.
        Case(constraints: [.length(10), .min(5)], room: 30, spacing: 0, lengths: [10, 20]),
        Case(constraints: [.max(4), .min(0)], room: 10, spacing: 0, lengths: [4, 6]),
        Case(constraints: [.max(3), .max(3)], room: 10, spacing: 0, lengths: [3, 3]),
        Case(constraints: [.length(2), .length(2)], room: 10, spacing: 0, lengths: [2, 2]),
        // Too little room: the last parts give back first, minimums after lengths.
        Case(constraints: [.length(5), .length(5)], room: 7, spacing: 0, lengths: [5, 2]),
        Case(constraints: [.min(4), .length(5)], room: 6, spacing: 0, lengths: [4, 2]),
        Case(constraints: [.min(4), .length(5)], room: 3, spacing: 0, lengths: [3, 0]),
        Case(constraints: [.length(3), .length(3)], room: 4, spacing: 2, lengths: [2, 0]),
        // Nothing at all.
        Case(constraints: [.length(3), .fill(1)], room: 0, spacing: 0, lengths: [0, 0]),
        Case(constraints: [], room: 10, spacing: 0, lengths: []),
        // Out-of-range values are clamped, never trapped on.
        Case(constraints: [.length(-3), .percentage(250), .ratio(1, 0)], room: 10, spacing: 0, lengths: [0, 10, 0]),
    ]

    @Test(arguments: table) func lengths(_ row: Case) {
        #expect(Split(.horizontal, row.constraints, spacing: row.spacing).lengths(row.room) == row.lengths)
    }

    @Test func splitPlacesThePartsInOrderWithSpacing() {
        let rect = Rect(x: 2, y: 3, width: 20, height: 6)
        let parts = Split.horizontal([.length(5), .fill(1), .length(4)], spacing: 1).split(rect)
        #expect(parts == [Rect(x: 2, y: 3, width: 5, height: 6), Rect(x: 8, y: 3, width: 9, height: 6),
                          Rect(x: 18, y: 3, width: 4, height: 6)])
        let rows = Split.vertical([.length(1), .fill(1), .length(1)]).split(rect)
        #expect(rows == [Rect(x: 2, y: 3, width: 20, height: 1), Rect(x: 2, y: 4, width: 20, height: 4),
                         Rect(x: 2, y: 8, width: 20, height: 1)])
    }

    /// Every split of every generated rectangle: inside it, in order, without overlap, the parts
    /// and spacing never longer than the rectangle; with a fill, the whole room used.
    @Test func theInvariantsHoldForGeneratedSplits() {
        var random = SplitMix64(seed: 0x5EED)
        for _ in 0..<3_000 {
            let count = Int(random.next() % 6)
            let constraints: [Constraint] = (0..<count).map { _ in
                let n = Int(random.next() % 40) - 5
                switch random.next() % 6 {
                case 0: return .length(n)
                case 1: return .min(n)
                case 2: return .max(n)
                case 3: return .percentage(n * 3)
                case 4: return .ratio(Int(random.next() % 5), Int(random.next() % 5))
                default: return .fill(Int(random.next() % 4))
                }
            }
            let spacing = Int(random.next() % 3)
            let rect = Rect(x: Int(random.next() % 10), y: Int(random.next() % 10),
                            width: Int(random.next() % 120), height: Int(random.next() % 50))
            let split = Split(random.next() % 2 == 0 ? .horizontal : .vertical, constraints, spacing: spacing)
            let parts = split.split(rect)
            #expect(parts.count == constraints.count)
            var previousEnd = split.direction == .horizontal ? rect.x : rect.y
            for (index, part) in parts.enumerated() {
                #expect(part.intersection(rect) == part || part.isEmpty, "\(constraints) \(rect): \(part) outside")
                let (start, end) = split.direction == .horizontal ? (part.x, part.maxX) : (part.y, part.maxY)
                #expect(start >= previousEnd || part.isEmpty && start >= previousEnd - spacing,
                        "\(constraints) \(rect): part \(index) overlaps")
                previousEnd = end
            }
            let room = split.direction == .horizontal ? rect.width : rect.height
            let inside = max(0, room - spacing * max(0, count - 1))
            let used = split.lengths(room).reduce(0, +)
            #expect(used <= inside, "\(constraints) in \(room): \(used) used")
            if constraints.contains(where: { if case .fill = $0 { true } else { false } }) {
                #expect(used == inside, "\(constraints) in \(room): a fill leaves \(inside - used) unused")
            }
        }
    }
}
