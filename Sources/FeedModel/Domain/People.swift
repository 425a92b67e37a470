import Foundation

/// A person the app knows of: an owner of a goal, someone a goal is shared with, or someone
/// in the loaded activity, with what they share with you and what they saved lately.
public struct Person: Hashable, Sendable {
    public let id: Int
    /// The goals they own or are connected to, in the goal list's order.
    public var goalIds: [GoalID]
    /// What they put into those goals in the last 30 days (goal feeds; the account's currency).
    public var saved: Money
    /// How many savings make up `saved`.
    public var savingsCount: Int
    /// Whether `saved` is known: every feed of their goals is in; or some still loading (`…`);
    /// or some not available (failed, nothing kept offline: `—`). Only a known sum is drawn.
    public var savedState: Availability
    public var savedIsComplete: Bool { savedState == .known }
    /// They own every goal: the account holder ("you").
    public var isHolder: Bool
}

/// Whether a sum's data is in: drawn as the amount, `…` or `—`.
public enum Availability: Hashable, Sendable {
    case known
    case loading
    /// Failed, with nothing kept to show (offline without a cache): not known until it loads.
    case unavailable

    /// The state of a sum over several parts: unavailable if any part is, else loading if any is.
    public static func combined(_ parts: some Sequence<Availability>) -> Availability {
        var result = Availability.known
        for part in parts {
            if part == .unavailable { return .unavailable }
            if part == .loading { result = .loading }
        }
        return result
    }
}

/// One of a person's savings into a goal, or one of their entries in the account's activity.
public enum PersonEvent: Hashable, Sendable {
    case saving(goalId: GoalID, item: FeedItem)
    case activity(Activity)

    public var timestamp: Date {
        switch self {
        case .saving(_, let item): item.timestamp
        case .activity(let activity): activity.timestamp
        }
    }
}

/// Who the app knows, worked out from what is loaded (goals, their feeds, the activity); pure.
public enum PeopleRoster {
    /// "Saved lately" covers the last 30 days.
    public static let savedWindow: TimeInterval = 30 * 86_400

    /// The owner of every goal, if one person owns them all (the account holder: "you").
    public static func holder(of goals: [Goal]) -> Int? {
        guard let first = goals.first?.ownerId, goals.allSatisfy({ $0.ownerId == first }) else { return nil }
        return first
    }

    /// Everyone: the holder first, then by id. `feeds` answers a goal's feed and whether it is in.
    public static func people(goals: [Goal], feeds: (GoalID) -> (items: [FeedItem], state: Availability), activities: [Activity],
                              currency: Currency, now: Date) -> [Person] {
        var ids = Set<Int>()
        var goalIds: [Int: [GoalID]] = [:]
        for goal in goals {
            for id in [goal.ownerId] + goal.connectedUserIds where goalIds[id]?.last != goal.id {
                goalIds[id, default: []].append(goal.id)
                ids.insert(id)
            }
        }
        for activity in activities { ids.insert(activity.userId) }
        var saved: [Int: Int64] = [:]
        var counts: [Int: Int] = [:]
        var states: [GoalID: Availability] = [:]
        let since = now.addingTimeInterval(-savedWindow)
        for goal in goals {
            let feed = feeds(goal.id)
            states[goal.id] = feed.state
            for item in feed.items where item.timestamp >= since && item.timestamp <= now && item.amount.currency == currency
                && !item.isVoid {
                saved[item.userId, default: 0] = Money.add(saved[item.userId, default: 0], item.amount.minorUnits)
                counts[item.userId, default: 0] += 1
                ids.insert(item.userId)
            }
        }
        let holder = holder(of: goals)
        return ids.sorted { ($0 == holder ? 0 : 1, $0) < ($1 == holder ? 0 : 1, $1) }.map { id in
            let theirs = goalIds[id] ?? []
            return Person(id: id, goalIds: theirs, saved: Money(minorUnits: saved[id] ?? 0, currency: currency),
                          savingsCount: counts[id] ?? 0, savedState: .combined(theirs.map { states[$0] ?? .loading }),
                          isHolder: id == holder)
        }
    }

    /// A person's savings into any goal and their activity, newest first. An activity that is
    /// one of the savings listed (same amount, same second) is listed once, as the saving.
    public static func events(of id: Int, goals: [Goal], feeds: (GoalID) -> [FeedItem], activities: [Activity],
                              limit: Int = 200) -> [PersonEvent] {
        struct Key: Hashable { let minorUnits: Int64; let second: Int64 }
        func key(_ amount: Money, _ date: Date) -> Key {
            Key(minorUnits: amount.minorUnits, second: Int64(date.timeIntervalSince1970.rounded(.down)))
        }
        var events: [PersonEvent] = []
        var savings: [Key: Int] = [:]
        for goal in goals {
            for item in feeds(goal.id) where item.userId == id {
                events.append(.saving(goalId: goal.id, item: item))
                savings[key(item.amount, item.timestamp), default: 0] += 1
            }
        }
        for activity in activities where activity.userId == id {
            let key = key(activity.amount, activity.timestamp)
            if let count = savings[key], count > 0 {
                savings[key] = count - 1
                continue
            }
            events.append(.activity(activity))
        }
        events.sort { $0.timestamp > $1.timestamp }
        return Array(events.prefix(limit))
    }
}
