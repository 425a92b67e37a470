import Foundation

// libFuzzer entry: any bytes as every Qapital answer the app decodes, then every sum the screens
// draw over what decoded. Decoding may refuse the bytes (a MalformedPayload) or skip records; it
// must never crash, hang or take memory without bound, and no sum may trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPayloads(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let decoder = PayloadDecoder(accountCurrency: .usd, skipped: SkippedRecords())
    let goals = (try? decoder.decode(GoalList.self, from: data, resource: "GET /savingsgoals"))?.savingsGoals ?? []
    let feed = (try? decoder.decode(GoalFeed.self, from: data, resource: "GET /savingsgoals/1/feed"))?.feed ?? []
    _ = try? decoder.decode(RuleList.self, from: data, resource: "GET /savingsrules")
    _ = try? decoder.decode(UserResponse.self, from: data, resource: "GET /users/1")
    let activities = (try? decoder.decode(ActivityPage.self, from: data, resource: "GET /activities"))?.activities ?? []
    let transactions = (try? decoder.decode(TransactionList.self, from: data, resource: "GET /transactions"))?.transactions ?? []
    _ = try? decoder.decode(Goal.self, from: data, resource: "POST /savingsgoals")
    _ = try? AchievementsLoader.decode(data, name: "achievements.json")
    sum(goals: goals, feed: feed, activities: activities, transactions: transactions)
    return 0
}

private func sum(goals: [Goal], feed: [FeedItem], activities: [Activity], transactions: [Transaction]) {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    _ = RoundUp.Summary(transactions: transactions, accountCurrency: .usd).saveable
    _ = RoundUp.weeklyTotals(transactions, accountCurrency: .usd, calendar: calendar, weeks: 12, through: now)
    _ = WeekTotal.saved(activities, currency: .usd, calendar: calendar, now: now)
    _ = Money.sum(goals.map(\.balance.minorUnits))
    for goal in goals.prefix(4) {
        _ = goal.progress
        _ = BalanceHistory(current: goal.balance, feed: feed).samples(from: now.addingTimeInterval(-86_400 * 365), to: now, count: 40)
        _ = SavingPace.of(balance: goal.balance, target: goal.target, feed: feed, now: now, calendar: calendar)
    }
    _ = PeopleRoster.people(goals: goals, feeds: { _ in (feed, .known) }, activities: activities, currency: .usd, now: now)
}
