import Foundation

/// A week from Monday 00:00 to the next Monday 00:00 in the user's time zone. Across a DST
/// change a week is an hour shorter or longer; `start` and `end` are still local midnights.
public struct Week: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let start: Date
    /// The next week's start (exclusive).
    public let end: Date
    public let calendar: Calendar

    /// The Gregorian calendar in `timeZone`, weeks starting on Monday.
    public static func calendar(in timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.locale = Locale(identifier: "en_US_POSIX")
        calendar.firstWeekday = 2
        return calendar
    }

    public init(containing date: Date, calendar: Calendar) {
        let day = calendar.startOfDay(for: date)
        let weekday = calendar.component(.weekday, from: day)  // 1 Sunday … 7 Saturday
        let daysSinceMonday = (weekday + 5) % 7
        // Through calendar days, not 86 400 s steps, so a DST change cannot shift midnight;
        // startOfDay again for zones where some midnight does not exist.
        let monday = calendar.date(byAdding: .day, value: -daysSinceMonday, to: day) ?? day
        start = calendar.startOfDay(for: monday)
        let following = calendar.date(byAdding: .day, value: 7, to: start) ?? start.addingTimeInterval(7 * 86_400)
        end = calendar.startOfDay(for: following)
        self.calendar = calendar
    }

    public var previous: Week { Week(containing: start.addingTimeInterval(-1), calendar: calendar) }
    public var next: Week { Week(containing: end, calendar: calendar) }

    /// Sunday, the week's last day (its start).
    public var lastDay: Date {
        calendar.startOfDay(for: calendar.date(byAdding: .day, value: -1, to: end) ?? end.addingTimeInterval(-86_400))
    }

    public func contains(_ date: Date) -> Bool { date >= start && date < end }

    public static func < (lhs: Week, rhs: Week) -> Bool { lhs.start < rhs.start }

    public var description: String { "Week(\(start)..<\(end))" }
}
