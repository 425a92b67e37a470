import Foundation
import Testing
@testable import FeedModel

private func usd(_ cents: Int64) -> Money { Money(minorUnits: cents, currency: .usd) }
private func at(_ text: String) -> Date { Timestamp.parse(text)! }
private let stockholm = Week.calendar(in: TimeZone(identifier: "Europe/Stockholm")!)
private func saving(_ cents: Int64, _ when: String, _ currency: Currency = .usd) -> FeedItem {
    FeedItem(id: "\(cents)@\(when)", timestamp: at(when), message: MarkupText(parsing: "saved"),
             amount: Money(minorUnits: cents, currency: currency), userId: 1)
}

/// Balances rebuilt from a feed: the newest is the goal's balance, each item walked back.
@Suite struct BalanceHistoryTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let current: Int64
        let feed: [FeedItem]
        let opening: Int64
        /// (date, balance just after it), oldest first.
        let points: [(String, Int64)]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "empty feed: the balance throughout", current: 500, feed: [], opening: 500, points: []),
        Case(name: "a single saving from zero", current: 1_000, feed: [saving(1_000, "2026-11-20T10:00:00Z")],
             opening: 0, points: [("2026-11-20T10:00:00Z", 1_000)]),
        Case(name: "a withdrawal: the balance before it was higher", current: 1_000,
             feed: [saving(-300, "2026-11-20T10:00:00Z"), saving(500, "2026-11-10T10:00:00Z"), saving(800, "2026-11-01T10:00:00Z")],
             opening: 0, points: [("2026-11-01T10:00:00Z", 800), ("2026-11-10T10:00:00Z", 1_300), ("2026-11-20T10:00:00Z", 1_000)]),
        Case(name: "a feed out of order is sorted", current: 1_300,
             feed: [saving(800, "2026-11-01T10:00:00Z"), saving(500, "2026-11-10T10:00:00Z")],
             opening: 0, points: [("2026-11-01T10:00:00Z", 800), ("2026-11-10T10:00:00Z", 1_300)]),
        Case(name: "a feed that does not reach back to zero opens above it", current: 1_000,
             feed: [saving(300, "2026-11-20T10:00:00Z")], opening: 700, points: [("2026-11-20T10:00:00Z", 1_000)]),
        Case(name: "another currency is left out", current: 1_000,
             feed: [saving(300, "2026-11-20T10:00:00Z", .eur), saving(1_000, "2026-11-10T10:00:00Z")],
             opening: 0, points: [("2026-11-10T10:00:00Z", 1_000)]),
        Case(name: "a year end", current: 350,
             feed: [saving(100, "2027-01-01T00:00:00Z"), saving(250, "2026-12-31T23:59:59Z")],
             opening: 0, points: [("2026-12-31T23:59:59Z", 250), ("2027-01-01T00:00:00Z", 350)]),
    ]

    @Test(arguments: cases) func rebuildsTheBalance(_ test: Case) {
        let history = BalanceHistory(current: usd(test.current), feed: test.feed)
        #expect(history.opening == usd(test.opening))
        #expect(history.points.map(\.date) == test.points.map { at($0.0) })
        #expect(history.points.map(\.balance) == test.points.map { usd($0.1) })
        #expect(history.balance(at: .distantFuture) == usd(test.current))
        #expect(history.balance(at: .distantPast) == usd(test.opening))
    }

    @Test func balanceAtAMomentAndEvenSamples() {
        let history = BalanceHistory(current: usd(1_000), feed: [saving(-300, "2026-11-20T10:00:00Z"), saving(1_300, "2026-11-10T10:00:00Z")])
        #expect(history.balance(at: at("2026-11-10T09:59:59Z")) == usd(0))
        #expect(history.balance(at: at("2026-11-10T10:00:00Z")) == usd(1_300))
        #expect(history.balance(at: at("2026-11-20T10:00:00Z")) == usd(1_000))
        let samples = history.samples(from: at("2026-11-05T10:00:00Z"), to: at("2026-11-25T10:00:00Z"), count: 5)
        #expect(samples == [0, 1_300, 1_300, 1_000, 1_000].map(usd))
        #expect(history.range == 0...1_300)
        #expect(history.samples(from: .distantPast, to: .distantFuture, count: 1) == [usd(1_000)])
    }

    @Test func hugeAmountsSaturateInsteadOfOverflowing() {
        let history = BalanceHistory(current: usd(Int64.min + 10), feed: [saving(100_000_000_000_000_000, "2026-11-20T10:00:00Z")])
        #expect(history.opening == usd(Int64.min))
    }
}

