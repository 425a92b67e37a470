import FeedModel
import Foundation
import TermUI

/// How dates, people and goals are written on screen. Formatters and day labels are cached:
/// rendering a frame must not create a DateFormatter per row.
@MainActor
final class DisplayFormat {
    let timeZone: TimeZone
    let now: @Sendable () -> Date
    private var labelCache: [Int: String] = [:]
    private var labelCacheToday = Int.min
    private let dayFormatter: DateFormatter
    private let dayYearFormatter: DateFormatter
    private let dateFormatter: DateFormatter
    private let calendar: Calendar

    /// The app's clock now (a fixed one in tests).
    var currentDate: Date { now() }

    init(timeZone: TimeZone, now: @escaping @Sendable () -> Date) {
        self.timeZone = timeZone
        self.now = now
        func formatter(_ pattern: String) -> DateFormatter {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = timeZone
            formatter.dateFormat = pattern
            return formatter
        }
        dayFormatter = formatter("EEE d MMM")
        dayYearFormatter = formatter("EEE d MMM yyyy")
        dateFormatter = formatter("d MMM yyyy")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    /// An amount padded to a column, never cut: where it is wider, the column grows and the
    /// text beside it gives way (`CHF 1,250.50` in an 11-cell column takes 12).
    nonisolated static func amountColumn(_ text: String, to width: Int, alignRight: Bool = true) -> String {
        TextWidth.pad(text, to: max(width, TextWidth.of(text)), alignRight: alignRight)
    }

    /// Whole days since 1970 in the display time zone: a cheap key for grouping by day.
    nonisolated static func dayNumber(_ date: Date, in timeZone: TimeZone) -> Int {
        let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        return Int((local / 86_400).rounded(.down))
    }

    func dayNumber(_ date: Date) -> Int { DisplayFormat.dayNumber(date, in: timeZone) }

    /// "Today", "Yesterday", then "Fri 20 Nov" (with the year when it is not this year).
    func dayHeader(_ date: Date) -> String {
        let today = dayNumber(now())
        if today != labelCacheToday {
            labelCache = [:]
            labelCacheToday = today
        }
        let day = dayNumber(date)
        if let label = labelCache[day] { return label }
        let label: String
        switch today - day {
        case 0: label = "Today"
        case 1: label = "Yesterday"
        default:
            let sameYear = calendar.component(.year, from: date) == calendar.component(.year, from: now())
            label = (sameYear ? dayFormatter : dayYearFormatter).string(from: date)
        }
        labelCache[day] = label
        return label
    }

    /// "14:05", computed without a formatter.
    func time(_ date: Date) -> String {
        let local = Int((date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))).rounded(.down))
        let minutes = ((local % 86_400) + 86_400) % 86_400 / 60
        let hours = minutes / 60
        let rest = minutes % 60
        return (hours < 10 ? "0" : "") + String(hours) + (rest < 10 ? ":0" : ":") + String(rest)
    }

    /// "10 Mar 2015"
    func shortDate(_ date: Date) -> String { dateFormatter.string(from: date) }

    /// Up to two letters for a goal's monogram: "Brand New Wheels" → "BN", "Dog" → "DO".
    nonisolated static func monogram(_ name: String) -> String {
        let words = name.split(separator: " ").filter { $0.first?.isLetter == true || $0.first?.isNumber == true }
        if words.count >= 2 { return String([words[0].first!, words[1].first!]).uppercased() }
        let letters = name.filter { $0.isLetter || $0.isNumber }
        return String(letters.prefix(2)).uppercased().isEmpty ? "?" : String(letters.prefix(2)).uppercased()
    }

    /// The theme's colour role a goal's own colour is drawn in (so a theme, or no colour, decides it).
    nonisolated static func role(_ tint: GoalTint) -> ColorRole {
        switch tint {
        case .blue: .accent
        case .green: .moneyIn
        case .yellow: .warning
        case .orange: .moneyOut
        case .pink: .highlight
        }
    }

    /// A stable colour (from the 256-colour cube, mid brightness) for a name.
    nonisolated static func monogramColor(_ name: String) -> Color {
        var hash: UInt32 = 2_166_136_261
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let palette: [UInt8] = [24, 25, 29, 30, 31, 53, 54, 55, 60, 61, 88, 89, 94, 95, 96, 130, 131, 132, 166, 167]
        return .indexed(palette[Int(hash % UInt32(palette.count))])
    }

    /// The style of a row's money: savings in green.
    nonisolated static let moneyStyle = Style(fg: .role(.moneyIn))

    /// How a filter's matches stand out in the rows it lets through.
    nonisolated static let matchStyle = Style(fg: .role(.highlight), attributes: [.bold, .underline])

    /// The spans with every case-insensitive match of `filter` in `matchStyle`.
    nonisolated static func highlighting(_ spans: [Span], _ filter: String) -> [Span] {
        guard !filter.isEmpty else { return spans }
        let text = spans.map(\.text).joined()
        var matches: [Range<Int>] = []
        var from = text.startIndex
        while from < text.endIndex,
              let found = text.range(of: filter, options: [.caseInsensitive, .diacriticInsensitive], range: from..<text.endIndex),
              !found.isEmpty {
            matches.append(text.distance(from: text.startIndex, to: found.lowerBound)..<text.distance(from: text.startIndex, to: found.upperBound))
            from = found.upperBound
        }
        guard !matches.isEmpty else { return spans }
        var result: [Span] = []
        var offset = 0
        for span in spans {
            let characters = Array(span.text)
            var start = 0
            while start < characters.count {
                let position = offset + start
                let match = matches.first { $0.contains(position) }
                let nextStart = matches.first { $0.lowerBound > position }?.lowerBound ?? Int.max
                let end = min(characters.count, (match?.upperBound ?? nextStart) - offset)
                result.append(Span(String(characters[start..<end]), match == nil ? span.style : span.style.patched(with: matchStyle)))
                start = end
            }
            offset += characters.count
        }
        return result
    }

    /// Markup runs as spans: `<strong>` words in bold.
    nonisolated static func spans(_ text: MarkupText, base: Style = .plain) -> [Span] {
        text.runs.map { Span($0.text, $0.isBold ? base.adding(.bold) : base) }
    }
}

