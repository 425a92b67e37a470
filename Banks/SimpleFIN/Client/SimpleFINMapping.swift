import FeedModel
import Foundation

/// SimpleFIN's accounts and transactions as the app's goals, header, activity and round-ups
/// (docs/banks.md, SimpleFIN's mapping), from one `SimpleFINStore` and the config file's table.
public struct SimpleFINMapping: Sendable {
    public let store: SimpleFINStore
    public let settings: SimpleFINAPI.Settings

    public init(store: SimpleFINStore, settings: SimpleFINAPI.Settings) {
        self.store = store
        self.settings = settings
    }

    /// Merchant category codes that are cash or transfer-like: never rounded up.
    public static let excludedMCCs: Set<String> = ["6010", "6011", "6012", "6051", "4829"]
    /// A pending row's posted twin: same account and amount within this many seconds.
    public static let twinWindow: Int64 = 5 * 86_400
    /// A transfer between the user's own accounts: the opposite amount in another within this.
    public static let transferWindow: Int64 = 3 * 86_400
    /// The holder's user id (SimpleFIN has no people).
    public static let holderId = 1

    /// Whether `name` (an account's name or id, as the config file writes it) names `account`.
    static func names(_ name: String, _ account: SimpleFIN.AccountRecord) -> Bool {
        let wanted = name.lowercased()
        return TextSanitizer.clean(account.name).lowercased() == wanted || TextSanitizer.clean(account.id).lowercased() == wanted
    }

    /// The accounts named in `goals`, in the config file's order (ISO currencies only).
    /// Without goals in the config file, where to put them, a line to copy, and the accounts to
    /// choose from (issue 50.13): no dead end.
    public var noGoalsNote: String? {
        guard goalAccounts.isEmpty, !store.accounts.isEmpty else { return nil }
        let names = store.accounts.map { TextSanitizer.clean($0.name) }.filter { !$0.isEmpty }
        // A savings account makes the best example; else the second account (the first is spending).
        let example = names.first { $0.localizedCaseInsensitiveContains("sav") } ?? names.dropFirst().first ?? names.first ?? "Savings"
        let listed = names.count > 3 ? names.prefix(3).joined(separator: ", ") + " +\(names.count - 3)" : names.joined(separator: ", ")
        return "No goals: add [simplefin] goals = \"\(example)\" to \(settings.configFileShown) (accounts: \(listed))"
    }

    public var goalAccounts: [SimpleFIN.AccountRecord] {
        namedGoalAccounts.filter { SimpleFINCurrency($0.currency).iso != nil }
    }

    /// Every account `goals` names, a custom-currency one included (it is named, never a goal).
    var namedGoalAccounts: [SimpleFIN.AccountRecord] {
        settings.goals.compactMap { name in store.accounts.first { SimpleFINMapping.names(name, $0) } }
    }

    /// The spending accounts: those named in `spending`, else every ISO-currency account that is no goal.
    public var spendingAccounts: [SimpleFIN.AccountRecord] {
        let goals = Set(goalAccounts.map(\.key))
        let iso = store.accounts.filter { SimpleFINCurrency($0.currency).iso != nil }
        if let named = settings.spending {
            return named.compactMap { name in iso.first { SimpleFINMapping.names(name, $0) } }
        }
        return iso.filter { !goals.contains($0.key) }
    }

    /// The first spending account's currency (else the first goal's, else USD).
    public var accountCurrency: Currency {
        (spendingAccounts.first ?? goalAccounts.first).flatMap { SimpleFINCurrency($0.currency).iso } ?? .usd
    }

    /// A connection that needs attention on the Bridge (`con.auth`), by connection key.
    var needsAttention: Set<String> {
        Set(store.problems.filter { $0.known == "con.auth" }.compactMap(\.connId))
    }

    static let attention = "needs attention on the SimpleFIN Bridge"

    /// The problems the user reads (every one but `gen.api`, which goes to the log), cleaned.
    public static func shownProblems(_ problems: [SimpleFIN.Problem], store: SimpleFINStore) -> [String] {
        problems.filter { $0.known != "gen.api" }.map { problem in
            let connection = problem.connId.flatMap { id in store.connections.first { $0.connId == id }?.name }.map { TextSanitizer.clean($0) }
            let code = problem.code.isEmpty ? "" : " (\(TextSanitizer.clean(String(problem.code.prefix(30)))))"
            let text = problem.known == "con.auth" ? attention + (problem.shown.isEmpty ? "" : ": " + problem.shown) : problem.shown
            return (connection.map { $0 + " " } ?? "SimpleFIN: ") + text + code
        }
    }

