import Foundation

/// What a transfer is, beside its goal, key and amount: the period whose money moves and whether
/// it is sent again. Passed with every `transfer` (never a task-local a caller could forget): a
/// source whose API has no idempotency key (a transfer marked in its description and looked for
/// before every send, docs/roundups.md) looks back to the period's start for its mark.
public struct TransferAttempt: Sendable, Hashable {
    /// "2026-W47": the week whose money moves (the source looks back to its Monday).
    public let week: String
    /// The same transfer was sent before and its answer was lost: a marked transfer found now is this run's own.
    public let resent: Bool
    /// The savings rule whose period moves (its name); nil for the round-ups' week.
    public let rule: String?
    /// The rule's kind as the rules file names it ("guilty-pleasure"), when a rule moves.
    public let kind: String?

    /// `week`: the period's label, an ISO week ("2026-W47") or for a monthly rule a month ("2026-11").
    public init(week: String, resent: Bool, rule: String? = nil, kind: String? = nil) {
        self.week = week
        self.resent = resent
        self.rule = rule
        self.kind = kind
    }

    /// The Qapital API's kind of savings rule for this transfer (its feed items carry the rule's
    /// id): a round-up rule's or a guilty pleasure's; nil for the round-ups' week and for kinds
    /// the API has no rule for.
    public var serverKind: SavingsRule.Kind? {
        switch kind {
        case "roundup": .roundup
        case "guilty-pleasure": .guiltyPleasure
        default: nil
        }
    }

    /// Where the period starts in `calendar`: its Monday, or its month's first day; nil for a
    /// label that is neither. A source that marks its transfers looks for the mark from there.
    public func periodStart(calendar: Calendar) -> Date? {
        if let week = Week(isoLabel: week, calendar: calendar) { return week.start }
        let parts = week.split(separator: "-")
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, let year = Int(parts[0]), let month = Int(parts[1]),
              (1...12).contains(month) else { return nil }
        return calendar.date(from: DateComponents(year: year, month: month, day: 1)).map { calendar.startOfDay(for: $0) }
    }

    /// The first send of `week`'s transfer.
    public static func first(_ week: Week) -> TransferAttempt { TransferAttempt(week: week.isoLabel, resent: false) }

    /// Set by a headless run (`roundups --save`, often on a timer): such a source may wait a
    /// random moment before it looks, so timers firing in the same minute rarely overlap.
    @TaskLocal public static var unattended = false
}

/// Thrown by such a source after sending, when it finds its mark on two transfers: two runs
/// checked at the same moment and both sent. The money moved (twice); nothing is moved back.
public struct SavedTwice: Error, Sendable, CustomStringConvertible {
    /// The goal as it is now.
    public let goal: Goal
    /// "saved twice by two runs at once: move €4.32 back from Holiday in the bank's app"
    public let message: String

    public init(goal: Goal, message: String) {
        self.goal = goal
        self.message = message
    }

    public var description: String { message }
}

/// Thrown by such a source when it finds its mark before sending: another run or machine saved
/// the week ("already saved on 24 Nov 2026 into Holiday"); nothing moved now.
public struct AlreadySaved: Error, Sendable, CustomStringConvertible {
    public let message: String

    public init(message: String) { self.message = message }

    public var description: String { message }
}
