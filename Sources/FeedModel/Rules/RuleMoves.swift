import Foundation

/// Which activities are the transfers a savings rule made, from the records the settlement kept
/// (the bank says nothing of rules): a transfer matches a move into the same goal of the same
/// amount dated from the day before it was started to a week after (a bank books it the next
/// working day), the nearest in time; each transfer matches one move. Only transfers that name
/// their rule (`SavedRoundUp.rule`) and have an answer count.
public struct RuleMoves: Sendable {
    private var free: [SavedRoundUp]

    /// How far after a transfer started its move may be dated.
    public static let window: TimeInterval = 7 * 86_400

    public init(transfers: [SavedRoundUp]) {
        free = transfers.filter { $0.rule != nil && $0.isDone }
    }

    public var isEmpty: Bool { free.isEmpty }

    /// The rule whose transfer `activity` (money into `goal`) is, taken so no other move matches it.
    public mutating func rule(of activity: Activity, goal: GoalID?) -> String? {
        guard let saved = activity.saved, let goal else { return nil }
        return transfer(into: goal, amount: saved, at: activity.timestamp)?.rule
    }

    /// The recorded transfer of `amount` into `goal` that a move dated `date` is, taken so no
    /// other move matches it.
    public mutating func transfer(into goal: GoalID, amount: Money, at date: Date) -> SavedRoundUp? {
        let candidates = free.indices.filter { index in
            let part = free[index]
            let after = date.timeIntervalSince(part.startedAt)
            return part.goalId == goal && part.amount == amount && after >= -86_400 && after <= Self.window
        }
        guard let best = candidates.min(by: { abs(free[$0].startedAt.timeIntervalSince(date))
                                               < abs(free[$1].startedAt.timeIntervalSince(date)) }) else { return nil }
        return free.remove(at: best)
    }

    /// "coffee: 3 × £2.00" (a transfer that counted payments of one amount each), else "coffee".
    public static func label(_ part: SavedRoundUp) -> String {
        let name = part.rule ?? "rule"
        let count = Int64(part.payments.count)
        guard count > 1, part.amount.minorUnits % count == 0 else { return name }
        return name + ": \(count) × " + Money(minorUnits: part.amount.minorUnits / count, currency: part.amount.currency).formatted
    }

    /// The label of each item of a goal's feed that a rule's transfer made, by the item's id.
    public static func labels(goal: GoalID, items: [FeedItem], transfers: [SavedRoundUp]) -> [String: String] {
        var moves = RuleMoves(transfers: transfers)
        var labels: [String: String] = [:]
        for item in items.sorted(by: { $0.timestamp < $1.timestamp }) where item.amount.minorUnits > 0 {
            if let part = moves.transfer(into: goal, amount: item.amount, at: item.timestamp) { labels[item.id] = label(part) }
        }
        return labels
    }
}
