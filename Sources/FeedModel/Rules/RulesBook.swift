import Foundation

/// The savings rules as the Rules tab reads and changes them: the rules file, each rule's line
/// for a week and the settlement, from the same figures and the same engine as `rules` and
/// `rules --save` (the command line makes it; the app never builds a figure of its own).
public protocol RulesBook: Sendable {
    /// The rules file as read (the demo's own rules where the user has none).
    func file() async -> RulesFile
    /// Each rule's line for `week`, in the file's order.
    func lines(week: Week) async throws -> [RuleLine]
    /// Moves every due week of every rule up to `last`, once each (as `rules --save --yes`): the
    /// report's lines, and whether it ended as the command would with a non-zero status.
    func save(through last: Week) async -> RulesReport
    /// What the rule named `rule` in `file` would have moved in each of the `weeks` weeks before
    /// this one, and where the weekly limit (with the file's other rules before it) would have
    /// held it, oldest first (as `rules --backtest`). Nothing is sent.
    func backtest(_ file: RulesFile, rule: String, weeks: Int) async throws -> [RuleBacktestWeek]
    /// Writes the file (atomically, the last one kept as `.bak`); a problem is one line.
    func write(_ file: RulesFile) async throws
    /// Every transfer the records keep (the rules' and the round-ups'): a goal's feed labels the
    /// moves a rule made from them.
    func transfers() async -> [SavedRoundUp]
    /// Why rules cannot be written here (the demo's rules are not the user's file), nil if they can.
    var readOnlyFile: String? { get }
}

/// One rule's line for a week: what `rules --week` prints for it.
public struct RuleLine: Hashable, Sendable {
    public let rule: Rule
    /// "£2.00 for each card payment at Pret or Costa".
    public let words: String
    public let goalName: String
    /// The week's figure (nil: the rule owes nothing this week, `reason` says why).
    public let amount: Money?
    public let status: Status
    /// "due Mon 30 Nov", "no month ends this week", what holds it.
    public let reason: String?
    /// The payments the figure counted, as the bank names them ("Pret A Manger · -£3.40").
    public let counted: [String]
    /// Payments in another currency it left out.
    public let leftOut: Int

    public enum Status: String, Hashable, Sendable {
        case underWay = "under-way", due, saved, held, paused, readOnly = "read-only", nothing

        /// The status in words, as the tab and `rules` say it: "so far", "due", "✓ saved", …
        public var word: String {
            switch self {
            case .underWay: "so far"
            case .due: "due"
            case .saved: "✓ saved"
            case .held: "held"
            case .paused: "paused"
            case .readOnly: "would save"
            case .nothing: "nothing"
            }
        }
    }

    public init(rule: Rule, words: String, goalName: String, amount: Money?, status: Status, reason: String?, counted: [String],
                leftOut: Int) {
        self.rule = rule
        self.words = words
        self.goalName = goalName
        self.amount = amount
        self.status = status
        self.reason = reason
        self.counted = counted
        self.leftOut = leftOut
    }
}

/// What a save said, line by line, and whether anything is left to do or unclear (held, failed).
public struct RulesReport: Hashable, Sendable {
    public let lines: [String]
    public let failed: Bool

    public init(lines: [String], failed: Bool) {
        self.lines = lines
        self.failed = failed
    }
}

/// One week of a rule's backtest.
public struct RuleBacktestWeek: Hashable, Sendable {
    public let week: Week
    public let amount: Money?
    /// The weekly limit would have held it (the floor needs past balances no source gives).
    public let held: Bool

    public init(week: Week, amount: Money?, held: Bool) {
        self.week = week
        self.amount = amount
        self.held = held
    }
}
