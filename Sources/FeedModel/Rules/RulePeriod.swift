import Foundation

/// What one transfer of a rule settles: an ISO week, or for a monthly set-and-forget a calendar
/// month (settled with the week that holds its last day). Its label is part of the transfer's key.
public enum RulePeriod: Hashable, Sendable, Comparable {
    case week(Week)
    /// The month (`year`, `month` 1…12) and the week that settles it.
    case month(year: Int, month: Int, settledBy: Week)

    /// "2026-W47", or "2026-11" for a month.
    public var label: String {
        switch self {
        case .week(let week): week.isoLabel
        case .month(let year, let month, _): "\(year)-\(month < 10 ? "0" : "")\(month)"
        }
    }

    /// The week whose end makes it due.
    public var week: Week {
        switch self {
        case .week(let week), .month(_, _, let week): week
        }
    }

    public static func < (lhs: RulePeriod, rhs: RulePeriod) -> Bool { lhs.week < rhs.week }
}

extension Week {
    /// The calendar month whose last day this week holds, if it holds one: a month is settled
    /// with the week that holds its last day (a week that starts on the 1st holds none).
    public var monthEnding: (year: Int, month: Int)? {
        let first = calendar.dateComponents([.year, .month], from: start)
        let after = calendar.dateComponents([.year, .month], from: end)
        guard first.year != after.year || first.month != after.month, let year = first.year, let month = first.month else { return nil }
        return (year, month)
    }
}