/// Weekly sums from Monday 00:00 in the user's zone.
@Suite struct WeekTotalTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let entries: [(String, Int64)]
        let from: String
        let through: String
        /// (week start, total), oldest first.
        let weeks: [(String, Int64)]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "nothing: zero weeks", entries: [], from: "2026-11-17T12:00:00Z", through: "2026-11-20T12:00:00Z",
             weeks: [("2026-11-15T23:00:00Z", 0)]),
        Case(name: "DST ends in Stockholm (25 Oct 2026): the week is 169 hours",
             entries: [("2026-10-18T21:59:59Z", 1), ("2026-10-18T22:00:00Z", 10), ("2026-10-25T22:30:00Z", 100), ("2026-10-25T23:00:00Z", 1_000)],
             from: "2026-10-15T12:00:00Z", through: "2026-10-27T12:00:00Z",
             weeks: [("2026-10-11T22:00:00Z", 1), ("2026-10-18T22:00:00Z", 110), ("2026-10-25T23:00:00Z", 1_000)]),
        Case(name: "DST starts in Stockholm (29 Mar 2026): the week is 167 hours",
             entries: [("2026-03-22T23:00:00Z", 5), ("2026-03-29T21:30:00Z", 50), ("2026-03-29T22:00:00Z", 500)],
             from: "2026-03-25T12:00:00Z", through: "2026-03-31T12:00:00Z",
             weeks: [("2026-03-22T23:00:00Z", 55), ("2026-03-29T22:00:00Z", 500)]),
        Case(name: "a year end inside one week",
             entries: [("2026-12-27T22:59:00Z", 1), ("2026-12-27T23:30:00Z", 20), ("2026-12-31T12:00:00Z", 300), ("2027-01-01T12:00:00Z", 4_000)],
             from: "2026-12-30T12:00:00Z", through: "2027-01-02T12:00:00Z",
             weeks: [("2026-12-27T23:00:00Z", 4_320)]),
        Case(name: "withdrawals count against the week; outside the weeks is left out",
             entries: [("2026-11-17T12:00:00Z", 500), ("2026-11-18T12:00:00Z", -200), ("2026-12-01T12:00:00Z", 9_999)],
             from: "2026-11-10T12:00:00Z", through: "2026-11-20T12:00:00Z",
             weeks: [("2026-11-08T23:00:00Z", 0), ("2026-11-15T23:00:00Z", 300)]),
    ]

    @Test(arguments: cases) func sumsByWeek(_ test: Case) {
        let entries = test.entries.map { (date: at($0.0), amount: usd($0.1)) }
        let weeks = WeekTotal.weeks(entries, currency: .usd, calendar: stockholm, from: at(test.from), through: at(test.through))
        #expect(weeks.map(\.week.start) == test.weeks.map { at($0.0) })
        #expect(weeks.map(\.total) == test.weeks.map { usd($0.1) })
    }

    @Test func theLastTwelveWeeksOfRoundUpsEndWithTheCurrentWeek() {
        let now = at("2027-01-15T08:00:00Z")  // Fri, week of Mon 11 Jan 2027
        func payment(_ cents: Int64, _ when: String, currency: Currency = .usd, roundsUp: Bool = true) -> Transaction {
            Transaction(id: "\(cents)\(when)", timestamp: at(when), amount: Money(minorUnits: cents, currency: currency),
                        counterparty: "Shop", roundsUp: roundsUp)
        }
        let transactions = [
            payment(-435, "2027-01-12T10:00:00Z"), payment(-520, "2027-01-13T10:00:00Z"),  // 0.65 + 0.80
            payment(-1_230, "2027-01-13T11:00:00Z", currency: .eur),  // another currency: not saved
            payment(-199, "2027-01-13T12:00:00Z", roundsUp: false),  // the source's rule says no (Starling: declined)
            payment(250_000, "2027-01-14T09:00:00Z"),  // money in
            payment(-87, "2026-12-31T10:00:00Z"),  // 0.13, the week of 28 Dec
            payment(-1, "2026-10-20T10:00:00Z"),  // thirteen weeks back: left out
        ]
        let weeks = RoundUp.weeklyTotals(transactions, accountCurrency: .usd, calendar: stockholm, weeks: 12, through: now)
        #expect(weeks.count == 12)
        #expect(weeks.first?.week.start == at("2026-10-25T23:00:00Z"))
        #expect(weeks.last?.week.start == at("2027-01-10T23:00:00Z"))
        #expect(weeks.last?.total == usd(145))
        #expect(weeks[9].total == usd(13))
        #expect(weeks.map(\.total.minorUnits).reduce(0, +) == 158)
    }

    @Test func savedPerWeekOverActivitiesCountsMoneyIn() {
        func activity(_ cents: Int64, _ when: String) -> Activity {
            Activity(message: MarkupText(parsing: "x"), amount: usd(cents), userId: 1, timestamp: at(when))
        }
        let weeks = WeekTotal.saved([activity(500, "2026-11-17T12:00:00Z"), activity(-200, "2026-11-18T12:00:00Z"), activity(75, "2026-11-04T12:00:00Z")],
                                    currency: .usd, calendar: stockholm, now: at("2026-11-20T12:00:00Z"))
        #expect(weeks.map(\.total) == [75, 0, 500].map(usd))
        #expect(WeekTotal.saved([], currency: .usd, calendar: stockholm, now: .now).isEmpty)
    }

    @Test func anAbsurdSpanIsBounded() {
        let weeks = WeekTotal.weeks([], currency: .usd, calendar: stockholm, from: Date(timeIntervalSince1970: -62_135_596_800),
                                    through: at("2026-11-20T12:00:00Z"))
        #expect(weeks.count == WeekTotal.maximumWeeks)
    }
}

