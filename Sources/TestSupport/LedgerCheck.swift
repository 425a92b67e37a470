import FeedModel
import Foundation

/// The demo's ledger identities (issue 27), checked over whatever a source answered: every
/// activity that names a goal is one of that goal's savings and every saving is an activity,
/// every balance is the sum of its savings, and people save only into goals shared with them.
public enum LedgerCheck {
    /// The goal an activity is a saving into: the last bold run of a message that says "into".
    public static func goalName(of activity: Activity) -> String? {
        guard activity.message.plainText.contains(" into ") else { return nil }
        return activity.message.runs.last(where: \.isBold)?.text
    }

    /// A saving as both sides can name it: goal, person, amount, second.
    struct Entry: Hashable, CustomStringConvertible {
        let goal: String
        let userId: Int
        let minorUnits: Int64
        let second: Int64
        var description: String { "\(goal) · user \(userId) · \(minorUnits) · \(second)" }
    }

    /// Every broken identity, one line each (empty when the ledger holds).
    public static func problems(goals: [Goal], feeds: [GoalID: [FeedItem]], activities: [Activity], currency: Currency) -> [String] {
        var problems: [String] = []
        var fromFeeds: [Entry: Int] = [:]
        for goal in goals {
            let items = feeds[goal.id] ?? []
            var sum: Int64 = 0
            for item in items {
                if item.amount.currency != currency { problems.append("\(goal.name): a saving in \(item.amount.currency)") }
                let (added, overflow) = sum.addingReportingOverflow(item.amount.minorUnits)
                if overflow { problems.append("\(goal.name): savings overflow") }
                sum = added
                if item.userId != goal.ownerId && !goal.connectedUserIds.contains(item.userId) {
                    problems.append("\(goal.name): user \(item.userId) saved into a goal not shared with them")
                }
                fromFeeds[entry(goal.name, item.userId, item.amount, item.timestamp), default: 0] += 1
            }
            if sum != goal.balance.minorUnits { problems.append("\(goal.name): savings add up to \(sum), balance \(goal.balance.minorUnits)") }
        }
        var fromActivity: [Entry: Int] = [:]
        for activity in activities {
            guard let name = goalName(of: activity) else {
                problems.append("an activity that names no goal: \(activity.message.plainText)")
                continue
            }
            guard goals.contains(where: { $0.name == name }) else {
                problems.append("an activity names \(name), which is no goal")
                continue
            }
            fromActivity[entry(name, activity.userId, activity.amount, activity.timestamp), default: 0] += 1
        }
        for (entry, count) in fromActivity where fromFeeds[entry] != count {
            problems.append("activity \(entry) ×\(count) is ×\(fromFeeds[entry] ?? 0) in the goal's savings")
        }
        for (entry, count) in fromFeeds where fromActivity[entry] != count {
            problems.append("saving \(entry) ×\(count) is ×\(fromActivity[entry] ?? 0) in the activity")
        }
        return problems.sorted()
    }

    private static func entry(_ goal: String, _ userId: Int, _ amount: Money, _ date: Date) -> Entry {
        Entry(goal: goal, userId: userId, minorUnits: amount.minorUnits, second: Int64(date.timeIntervalSince1970.rounded(.down)))
    }
}