    /// Custom-currency accounts the config names as goals, for the status bar: the amount as a
    /// plain number and "custom currency (host)", never a symbol, never a goal.
    public var customNotes: [String] {
        namedGoalAccounts.compactMap { account in
            guard case .custom(let label) = SimpleFINCurrency(account.currency) else { return nil }
            return "\(TextSanitizer.clean(account.name)): " + SimpleFINMapping.customText(account.balance, label: label) + ", not a goal"
        }
    }

    /// An amount of an account, or nil when unreadable (or in a custom currency).
    static func money(_ text: String, _ currency: SimpleFINCurrency) -> Money? {
        guard let iso = currency.iso, let minor = SimpleFINAmount.minorUnits(text, minorDigits: iso.minorDigits) else { return nil }
        return Money(bounded: minor, currency: iso)
    }

    /// "2,500.00 custom currency (rewards.example.com)": a plain number, never a symbol.
    public static func customText(_ text: String, label: String) -> String {
        let cleaned = TextSanitizer.clean(String(text.prefix(40)))
        return "\(cleaned) \(label)"
    }

    // MARK: - Header

    /// The first spending account: its name and connection, its balance (available beside it
    /// when it differs) and the data's age.
    public func header(now: Date) -> Account? {
        guard let account = spendingAccounts.first ?? goalAccounts.first else { return nil }
        let currency = SimpleFINCurrency(account.currency)
        let iso = currency.iso ?? .usd
        let balance = SimpleFINMapping.money(account.balance, currency)
        let available = account.availableBalance.flatMap { SimpleFINMapping.money($0, currency) }
        var holder = TextSanitizer.clean(account.name)
        let connection = TextSanitizer.clean(store.connectionName(account))
        if !connection.isEmpty { holder += " · \(connection)" }
        if needsAttention.contains(account.connectionKey) { holder += " — " + SimpleFINMapping.attention }
        if balance == nil { holder += " — balance unreadable: \"\(TextSanitizer.clean(String(account.balance.prefix(30))))\"" }
        var numbers: String?
        if account.balanceDate > 0 {
            let age = max(0, now.timeIntervalSince1970 - Double(account.balanceDate))
            numbers = age < 3_600 ? "as of <1 h" : age < 172_800 ? "as of \(Int(age / 3_600)) h ago" : "as of \(Int(age / 86_400)) d ago"
        }
        if let available, let balance, available != balance {
            numbers = [numbers, "available \(available.formatted)"].compactMap { $0 }.joined(separator: " · ")
        }
        let opened = account.openDate.map { Date(timeIntervalSince1970: Double($0)) } ?? Date(timeIntervalSince1970: 946_684_800)
        var header = Account(id: account.key, name: account.name, currency: iso, createdAt: opened, holder: holder,
                             accountNumber: numbers, effectiveBalance: balance)
        header.feedBalance = feedBalance
        return header
    }

    /// The spending accounts' balances together: what Activity's rows (their transactions
    /// merged) move. Nil when one is unreadable, in another currency, or the sum overflows.
    var feedBalance: FeedBalance? {
        let accounts = spendingAccounts
        guard let first = accounts.first, let currency = SimpleFINCurrency(first.currency).iso else { return nil }
        var total: Int64 = 0
        for account in accounts {
            guard SimpleFINCurrency(account.currency).iso == currency,
                  let balance = SimpleFINMapping.money(account.balance, SimpleFINCurrency(account.currency)) else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(balance.minorUnits)
            if overflow { return nil }
            total = sum
        }
        let asOf = accounts.map(\.balanceDate).max() ?? 0
        return FeedBalance(amount: Money(minorUnits: total, currency: currency), asOf: Date(timeIntervalSince1970: Double(asOf)),
                           accounts: accounts.count > 3 ? "\(accounts.count) accounts" : accounts.map(\.name).joined(separator: ", "))
    }

    // MARK: - Goals

