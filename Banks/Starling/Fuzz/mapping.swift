import FeedModel
import Foundation
import StarlingClient

// libFuzzer entry: a feed or goal list from either source, through the mapping into the model
// and every sum the screens draw (the long run behind docs/security.md's "10 million" figure;
// `payloads` and `starling` decode every resource, which costs five times more per input).
// The first byte picks the source and the resource; the rest is the answer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMapping(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let data = Data(bytes: bytes + 1, count: count - 1)
    let skipped = SkippedRecords()
    let currency: Currency = bytes[0] & 4 == 0 ? .gbp : .jpy
    let decoder = PayloadDecoder(accountCurrency: currency, skipped: skipped)
    switch bytes[0] & 3 {
    case 0:
        guard let feed = try? decoder.decode(Starling.FeedItems.self, from: data, resource: "feed") else { break }
        let items = feed.feedItems ?? []
        let name = { (item: Starling.FeedItem) in item.feedItemUid }
        sum(feed: skipped.mapEach(items, resource: "goal feed", name: name, StarlingMapping.goalFeedItem),
            activities: skipped.mapEach(items, resource: "activities", name: name, StarlingMapping.activity),
            transactions: skipped.mapEach(items, resource: "transactions", name: name, StarlingMapping.transaction),
            goals: [], currency: currency)
    case 1:
        guard let list = try? decoder.decode(Starling.SavingsGoalList.self, from: data, resource: "goals") else { break }
        let goals = skipped.mapEach(list.savingsGoalList ?? [], resource: "goals", name: { $0.savingsGoalUid }) { goal throws(MalformedPayload) in
            try StarlingMapping.goal(goal, currency: currency)
        }
        sum(feed: [], activities: [], transactions: [], goals: goals, currency: currency)
    case 2:
        let page = try? decoder.decode(ActivityPage.self, from: data, resource: "GET /activities")
        let transactions = try? decoder.decode(TransactionList.self, from: data, resource: "GET /transactions")
        sum(feed: [], activities: page?.activities ?? [], transactions: transactions?.transactions ?? [], goals: [], currency: currency)
    default:
        let goals = try? decoder.decode(GoalList.self, from: data, resource: "GET /savingsgoals")
        let feed = try? decoder.decode(GoalFeed.self, from: data, resource: "GET /savingsgoals/1/feed")
        sum(feed: feed?.feed ?? [], activities: [], transactions: [], goals: goals?.savingsGoals ?? [], currency: currency)
    }
    _ = skipped.drain()
    return 0
}

private func sum(feed: [FeedItem], activities: [Activity], transactions: [Transaction], goals: [Goal], currency: Currency) {
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    let summary = RoundUp.Summary(transactions: transactions, accountCurrency: currency)
    _ = summary.saveable.formatted
    _ = summary.otherTotals.map(\.formatted)
    let goal = goals.first ?? Goal(id: GoalID("g"), name: "g", ownerId: 1, target: Money(minorUnits: 100_000, currency: currency),
                                   balance: Money(minorUnits: Money.sum(feed.map(\.amount.minorUnits)), currency: currency))
    _ = goals.map { ($0.progress, $0.balance.formatted, $0.target?.formatted) }
    _ = Money.sum(goals.map(\.balance.minorUnits))
    _ = BalanceHistory(current: goal.balance, feed: feed).samples(from: now.addingTimeInterval(-86_400 * 365), to: now, count: 40)
    let people = PeopleRoster.people(goals: goals.isEmpty ? [goal] : goals, feeds: { _ in (feed, .known) }, activities: activities,
                                     currency: currency, now: now)
    _ = people.map(\.saved.formatted)
    _ = activities.map(\.amount.formatted)
}
