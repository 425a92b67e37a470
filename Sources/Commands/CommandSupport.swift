import FeedModel
import Foundation

/// The exit statuses of the headless commands (docs/cli.md).
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Done, also "already saved" and "nothing to save".
    case ok = 0
    /// Failed: the server refused, answered badly, or the record could not be written.
    case failed = 1
    /// Done, with records skipped: the source sent records that could not be read or represented,
    /// each named on stderr; everything else was written (`--strict` makes it a failure).
    case skipped = 3
    /// A wrong command line (as ArgumentParser exits for one), or a save without `--yes` and without a terminal.
    case usage = 64
    /// The server could not be reached (nothing was changed, or, for a save, see its message).
    case unreachable = 69
    /// Sign-in needed: no token, or the server refused it.
    case signInNeeded = 77
}

/// A command that did not finish: the status to exit with and one line for stderr.
public struct CommandFailure: Error, Sendable, CustomStringConvertible {
    public let status: ExitStatus
    public let message: String

    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = Cell.plain(message)
    }

    public var description: String { message }

    /// The status and line for an error of the API (or any other).
    public static func from(_ error: any Error) -> CommandFailure {
        if let failure = error as? CommandFailure { return failure }
        if let api = error as? APIError {
            if api.kind == .unauthorized { return CommandFailure(.signInNeeded, "sign-in needed: \(api.message)") }
            // The server was reached: whatever the request did is not known, not "unreachable".
            if api.mayHaveArrived { return CommandFailure(.failed, api.message) }
            if api.isConnectivity { return CommandFailure(.unreachable, "server unreachable: \(api.message)") }
            return CommandFailure(.failed, api.message)
        }
        return CommandFailure(.failed, String(describing: error))
    }
}

/// What every command needs: the source, how to write, and the clock and calendar of the user.
public struct CommandContext: Sendable {
    public let api: any SavingsAPI
    /// "demo", "qapital", "starling": the journal's account names use it.
    public let sourceKind: String
    public let currency: Currency
    public let format: OutputFormat
    public let output: OutputSink
    /// Weeks and journal dates are the user's (local time zone, weeks from Monday).
    public let calendar: Calendar
    public let now: @Sendable () -> Date
    public let saver: RoundUpSaver
    /// The savings rules' transfers and starts (beside the round-ups record); the round-up rule's
    /// weeks are `saver`'s. Nil: kept for this run only.
    public var rules: (any RuleRecord)?
    /// Where notes go that are not data (stderr in the binary).
    public let note: @Sendable (String) -> Void
    /// Why the source cannot move money (Up makes and moves its round-ups itself); nil: it can.
    public var noMoneyMoves: String?
    /// What `rules --save` says when the source cannot move money; nil: `noMoneyMoves`.
    public var noRuleMoves: String?
    /// Why the rules cannot move money, in the rules' words.
    var rulesCannotMove: String? { noRuleMoves ?? noMoneyMoves }
    /// Why the source cannot create goals (where its goals come from instead); said once on
    /// stderr when it lists none.
    public var noGoalCreation: String?
    /// What payments in the account's currency round up to, in minor units: the app's setting
    /// (`--round-up-step`, the config file's `round-up-step`); nil: the currency's default.
    public var roundUpStep: Int64?
    /// Where the source notes the records it skipped (each is named on stderr after the run).
    public var skipped: SkippedRecords?
    /// `--strict`: a skipped record fails the run before anything is written or moved.
    public var strict = false
    /// A bank's word on each activity beyond its row (JSON's `account` and `pending`, on every
    /// row when it says anything; the journal's account of each row, and booked rows only); nil
    /// or empty: none.
    public var activityDetails: (@Sendable () -> [String: ActivityDetails])?
    /// The accounts a whole journal opens and asserts one by one (`BankAPI.bookedBalances`);
    /// nil or empty: the source's one balance (`Account.feedBalance`), if it says one.
    public var bookedBalances: (@Sendable () -> [BookedBalance])?