extension UsersReading {
    /// A person as the app names them: "you" for the holder of the goals, else their name.
    func name(for id: Int, holder: Int?) -> String {
        id == holder ? "you" : displayName(for: id)
    }

    /// The who-column of a feed row: empty where the message names the person already ("You
    /// made a roundup.", "Johan moved money…"), "you" for the holder, else their name.
    func who(for id: Int, in message: MarkupText, holder: Int?) -> String {
        let text = message.plainText
        if id == holder, UsersNaming.names(text, "you") { return "" }
        if case .found(let user) = lookup(id), UsersNaming.names(text, user.displayName) { return "" }
        return name(for: id, holder: holder)
    }

    /// Initials for a compact list of people: "HE" for Henrik, "#5" while unknown.
    func initials(for id: Int) -> String {
        if case .found(let user) = lookup(id) { return user.initials }
        return "#\(id)"
    }
}

enum UsersNaming {
    /// Whether `text` holds `name` as whole words ("Jo" is not in "Johan").
    static func names(_ text: String, _ name: String) -> Bool {
        guard !name.isEmpty else { return false }
        var from = text.startIndex
        while let found = text.range(of: name, options: [.caseInsensitive, .diacriticInsensitive], range: from..<text.endIndex) {
            let before = found.lowerBound == text.startIndex ? nil : text[text.index(before: found.lowerBound)]
            let after = found.upperBound == text.endIndex ? nil : text[found.upperBound]
            if !(before?.isLetter ?? false) && !(after?.isLetter ?? false) { return true }
            from = found.upperBound
        }
        return false
    }

}

extension DisplayFormat {
    /// A goal's name for `width` columns: whole where it fits; else without what follows its
    /// first " · " (the institution a bank's goal carries, "Vacation · Maple Credit Union"), so
    /// the name the user chose is never cut for the bank's.
    nonisolated static func fitted(_ name: String, to width: Int) -> String {
        guard TextWidth.of(name) > width, let dot = name.range(of: " · ") else { return name }
        return String(name[..<dot.lowerBound])
    }
}
