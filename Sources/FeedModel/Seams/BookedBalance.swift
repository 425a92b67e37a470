import Foundation

/// One of a bank's accounts as a whole export's journal opens and asserts it (Enable Banking:
/// each spending account and each goal account, docs/cli.md "ledger"): its booked balance in its
/// own currency, so the journal's account holds what the bank says.
public struct BookedBalance: Equatable, Sendable {
    /// Whose postings the balance is: a spending account's rows (`ActivityDetails.accountId`), or
    /// the moves into a goal (its savings account in the journal).
    public enum Holder: Hashable, Sendable {
        case account(id: String)
        case goal(GoalID)
    }

    public var holder: Holder
    /// The account's shown name ("Everyday Account").
    public var name: String
    /// nil: not known (not read yet, or no booked balance the app can read): no opening, no
    /// assertion, and the export says so on stderr.
    public var booked: Money?
    /// When the bank said it (the account's last read).
    public var asOf: Date?

    public init(holder: Holder, name: String, booked: Money?, asOf: Date?) {
        self.holder = holder
        self.name = TextSanitizer.clean(name)
        self.booked = booked
        self.asOf = asOf
    }
}