    public init(api: any SavingsAPI, sourceKind: String, currency: Currency, format: OutputFormat, output: OutputSink,
                calendar: Calendar = Week.calendar(in: .current), now: @escaping @Sendable () -> Date = { Date() },
                saver: RoundUpSaver = RoundUpSaver(identity: .demo, record: MemoryRoundUpRecord()),
                note: @escaping @Sendable (String) -> Void = { _ in }) {
        self.api = api
        self.sourceKind = sourceKind
        self.currency = currency
        self.format = format
        self.output = output
        self.calendar = calendar
        self.now = now
        self.saver = saver
        self.note = note
    }

    /// `2026-11-20` in the user's time zone.
    func day(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// `2026-11-20 14:03` in the user's time zone.
    func minute(_ date: Date) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return day(date) + String(format: " %02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// A command-line date: `2026-11-20` (the start of that day, local) or a full ISO 8601 time.
    public static func parseDate(_ text: String, calendar: Calendar) -> Date? {
        if let date = Timestamp.parse(text) { return date }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var components = DateComponents(year: year, month: month, day: day)
        components.calendar = calendar
        components.timeZone = calendar.timeZone
        guard let date = calendar.date(from: components),
              calendar.component(.day, from: date) == day else { return nil }
        return date
    }

    /// The week `--week` names: `this`, `last`, or `2026-W47`.
    public func week(_ text: String) throws(CommandFailure) -> Week {
        let current = Week(containing: now(), calendar: calendar)
        switch text.lowercased() {
        case "this": return current
        case "last": return current.previous
        default:
            guard let week = Week(isoLabel: text, calendar: calendar) else {
                throw CommandFailure(.usage, "--week wants this, last or an ISO week such as \(current.isoLabel), not \"\(Cell.plain(String(text.prefix(20))))\"")
            }
            guard week <= current else { throw CommandFailure(.usage, "--week \(week.isoLabel) has not begun yet") }
            return week
        }
    }

    /// A goal by id or by name (any case); a name that is not one goal's is refused.
    public static func goal(_ text: String, in goals: [Goal]) throws(CommandFailure) -> Goal {
        if let goal = goals.first(where: { $0.id.rawValue == text }) { return goal }
        var named = goals.filter { $0.name.caseInsensitiveCompare(text) == .orderedSame }
        // Else a name the goal is also known by (SimpleFIN: the account's name as the config
        // file gives it, or the bank's id), however its shown name reads today.
        if named.isEmpty { named = goals.filter { $0.aliases.contains { $0.caseInsensitiveCompare(text) == .orderedSame } } }
        if named.count == 1 { return named[0] }
        let shown = Cell.plain(String(text.prefix(40)))
        if named.count > 1 {
            throw CommandFailure(.usage, "--goal \"\(shown)\" names \(named.count) goals; give its id (\(named.map(\.id.rawValue).joined(separator: ", ")))")
        }
        throw CommandFailure(.usage, "--goal: no goal is called \"\(shown)\" (qapital-tui goals lists them)")
    }

    /// JSON's `{"minorUnits": 116, "currency": "USD", "minorDigits": 2}`.
    static func jsonMoney(_ money: Money) -> String {
        "{\"minorUnits\":\(money.minorUnits),\"currency\":\(Cell.json(money.currency.code)),\"minorDigits\":\(money.currency.minorDigits)}"
    }
}

/// Sums in minor units that say so when they overflow instead of trapping. Money in another
/// currency is left out of the total (the journal keeps a sum per currency).
struct CheckedSum {
    private(set) var total: Money
    private(set) var overflowed = false

    init(_ currency: Currency) { total = .zero(currency) }

    mutating func add(_ money: Money) {
        guard money.currency == total.currency else { return }
        let (sum, overflow) = total.minorUnits.addingReportingOverflow(money.minorUnits)
        if overflow { overflowed = true } else { total.minorUnits = sum }
    }
}
