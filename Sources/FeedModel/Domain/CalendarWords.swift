import Foundation

/// The English short names of weekdays and months, the one table every date label uses
/// ("Mon 11 Jan", "14 Mar 2027"), in whatever calendar and zone it is given.
public enum CalendarWords {
    /// Calendar's weekday numbers 1…7, Sunday first.
    public static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    public static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// "Mon 11 Jan 2027"; without `weekday` "11 Jan 2027", without `year` "Mon 11 Jan".
    public static func day(_ date: Date, calendar: Calendar, weekday: Bool = true, year: Bool = false) -> String {
        let parts = calendar.dateComponents([.weekday, .day, .month, .year], from: date)
        var label = "\(parts.day ?? 0) \(months[((parts.month ?? 1) - 1 + 12) % 12])"
        if weekday { label = weekdays[((parts.weekday ?? 1) - 1 + 7) % 7] + " " + label }
        return year ? label + " \(parts.year ?? 0)" : label
    }
}
