import FeedModel
import Foundation

/// The demo's own savings rules, one of each kind on the demo's goals and payments, so a new
/// user sees every kind with figures (RULES.md). Never written to the user's rules file: a file
/// of their own, when there is one, is read instead.
public enum DemoRules {
    /// The rules in the demo's `currency`; the 52-week challenge starts on the first Monday of
    /// `now`'s year in `calendar`. Each owes from last week on (`since`), so last week is due.
    public static func file(currency: Currency, calendar: Calendar, now: Date) -> RulesFile {
        let scale = DemoScale(currency: currency)
        func money(_ cents: Int64) -> Money { Money(minorUnits: scale.minor(cents), currency: currency) }
        let year = calendar.component(.year, from: now)
        let newYear = calendar.date(from: DateComponents(year: year, month: 1, day: 1)) ?? now
        var monday = Week(containing: newYear, calendar: calendar).start
        if monday < newYear { monday = Week(containing: newYear, calendar: calendar).end }
        let since = Week(containing: now, calendar: calendar).previous.start
        let rules = [
            Rule(name: "round-ups", kind: .roundUp(step: nil), goal: "Balloons"),
            Rule(name: "coffee", kind: .guiltyPleasure(amount: money(200), match: ["Blue Bottle", "Starbucks"]), goal: "Vacation"),
            Rule(name: "every week", kind: .setAndForget(amount: money(500), every: .week), goal: "A Rainy Day"),
            Rule(name: "every month", kind: .setAndForget(amount: money(5_000), every: .month), goal: "Emergency fund"),
            Rule(name: "52 weeks", kind: .fiftyTwoWeek(amount: money(100), start: monday, reverse: false), goal: "Tokyo trip 東京"),
            Rule(name: "fewer rides", kind: .spendLess(target: money(10_000), match: [], category: ["transport"]), goal: "Concert tickets ⚡️"),
            Rule(name: "pay day", kind: .payday(hundredthsOfAPercent: 1_000, match: ["Salary"], minimum: nil), goal: "Graduation"),
        ].map { rule in
            var dated = rule
            dated.since = since
            return dated
        }
        // No floor: the demo, like the Qapital API, gives no account balance to keep one above.
        return RulesFile(weeklyLimit: money(40_000), rules: rules)
    }
}
