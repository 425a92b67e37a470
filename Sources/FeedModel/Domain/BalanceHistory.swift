import Foundation

/// A goal's balance over time, rebuilt from its feed, exact in minor units.
///
/// The newest balance is the goal's current balance; walking the feed back from it, each item's
/// amount is taken off again. A saving (a positive amount) made the balance rise, so before it
/// the balance was lower; a withdrawal (a negative amount, money moved out of the goal) made it
/// fall, so before it the balance was higher. Items in another currency than the balance are
/// left out (counted in `skipped`), and sums saturate rather than overflow.
public struct BalanceHistory: Hashable, Sendable {
    /// The balance just after the feed item at `date` (and everything before it).
    public struct Point: Hashable, Sendable {
        public let date: Date
        public let balance: Money
    }

    public let current: Money
    /// The balance before the oldest item: zero when the feed holds the goal's whole history,
    /// something else when it does not (or when the server's balance and feed disagree).
    public let opening: Money
    /// One point per item, oldest first.
    public let points: [Point]
    /// Items left out because they were in another currency.
    public let skipped: Int

    public init(current: Money, feed: [FeedItem]) {
        let currency = current.currency
        // What moved nothing (declined, reversed) never changed the balance: no point for it.
        let usable = feed.enumerated().filter { $0.element.amount.currency == currency && !$0.element.isVoid }
        // Newest first; items at the same moment keep their feed order (the feed is newest first).
        let newestFirst = usable.sorted { $0.element.timestamp != $1.element.timestamp
            ? $0.element.timestamp > $1.element.timestamp : $0.offset < $1.offset }.map(\.element)
        var balance = current.minorUnits
        var points: [Point] = []
        points.reserveCapacity(newestFirst.count)
        for item in newestFirst {
            points.append(Point(date: item.timestamp, balance: Money(minorUnits: balance, currency: currency)))
            balance = Self.saturating(balance, minus: item.amount.minorUnits)
        }
        self.current = current
        opening = Money(minorUnits: balance, currency: currency)
        self.points = points.reversed()
        skipped = feed.filter { $0.amount.currency != currency }.count
    }

    public var isEmpty: Bool { points.isEmpty }
    public var first: Date? { points.first?.date }

    /// The balance once everything dated at or before `date` happened.
    public func balance(at date: Date) -> Money {
        // The last point at or before `date`, by binary search.
        var low = 0, high = points.count
        while low < high {
            let middle = (low + high) / 2
            if points[middle].date <= date { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? opening : points[low - 1].balance
    }

    /// The balance at `count` moments spread evenly from `from` to `to` (both included), for a
    /// chart's columns.
    public func samples(from: Date, to: Date, count: Int) -> [Money] {
        guard count > 0 else { return [] }
        guard count > 1 else { return [balance(at: to)] }
        let span = to.timeIntervalSince(from)
        return (0..<count).map { index in
            index == count - 1 ? balance(at: to) : balance(at: from.addingTimeInterval(span * Double(index) / Double(count - 1)))
        }
    }

    /// The lowest and highest balance the history passes through (the opening one included).
    public var range: ClosedRange<Int64> {
        var low = opening.minorUnits, high = opening.minorUnits
        for point in points {
            low = min(low, point.balance.minorUnits)
            high = max(high, point.balance.minorUnits)
        }
        return low...high
    }

    static func saturating(_ value: Int64, minus other: Int64) -> Int64 {
        let (result, overflow) = value.subtractingReportingOverflow(other)
        guard overflow else { return result }
        return other > 0 ? .min : .max
    }

    static func saturating(_ value: Int64, plus other: Int64) -> Int64 { Money.add(value, other) }
}
