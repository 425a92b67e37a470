import Foundation

/// One week and the sum of what was dated in it.
public struct WeekTotal: Hashable, Sendable {
    public let week: Week
    public let total: Money

    public init(week: Week, total: Money) {
        self.week = week
        self.total = total
    }

    /// The most weeks one sum covers (a hundred years): an absurd date cannot make it loop for ever.
    public static let maximumWeeks = 5_300

    /// Every week from the one holding `from` through the one holding `through` (Monday 00:00
    /// in `calendar`'s zone, as `Week` counts them, across DST changes and year ends), oldest
    /// first, each with the sum of the amounts dated in it; weeks with nothing sum to zero.
    /// Amounts in another currency and dates outside the weeks are left out. Exact, saturating.
    public static func weeks(_ entries: [(date: Date, amount: Money)], currency: Currency, calendar: Calendar,
                             from: Date, through: Date) -> [WeekTotal] {
        var weeks: [Week] = []
        var week = Week(containing: min(from, through), calendar: calendar)
        let last = Week(containing: through, calendar: calendar)
        while week <= last && weeks.count < maximumWeeks {
            weeks.append(week)
            week = week.next
        }
        guard let first = weeks.first, let end = weeks.last?.end else { return [] }
        var sums = [Int64](repeating: 0, count: weeks.count)
        for entry in entries where entry.amount.currency == currency && entry.date >= first.start && entry.date < end {
            // The last week that starts at or before the date.
            var low = 0, high = weeks.count
            while low < high {
                let middle = (low + high) / 2
                if weeks[middle].start <= entry.date { low = middle + 1 } else { high = middle }
            }
            sums[low - 1] = BalanceHistory.saturating(sums[low - 1], plus: entry.amount.minorUnits)
        }
        return zip(weeks, sums).map { WeekTotal(week: $0, total: Money(minorUnits: $1, currency: currency)) }
    }

    /// The `count` weeks that end with the one holding `date`, oldest first.
    public static func last(_ count: Int, through date: Date, _ entries: [(date: Date, amount: Money)],
                            currency: Currency, calendar: Calendar) -> [WeekTotal] {
        guard count > 0 else { return [] }
        var first = Week(containing: date, calendar: calendar)
        for _ in 1..<count { first = first.previous }
        return weeks(entries, currency: currency, calendar: calendar, from: first.start, through: date)
    }

    /// Money saved per week over activities: what each put into goals (`Activity.saved`: a
    /// saving's money in, a bank's move into a savings goal; never income, never a declined or
    /// reversed row), by week, from the oldest activity's week through the one holding `now`.
    public static func saved(_ activities: [Activity], currency: Currency, calendar: Calendar, now: Date) -> [WeekTotal] {
        guard let oldest = activities.lazy.map(\.timestamp).min() else { return [] }
        let entries = activities.lazy.compactMap { activity in activity.saved.map { (date: activity.timestamp, amount: $0) } }
        return weeks(Array(entries), currency: currency, calendar: calendar, from: oldest, through: max(now, oldest))
    }
}

extension RoundUp {
    /// Each week's saveable round-ups (payments in the account's currency that round up, by the
    /// source's rule), for the `count` weeks through the one holding `date`, oldest first.
    public static func weeklyTotals(_ transactions: [Transaction], accountCurrency: Currency, step: Int64? = nil,
                                    calendar: Calendar, weeks count: Int, through date: Date) -> [WeekTotal] {
        let summary = Summary(transactions: transactions, accountCurrency: accountCurrency, step: step)
        let entries = summary.lines.filter(summary.isSaveable).map { (date: $0.transaction.timestamp, amount: $0.roundUp) }
        return WeekTotal.last(count, through: date, entries, currency: accountCurrency, calendar: calendar)
    }
}
