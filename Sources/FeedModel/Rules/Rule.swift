import Foundation

/// A savings rule of the user's rules file (`rules.toml`, ../docs/rules.md): money that moves
/// into a goal by itself when something happens in a week. Not to be confused with
/// `SavingsRule`, the Qapital API's own objects (`GET /savingsrules`), which only name rules a
/// server runs.
///
/// Its `name` is its identity: the key of every transfer it makes is derived from it, so
/// renaming a rule makes a new rule, and editing its amount changes what later weeks owe, never
/// a week already moved.
public struct Rule: Hashable, Sendable {
    public var name: String
    public var kind: Kind
    /// The goal it saves into, as the file names it: a goal's name or the bank's id for it.
    public var goal: String
    /// The first day whose week it may owe; a week that ended before it owes nothing.
    public var since: Date?
    public var paused: Bool

    public init(name: String, kind: Kind, goal: String, since: Date? = nil, paused: Bool = false) {
        self.name = name
        self.kind = kind
        self.goal = goal
        self.since = since
        self.paused = paused
    }

    /// What moves a week's money, with what each kind needs (RULES.md's table).
    public enum Kind: Hashable, Sendable {
        /// The week's round-ups, as the Round-ups tab computes them (`step` in minor units, nil:
        /// the currency's own step).
        case roundUp(step: Int64?)
        /// `amount` for each card payment out whose counterparty contains one of `match` or whose
        /// bank category is one of `category`.
        case guiltyPleasure(amount: Money, match: [String], category: [String] = [])
        /// `amount` every week, or in the week that holds each month's last day.
        case setAndForget(amount: Money, every: Every)
        /// Week n of a 52-week challenge from `start` saves n × `amount`; reversed, (53 − n) × `amount`.
        case fiftyTwoWeek(amount: Money, start: Date, reverse: Bool)
        /// `target` less what the matching card payments came to (as a guilty pleasure matches
        /// them), when that is above zero.
        case spendLess(target: Money, match: [String], category: [String] = [])
        /// `percent` (in hundredths of a percent: 1,000 is 10%) of each payment in from a payer
        /// that matches, or of at least `minimum`, each rounded down to the minor unit.
        case payday(hundredthsOfAPercent: Int64, match: [String], minimum: Money?)

        /// The kind as the file writes it.
        public var name: String {
            switch self {
            case .roundUp: "roundup"
            case .guiltyPleasure: "guilty-pleasure"
            case .setAndForget: "set-and-forget"
            case .fiftyTwoWeek: "52-week"
            case .spendLess: "spend-less"
            case .payday: "payday"
            }
        }

        public static let names = ["roundup", "guilty-pleasure", "set-and-forget", "52-week", "spend-less", "payday"]
    }

    /// Whether a payment's bank category is the category a file names: the same words whatever
    /// the case and whether they are joined by `_`, `-` or spaces ("EATING_OUT", "eating-out").
    public static func sameCategory(_ payment: String?, _ named: String) -> Bool {
        guard let payment else { return false }
        return categoryKey(payment) == categoryKey(named)
    }

    static func categoryKey(_ text: String) -> String {
        text.lowercased().split(whereSeparator: { $0 == "_" || $0 == "-" || $0 == " " }).joined(separator: "_")
    }

    public enum Every: String, Hashable, Sendable {
        case week, month
    }
}
