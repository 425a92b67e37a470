import FeedModel
import Foundation

/// What screens work out from the stores, worked out once per change of what it comes from
/// (the stores' `version`s), not once per key or frame: the People tab's everyone-and-their-sums
/// over every loaded activity and feed, and a goal's feed's labels of what the rules moved. A memo: it answers what working it out again would, so
/// reading it while drawing changes nothing a screen or store shows.
@MainActor
final class DerivedData {
    private struct PeopleKey: Equatable {
        let goals: Int
        let feed: Int
        let currency: Currency
        /// The minute: the "saved" column counts a window that ends now.
        let minute: Int
    }

    private struct LabelsKey: Equatable {
        let goal: GoalID
        let goals: Int
        let transfers: Int
    }

    private var people: (key: PeopleKey, value: [Person])?
    private var labels: (key: LabelsKey, value: [String: String])?
    /// How many times a goal's rule labels were worked out (for tests).
    private(set) var labelComputations = 0
    /// How many times the people were worked out (for tests).
    private(set) var peopleComputations = 0

    func people(_ data: ScreenData) -> [Person] {
        let now = data.format.currentDate
        let key = PeopleKey(goals: data.goals.version, feed: data.feed.version, currency: data.currency,
                            minute: Int((now.timeIntervalSince1970 / 60).rounded(.down)))
        if let people, people.key == key { return people.value }
        let value = PeopleRoster.people(goals: data.goals.goals, feeds: { PeopleData.feed($0, data) }, activities: data.feed.activities,
                                        currency: data.currency, now: now)
        people = (key, value)
        peopleComputations += 1
        return value
    }

    /// What each of the goal's feed items was moved by, named from the rules' records
    /// (`RuleMoves.labels`), by feed item id.
    func ruleLabels(goal: GoalID, _ data: ScreenData) -> [String: String] {
        guard let rules = data.rules, !rules.transfers.isEmpty else { return [:] }
        let key = LabelsKey(goal: goal, goals: data.goals.version, transfers: rules.transfersVersion)
        if let labels, labels.key == key { return labels.value }
        let value = RuleMoves.labels(goal: goal, items: data.goals.feed(for: goal).entries.map(\.item), transfers: rules.transfers)
        labels = (key, value)
        labelComputations += 1
        return value
    }
}
