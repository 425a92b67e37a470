import FeedModel
import Foundation
import StarlingClient

// libFuzzer entry: any bytes as every Starling answer the app decodes (payloads of StarlingClient),
// then, for what decoded, the mapping into the model and every sum the screens draw: amounts at
// Int64's ends must be skipped and named there, never trap. Adding a resource is one line here.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStarling(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let skipped = SkippedRecords()
    let decoder = PayloadDecoder(accountCurrency: .gbp, skipped: skipped)
    _ = try? decoder.decode(Starling.AccountList.self, from: data, resource: "GET /api/v2/accounts")
    if let balance = try? decoder.decode(Starling.Balance.self, from: data, resource: "GET balance") {
        _ = try? balance.effectiveBalance?.money("effectiveBalance")
    }
    _ = try? decoder.decode(Starling.Identifiers.self, from: data, resource: "GET identifiers")
    _ = try? decoder.decode(Starling.HolderName.self, from: data, resource: "GET holder")
    if let list = try? decoder.decode(Starling.SavingsGoalList.self, from: data, resource: "GET savings-goals") {
        let goals = skipped.mapEach(list.savingsGoalList ?? [], resource: "goals", name: { $0.savingsGoalUid }) { goal throws(MalformedPayload) in
            try StarlingMapping.goal(goal, currency: .gbp)
        }
        _ = Money.sum(goals.map(\.balance.minorUnits))
        _ = goals.map { $0.progress }
    }
    _ = try? decoder.decode(Starling.Photo.self, from: data, resource: "GET photo")
    if let feed = try? decoder.decode(Starling.FeedItems.self, from: data, resource: "GET transactions-between") {
        mapAndSum(feed.feedItems ?? [], skipped)
    }
    _ = try? decoder.decode(Starling.CreateGoalResponse.self, from: data, resource: "PUT savings-goals")
    _ = try? decoder.decode(Starling.TransferResponse.self, from: data, resource: "PUT add-money")
    _ = try? decoder.decode(Starling.ErrorBody.self, from: data, resource: "error")
    _ = skipped.drain()
    return 0
}

/// The feed as each screen reads it: activities, payments and their round-ups, a goal's feed,
/// its balance history, twelve weeks of round-ups and everyone's sums. (The saved-per-week
/// sparkline and the pace use the same saturating sums over calendar weeks; left out here, as
/// their calendar arithmetic costs more than the rest together and bounds nothing new.)
private func mapAndSum(_ items: [Starling.FeedItem], _ skipped: SkippedRecords) {
    let name = { (item: Starling.FeedItem) in item.feedItemUid }
    let activities = skipped.mapEach(items, resource: "activities", name: name, StarlingMapping.activity)
    let transactions = skipped.mapEach(items, resource: "transactions", name: name, StarlingMapping.transaction)
    let feed = skipped.mapEach(items, resource: "goal feed", name: name, StarlingMapping.goalFeedItem)
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    _ = RoundUp.Summary(transactions: transactions, accountCurrency: .gbp).saveable
    _ = RoundUp.weeklyTotals(transactions, accountCurrency: .gbp, calendar: calendar, weeks: 12, through: now)
    let goal = Goal(id: GoalID("g"), name: "g", ownerId: 1, target: Money(minorUnits: 100_000, currency: .gbp),
                    balance: Money(minorUnits: Money.sum(feed.map(\.amount.minorUnits)), currency: .gbp))
    let history = BalanceHistory(current: goal.balance, feed: feed)
    _ = history.samples(from: now.addingTimeInterval(-86_400 * 365), to: now, count: 40)
    _ = PeopleRoster.people(goals: [goal], feeds: { _ in (feed, .known) }, activities: activities, currency: .gbp, now: now)
    _ = activities.map { $0.amount.formatted }
}