/// "At this pace": the average over the last eight weeks and the date the target is reached.
@Suite struct SavingPaceTests {
    static let now = "2027-01-15T08:00:00Z"

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let balance: Int64
        let target: Int64?
        let feed: [FeedItem]
        var now = SavingPaceTests.now
        let text: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "target reached", balance: 50_000, target: 50_000, feed: [saving(50_000, "2027-01-10T08:00:00Z")], text: "target reached"),
        Case(name: "past the target", balance: 125_050, target: 100_000, feed: [], text: "target reached"),
        Case(name: "nothing in the last eight weeks", balance: 1_000, target: 5_000,
             feed: [saving(1_000, "2026-11-20T08:00:00Z")], text: "no savings in the last 8 weeks"),
        Case(name: "a saving exactly 56 days ago is outside", balance: 1_000, target: 5_000,
             feed: [saving(1_000, "2026-11-20T08:00:00Z")], text: "no savings in the last 8 weeks"),
        Case(name: "one second later is inside", balance: 1_000, target: 5_000,
             feed: [saving(800, "2026-11-20T08:00:01Z")], text: "at $1.00 a week: 22 Oct 2027"),
        Case(name: "withdrawals cancel savings", balance: 1_000, target: 5_000,
             feed: [saving(-1_000, "2027-01-10T08:00:00Z"), saving(1_000, "2027-01-01T08:00:00Z")], text: "no savings in the last 8 weeks"),
        Case(name: "the issue's example", balance: 1_000, target: 5_000,
             feed: (0..<8).map { saving(4_210, "2027-01-\(String(format: "%02d", $0 + 2))T08:00:00Z") },
             text: "at $42.10 a week: 22 Jan 2027"),
        Case(name: "the average rounds down; the weeks round up", balance: 0, target: 250,
             feed: [saving(801, "2027-01-10T08:00:00Z")], text: "at $1.00 a week: 5 Feb 2027"),
        Case(name: "no target", balance: 800, target: nil, feed: [saving(800, "2027-01-10T08:00:00Z")], text: "at $1.00 a week · no target"),
        Case(name: "no target and no savings", balance: 0, target: nil, feed: [], text: "no savings in the last 8 weeks"),
        Case(name: "empty feed", balance: 0, target: 100, feed: [], text: "no savings in the last 8 weeks"),
        Case(name: "a year end and DST on the way (Stockholm)", balance: 0, target: 10_000,
             feed: [saving(800, "2026-12-31T23:30:00Z")], now: "2027-01-01T12:00:00Z", text: "at $1.00 a week: 1 Dec 2028"),
        Case(name: "more than a hundred years", balance: 0, target: 100_000_000, feed: [saving(8, "2027-01-10T08:00:00Z")],
             text: "at $0.01 a week: more than 100 years"),
    ]

    @Test(arguments: cases) func paceAndDate(_ test: Case) {
        let pace = SavingPace.of(balance: usd(test.balance), target: test.target.map(usd), feed: test.feed, now: at(test.now), calendar: stockholm)
        #expect(pace.text(calendar: stockholm) == test.text)
    }

    @Test func theProjectedDateKeepsTheLocalTimeAcrossDST() throws {
        // Fri 27 Mar 2026 13:00 CET; a week later it is 13:00 CEST, 11:00 UTC.
        let pace = SavingPace.of(balance: usd(0), target: usd(100), feed: [saving(800, "2026-03-20T12:00:00Z")],
                                 now: at("2026-03-27T12:00:00Z"), calendar: stockholm)
        #expect(pace == .projected(perWeek: usd(100), date: at("2026-04-03T11:00:00Z")))
    }
}

