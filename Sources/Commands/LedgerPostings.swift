import FeedModel

/// The postings of one activity in the journal, double-entry as a hledger user writes them
/// (docs/cli.md, "ledger"). NAME is the source (`starling`, `qapital`), ACCOUNT the bank
/// account's part (`account`; on a bank whose Activity merges accounts, Enable Banking's, the
/// row's own account's name):
/// - a saving into a goal (the Qapital API, the demo): `assets:NAME:savings:GOAL` gets the
///   amount, from `assets:NAME:ACCOUNT`;
/// - money a bank moved between the account and a goal (into it: the account's amount is
///   negative; out of it: positive): the account gets the amount, `assets:NAME:savings:GOAL`
///   the opposite;
/// - any other payment or income of a bank account: the account gets the amount, and
///   `expenses:CATEGORY` (money out) or `income:CATEGORY` (money in) the opposite, with the
///   bank's category where it gives one, else `unknown`;
/// - declined or reversed: no posting (the transaction is listed, nothing moved).
/// Both amounts are written, so every transaction balances to zero on its own.
enum LedgerPostings {
    /// One posting: the journal's account and what it moves there.
    struct Posting: Equatable {
        let account: String
        let amount: Money

        var line: String { "\(account)  \(Cell.ledgerAmount(amount))" }
    }

    /// `assets:NAME:ACCOUNT`: where a bank account's side goes (`part`: ACCOUNT, already an account part).
    static func bankAccount(source: String, part: String = "account") -> String { "assets:\(Cell.accountPart(source)):\(part)" }

    /// `assets:NAME:savings:GOAL`, or `savings:no goal` for a move into a goal the source no longer lists.
    static func goalAccount(source: String, goal: Goal?) -> String {
        "assets:\(Cell.accountPart(source)):savings:" + (goal.map { Cell.accountPart($0.name) } ?? "no goal")
    }

    static func postings(_ activity: Activity, goal: Goal?, source: String, accountPart: String = "account") -> [Posting] {
        let account = bankAccount(source: source, part: accountPart)
        let goalAccount = goalAccount(source: source, goal: goal)
        let amount = activity.amount
        let opposite = Money(minorUnits: Money.negate(amount.minorUnits), currency: amount.currency)
        switch activity.kind {
        case .void:
            return []
        case .saving:
            return [Posting(account: goalAccount, amount: amount), Posting(account: account, amount: opposite)]
        case .moveToGoal:
            return [Posting(account: goalAccount, amount: opposite), Posting(account: account, amount: amount)]
        case .other:
            // Money back out of a goal into the account (the bank names the goal).
            if goal != nil { return [Posting(account: goalAccount, amount: opposite), Posting(account: account, amount: amount)] }
            let category = activity.category.map { Cell.accountPart($0.lowercased()) } ?? "unknown"
            let other = (amount.minorUnits < 0 ? "expenses:" : "income:") + category
            return [Posting(account: account, amount: amount), Posting(account: other, amount: opposite)]
        }
    }
}
