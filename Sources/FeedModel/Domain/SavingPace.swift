import Foundation

/// "At this pace": the average saved per week over the last eight weeks, and when the target
/// is reached at that average. Exact in minor units.
///
/// The eight weeks are the 56 calendar days up to now (days, not 86 400 s steps, so a DST
/// change moves nothing). What they saved is the net of the goal's feed in that span
/// (withdrawals count against it); the average is that net divided by eight, rounded down to a
/// whole minor unit. The target is reached after the fewest whole weeks at that average that
/// cover what is left to save, counted from now.
public enum SavingPace: Hashable, Sendable {
    /// The balance is at or past the target.
    case reached
    /// Nothing (net) was saved in the last eight weeks, so no date can be given.
    case noSavings
    /// Saving `perWeek`; the goal has no target.
    case noTarget(perWeek: Money)
    /// Saving `perWeek`, the target is reached on `date` (nil when that is more than a hundred years away).
    case projected(perWeek: Money, date: Date?)

    public static let weeks = 8

    public static func of(balance: Money, target: Money?, feed: [FeedItem], now: Date, calendar: Calendar) -> SavingPace {
        if let target, target.currency == balance.currency, balance.minorUnits >= target.minorUnits { return .reached }
        let since = calendar.date(byAdding: .day, value: -7 * weeks, to: now) ?? now.addingTimeInterval(-Double(7 * weeks) * 86_400)
        var net: Int64 = 0
        for item in feed where item.amount.currency == balance.currency && item.timestamp > since && item.timestamp <= now {
            net = BalanceHistory.saturating(net, plus: item.amount.minorUnits)
        }
        let perWeek = net / Int64(weeks)
        guard perWeek > 0 else { return .noSavings }
        let rate = Money(minorUnits: perWeek, currency: balance.currency)
        guard let target, target.currency == balance.currency else { return .noTarget(perWeek: rate) }
        let left = BalanceHistory.saturating(target.minorUnits, minus: balance.minorUnits)
        let weeksNeeded = left / perWeek + (left % perWeek == 0 ? 0 : 1)
        guard weeksNeeded <= Int64(WeekTotal.maximumWeeks) else { return .projected(perWeek: rate, date: nil) }
        let date = calendar.date(byAdding: .day, value: 7 * Int(weeksNeeded), to: now)
        return .projected(perWeek: rate, date: date)
    }

    /// "at $42.10 a week: 14 Mar 2027", "no savings in the last 8 weeks", "target reached",
    /// "at $5.00 a week · no target"; dates in `calendar`'s zone.
    public func text(calendar: Calendar) -> String {
        switch self {
        case .reached: return "target reached"
        case .noSavings: return "no savings in the last \(Self.weeks) weeks"
        case .noTarget(let perWeek): return "at \(perWeek.formatted) a week · no target"
        case .projected(let perWeek, let date):
            guard let date else { return "at \(perWeek.formatted) a week: more than 100 years" }
            return "at \(perWeek.formatted) a week: " + Self.dayText(date, calendar: calendar)
        }
    }

    /// "14 Mar 2027".
    public static func dayText(_ date: Date, calendar: Calendar) -> String {
        CalendarWords.day(date, calendar: calendar, weekday: false, year: true)
    }
}