    /// The accounts named in `goals`: saved = balance, target from `goal-targets`.
    /// A custom-currency account named there is no goal (`customNotes` names it).
    public func goals(skipped: SkippedRecords?) -> [Goal] {
        let accounts = goalAccounts
        let attention = needsAttention
        let resource = "GET /accounts (goals)"
        return (skipped ?? SkippedRecords()).mapEach(accounts, resource: resource, name: { "id \($0.id)" }) { account throws(MalformedPayload) in
            let currency = SimpleFINCurrency(account.currency)
            guard let iso = currency.iso, let balance = SimpleFINMapping.money(account.balance, currency) else {
                throw MalformedPayload(resource: "balance", reason: "unreadable amount \"\(TextSanitizer.clean(String(account.balance.prefix(30))))\"")
            }
            let targetText = settings.targets.first { SimpleFINMapping.names($0.key, account) }?.value
            let target = targetText.flatMap { SimpleFINAmount.minorUnits($0, minorDigits: iso.minorDigits) }
                .flatMap { Money(bounded: $0, currency: iso) }
            var name = TextSanitizer.clean(account.name)
            let connection = TextSanitizer.clean(store.connectionName(account))
            if !connection.isEmpty { name += " · " + connection }
            if attention.contains(account.connectionKey) { name += " (" + SimpleFINMapping.attention + ")" }
            var goal = Goal(id: GoalID(account.key), name: name, ownerId: SimpleFINMapping.holderId, target: target, balance: balance)
            // The names the config file may call it by: the account's own, and the bank's id.
            goal.aliases = [TextSanitizer.clean(account.name), TextSanitizer.clean(account.id)].filter { !$0.isEmpty }
            return goal
        }
    }

    /// A goal's detail: that account's own transactions, newest first; an unreadable amount is
    /// listed with its text and moves nothing.
    public func feed(accountKey: String) -> [FeedItem] {
        guard let account = store.account(accountKey) else { return [] }
        let currency = SimpleFINCurrency(account.currency)
        let iso = currency.iso ?? .usd
        return replacingPendingTwins(store.transactions[accountKey] ?? []).map { row in
            let amount = SimpleFINMapping.money(row.amount, currency)
            var text = TextSanitizer.clean(row.label)
            if row.isPending { text += " (pending)" }
            if amount == nil { text += " — unreadable amount \"\(TextSanitizer.clean(String(row.amount.prefix(30))))\"" }
            return FeedItem(id: accountKey + "/" + row.id, type: amount == nil ? FeedItem.voidType : "saving",
                            timestamp: Date(timeIntervalSince1970: Double(row.time)), message: MarkupText(runs: [.init(text)]),
                            amount: amount ?? .zero(iso), userId: SimpleFINMapping.holderId)
        }.sorted { $0.timestamp > $1.timestamp }
    }

    // MARK: - Activity

    /// A pending row is dropped when its posted twin is there (same account and amount within
    /// five days: the id may change when it posts); posted rows are never merged with each other.
    public func replacingPendingTwins(_ rows: [SimpleFIN.TransactionRecord]) -> [SimpleFIN.TransactionRecord] {
        var posted = rows.filter { !$0.isPending }
        var unused = Array(repeating: true, count: posted.count)
        var kept: [SimpleFIN.TransactionRecord] = []
        for row in rows where row.isPending {
            if let index = posted.indices.first(where: { unused[$0] && posted[$0].amount == row.amount
                && abs(posted[$0].time - row.time) <= SimpleFINMapping.twinWindow }) {
                unused[index] = false
                continue
            }
            kept.append(row)
        }
        posted += kept
        return posted
    }

    /// Every spending account's rows in `[from, to)`, each with its account.
    func spendingRows(from: Date, to: Date) -> [(account: SimpleFIN.AccountRecord, row: SimpleFIN.TransactionRecord)] {
        let start = from.timeIntervalSince1970
        let end = to.timeIntervalSince1970
        return spendingAccounts.flatMap { account in
            replacingPendingTwins(store.transactions[account.key] ?? []).filter { row in
                let time = Double(row.time)
                return time >= start && time < end
            }.map { (account, $0) }
        }
    }

