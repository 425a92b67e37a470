import FeedModel

/// The postings of one activity in the journal, double-entry as a hledger user writes them
/// (docs/cli.md, "ledger"). NAME is the source (`starling`, `qapital`):
/// - a saving into a goal (the Qapital API, the demo): `assets:NAME:savings:GOAL` gets the
///   amount, from `assets:NAME:account`;
/// - money a bank moved between the account and a goal (into it: the account's amount is
///   negative; out of it: positive): the account gets the amount, `assets:NAME:savings:GOAL`
///   the opposite;
/// - any other payment or income of a bank account: the account gets the amount, and
///   `expenses:CATEGORY` (money out) or `income:CATEGORY` (money in) the opposite, with the
///   bank's category where it gives one, else `unknown`;
/// - declined or reversed: no posting (the transaction is listed, nothing moved).
/// Both amounts are written, so every transaction balances to zero on its own.
enum LedgerPostings {
    /// What an activity's postings move in `assets:NAME:account` (nil: nothing, as `of` writes
    /// none): the sum of these over a journal is the account's balance in hledger.
    static func accountSide(_ activity: Activity, goal: Goal?) -> Money? {
        switch activity.kind {
        case .void: return nil
        case .saving: return Money(minorUnits: Money.negate(activity.amount.minorUnits), currency: activity.amount.currency)
        case .moveToGoal, .other: return activity.amount
        }
    }

    static func of(_ activity: Activity, goal: Goal?, source: String) -> [String] {
        let name = Cell.accountPart(source)
        let account = "assets:\(name):account"
        let goalAccount = "assets:\(name):savings:" + (goal.map { Cell.accountPart($0.name) } ?? "no goal")
        let amount = activity.amount
        let opposite = Money(minorUnits: Money.negate(amount.minorUnits), currency: amount.currency)
        func posting(_ account: String, _ money: Money) -> String { "\(account)  \(Cell.ledgerAmount(money))" }
        switch activity.kind {
        case .void:
            return []
        case .saving:
            return [posting(goalAccount, amount), posting(account, opposite)]
        case .moveToGoal:
            return [posting(goalAccount, opposite), posting(account, amount)]
        case .other:
            // Money back out of a goal into the account (the bank names the goal).
            if goal != nil { return [posting(goalAccount, opposite), posting(account, amount)] }
            let category = activity.category.map { Cell.accountPart($0.lowercased()) } ?? "unknown"
            let other = (amount.minorUnits < 0 ? "expenses:" : "income:") + category
            return [posting(account, amount), posting(other, opposite)]
        }
    }
}
