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
        let candidates = free.indices.filter { index in
            let part = free[index]
            let after = activity.timestamp.timeIntervalSince(part.startedAt)
            return part.goalId == goal && part.amount == saved && after >= -86_400 && after <= Self.window
        }
        guard let best = candidates.min(by: { abs(free[$0].startedAt.timeIntervalSince(activity.timestamp))
                                               < abs(free[$1].startedAt.timeIntervalSince(activity.timestamp)) }) else { return nil }
        return free.remove(at: best).rule
    }
}