    /// The spending accounts' transactions merged, newest first, one account name per row;
    /// pending marked; an unreadable amount shown with its text, in no sum. Money out matched by
    /// the opposite amount in a goal account within `transferWindow` is a move into that goal
    /// (issue 50.7: the journal books it to the goal's account, as every other source does);
    /// each goal row is matched once.
    public func activities(from: Date, to: Date) -> ActivityPage {
        let several = spendingAccounts.count > 1
        var goalRows = goalAccounts.flatMap { account in
            replacingPendingTwins(store.transactions[account.key] ?? []).map { (account: account, row: $0, used: false) }
        }
        func goalMove(_ row: SimpleFIN.TransactionRecord, _ amount: Money?) -> GoalID? {
            guard let amount, amount.minorUnits < 0 else { return nil }
            let digits = amount.currency.minorDigits
            guard let index = goalRows.indices.first(where: { index in
                let other = goalRows[index]
                return !other.used && abs(other.row.time - row.time) <= SimpleFINMapping.transferWindow
                    && SimpleFINAmount.minorUnits(other.row.amount, minorDigits: digits) == -amount.minorUnits
                    && SimpleFINCurrency(other.account.currency).iso == amount.currency
            }) else { return nil }
            goalRows[index].used = true
            return GoalID(goalRows[index].account.key)
        }
        let activities = spendingRows(from: from, to: to).sorted { $0.row.time != $1.row.time ? $0.row.time > $1.row.time : $0.row.id < $1.row.id }
            .map { account, row -> Activity in
            let currency = SimpleFINCurrency(account.currency)
            let amount = SimpleFINMapping.money(row.amount, currency)
            var text = TextSanitizer.clean(row.label)
            if several { text += " · " + TextSanitizer.clean(account.name) }
            if row.isPending { text += " (pending)" }
            if amount == nil { text += " — unreadable amount \"\(TextSanitizer.clean(String(row.amount.prefix(30))))\"" }
            let goal = goalMove(row, amount)
            return Activity(id: account.key + "/" + row.id, message: MarkupText(runs: [.init(text)]),
                            amount: amount ?? .zero(currency.iso ?? accountCurrency), userId: SimpleFINMapping.holderId,
                            timestamp: Date(timeIntervalSince1970: Double(row.time)),
                            kind: amount == nil ? .void : goal == nil ? .other : .moveToGoal, goalId: goal)
        }.sorted { $0.timestamp != $1.timestamp ? $0.timestamp > $1.timestamp : $0.id < $1.id }
        return ActivityPage(oldest: oldest, activities: activities)
    }

    /// Where the history ends: what is kept once SimpleFIN had nothing older, else the oldest
    /// account's opening (or 2000).
    public var oldest: Date {
        if store.reachedEnd, let from = store.coveredFrom { return Date(timeIntervalSince1970: Double(from)) }
        let opened = spendingAccounts.compactMap(\.openDate).min()
        return Date(timeIntervalSince1970: Double(opened ?? 946_684_800))
    }

    // MARK: - Round-ups

    /// The spending accounts' money-out rows of `[from, to)` as payments, each rounding up only
    /// by the spec's rule (`roundsUp`); pending rows marked.
    public func transactions(from: Date, to: Date) -> [FeedModel.Transaction] {
        let everyRow = store.accounts.flatMap { account in
            (store.transactions[account.key] ?? []).map { (key: account.key, row: $0) }
        }
        return spendingRows(from: from, to: to).compactMap { account, row -> FeedModel.Transaction? in
            let currency = SimpleFINCurrency(account.currency)
            guard let amount = SimpleFINMapping.money(row.amount, currency) else { return nil }
            var label = TextSanitizer.clean(row.label)
            if row.isPending { label += " (pending)" }
            let others = everyRow.filter { $0.key != account.key }.map(\.row)
            return FeedModel.Transaction(id: account.key + "/" + row.id, timestamp: Date(timeIntervalSince1970: Double(row.time)),
                                         amount: amount, counterparty: label,
                                         roundsUp: SimpleFINMapping.roundsUp(row, amount: amount, otherAccounts: others))
        }
    }

    /// The round-up rule: money out only; with an `mcc`, unless it is cash or transfer-like;
    /// without one, unless it is a transfer between the user's own accounts (the opposite amount
    /// in another of them within three days).
    public static func roundsUp(_ row: SimpleFIN.TransactionRecord, amount: Money, otherAccounts: [SimpleFIN.TransactionRecord]) -> Bool {
        guard amount.minorUnits < 0 else { return false }
        if let mcc = row.mcc?.trimmingCharacters(in: .whitespaces), !mcc.isEmpty {
            return !excludedMCCs.contains(mcc)
        }
        let digits = amount.currency.minorDigits
        return !otherAccounts.contains { other in
            guard let minor = SimpleFINAmount.minorUnits(other.amount, minorDigits: digits) else { return false }
            return minor == -amount.minorUnits && abs(other.time - row.time) <= transferWindow
        }
    }
}