/// Saved per week takes only what went into goals (issue 27, item 6).
@Suite struct SavedPerWeekKindTests {
    @Test func onlySavingsAndMovesToGoalsCountNeverIncomeOrVoidRows() {
        let calendar = Week.calendar(in: TimeZone(identifier: "UTC")!)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let gbp = { (minor: Int64) in Money(minorUnits: minor, currency: .gbp) }
        let activities = [
            Activity(message: MarkupText(runs: []), amount: gbp(250_000), userId: 1, timestamp: now, kind: .other),      // salary
            Activity(message: MarkupText(runs: []), amount: gbp(-2_110), userId: 1, timestamp: now, kind: .void),        // reversed
            Activity(message: MarkupText(runs: []), amount: gbp(2_110), userId: 1, timestamp: now, kind: .void),         // declined refund
            Activity(message: MarkupText(runs: []), amount: gbp(-1_000), userId: 1, timestamp: now, kind: .other),       // a payment
            Activity(message: MarkupText(runs: []), amount: gbp(-500), userId: 1, timestamp: now, kind: .moveToGoal),    // into a goal
            Activity(message: MarkupText(runs: []), amount: gbp(158), userId: 1, timestamp: now, kind: .saving),         // Qapital
            Activity(message: MarkupText(runs: []), amount: gbp(-99), userId: 1, timestamp: now, kind: .saving),         // not a saving
        ]
        let weeks = WeekTotal.saved(activities, currency: .gbp, calendar: calendar, now: now)
        #expect(weeks.last?.total == gbp(658))
    }

    @Test func theKindSurvivesTheCacheAndAServerSendsNone() throws {
        let activity = Activity(message: MarkupText(parsing: "<strong>Dog</strong>"), amount: Money(minorUnits: -500, currency: .usd),
                                userId: 1, timestamp: Date(timeIntervalSince1970: 1_800_000_000), kind: .moveToGoal)
        let data = try JSONEncoder().encode(activity)
        let decoded = try PayloadDecoder().decode(Activity.self, from: data, resource: "cache activity")
        #expect(decoded.kind == .moveToGoal)
        #expect(!String(decoding: try JSONEncoder().encode(Activity(message: activity.message, amount: activity.amount, userId: 1,
                                                                      timestamp: activity.timestamp)), as: UTF8.self).contains("kind"))
        let plain = Data(#"{"message":"x","amount":1.5,"userId":2,"timestamp":"2026-11-08T10:00:00+00:00","kind":"<bogus>"}"#.utf8)
        #expect(try PayloadDecoder().decode(Activity.self, from: plain, resource: "activity").kind == .saving)
    }
}
