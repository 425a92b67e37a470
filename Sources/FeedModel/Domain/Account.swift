import Foundation

/// The bank account behind a source that has one (Starling): who holds it, its numbers, its
/// currency and balance, and when it was opened (the start of its history).
public struct Account: Hashable, Sendable {
    /// The server's id for the account (Starling's `accountUid`).
    public var id: String
    /// The account's own name ("Personal").
    public var name: String
    /// Every amount of the account is in it; only round-ups in it can be saved.
    public var currency: Currency
    /// When the account was opened: nothing in its feeds is older.
    public var createdAt: Date
    public var holder: String?
    /// "60-83-71"
    public var sortCode: String?
    public var accountNumber: String?
    /// What can be spent, pending payments included.
    public var effectiveBalance: Money?
    /// The balance with the account's savings containers (Monzo's pots), where the bank says it.
    public var totalBalance: Money?
    /// The balance that Activity's rows move, as the source says it, where the source vouches that
    /// every row from the history's start sums to it (SimpleFIN: its spending accounts together,
    /// whose transactions Activity merges). `export --output ledger` opens the journal with what
    /// it leaves before the first row, so hledger's balance is the bank's.
    public var feedBalance: FeedBalance?

    public init(id: String, name: String, currency: Currency, createdAt: Date, holder: String? = nil,
                sortCode: String? = nil, accountNumber: String? = nil, effectiveBalance: Money? = nil, totalBalance: Money? = nil) {
        self.totalBalance = totalBalance
        self.id = TextSanitizer.clean(id)
        self.name = TextSanitizer.clean(name)
        self.currency = currency
        self.createdAt = createdAt
        self.holder = holder.map(TextSanitizer.clean)
        self.sortCode = sortCode.map(TextSanitizer.clean)
        self.accountNumber = accountNumber.map(TextSanitizer.clean)
        self.effectiveBalance = effectiveBalance
    }

    /// "Jane Doe · 60-83-71 12345678 · £1,234.56": what a header line shows, parts it lacks left out.
    public var summary: String {
        var parts: [String] = []
        if let holder, !holder.isEmpty { parts.append(holder) }
        let numbers = [sortCode, accountNumber].compactMap { $0 }.filter { !$0.isEmpty }
        if !numbers.isEmpty { parts.append(numbers.joined(separator: " ")) }
        if let balance = balanceText { parts.append(balance) }
        if parts.isEmpty { parts.append(name) }
        return parts.joined(separator: " · ")
    }

    /// "£1,234.56", with the pots beside it where the bank says a different total.
    private var balanceText: String? {
        guard let effectiveBalance else { return nil }
        guard let totalBalance, totalBalance != effectiveBalance else { return effectiveBalance.formatted }
        return "\(effectiveBalance.formatted) (\(totalBalance.formatted) with pots)"
    }

    /// The summary, then shorter forms for a narrow bar, each keeping the balance: without the
    /// numbers, then the account's own name and the balance, then the balance alone.
    public var summaries: [String] {
        var forms = [summary]
        if let effectiveBalance, let balance = balanceText {
            if let holder, !holder.isEmpty { forms.append("\(holder) · \(balance)") }
            forms.append("\(name) · \(balance)")
            forms.append(balance)
            forms.append(effectiveBalance.formatted)
        }
        var seen = Set<String>()
        return forms.filter { seen.insert($0).inserted }
    }

    /// "608371" → "60-83-71"; anything that is not six digits stays as it is.
    public static func formatSortCode(_ text: String) -> String {
        let digits = text.filter { $0 != "-" && $0 != " " }
        guard digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return text }
        let characters = Array(digits)
        return "\(String(characters[0..<2]))-\(String(characters[2..<4]))-\(String(characters[4..<6]))"
    }
}

extension Account {
    /// The account with its balance as the balance of what Activity lists (`feedBalance`), for a
    /// bank whose Activity is this one account's movements: its journal then opens with the
    /// balance less its rows, and hledger shows the bank's figure (issue 50.7).
    public func withFeedBalance(asOf: Date) -> Account {
        var account = self
        account.feedBalance = effectiveBalance.map { FeedBalance(amount: $0, asOf: asOf, accounts: name.isEmpty ? "the account" : name) }
        return account
    }
}

/// The balance of what Activity lists, as a source says it (`Account.feedBalance`).
public struct FeedBalance: Hashable, Sendable {
    public var amount: Money
    /// When the source says the balance held.
    public var asOf: Date
    /// Which accounts it is the balance of, for the journal's comment ("Everyday Checking").
    public var accounts: String

    public init(amount: Money, asOf: Date, accounts: String) {
        self.amount = amount
        self.asOf = asOf
        self.accounts = TextSanitizer.clean(accounts)
    }
}
