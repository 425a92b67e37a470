import FeedModel
import Foundation

/// Enable Banking's accounts and transactions as the app's header, goals, activity and
/// round-ups (docs/banks.md, Enable Banking), from one `EnableBankingStore` and the config
/// file's table. Named accounts are goals (saved = booked balance), the rest activity.
public struct EnableBankingMapping: Sendable {
    public let store: EnableBankingStore
    public let settings: EnableBankingSettings

    public init(store: EnableBankingStore, settings: EnableBankingSettings) {
        self.store = store
        self.settings = settings
    }

    public static let excludedMCCs: Set<String> = ["6010", "6011", "6012", "6051", "4829"]
    public static let transferWindow: TimeInterval = 3 * 86_400
    public static let holderId = 1
    static let bookedOrder = ["ITBD", "CLBD", "XPCD", "OPBD", "PRCD", "OTHR", "INFO", "VALU"]
    static let availableOrder = ["ITAV", "CLAV", "FWAV", "XPCD"]

    /// The booked balance: the first of the spec's types present and readable.
    public static func booked(_ balances: [EnableBanking.Balance]) -> Money? { first(bookedOrder, in: balances) }
    public static func available(_ balances: [EnableBanking.Balance]) -> Money? { first(availableOrder, in: balances) }

    static func first(_ order: [String], in balances: [EnableBanking.Balance]) -> Money? {
        for type in order {
            if let balance = balances.first(where: { $0.type == type }), let money = EnableBankingAmount.balance(balance.amount) { return money }
        }
        return nil
    }

    /// Whether `name` (as the config file writes it: a name, an IBAN or a uid) names `account`.
    static func names(_ name: String, _ account: EnableBanking.Account) -> Bool {
        let wanted = name.lowercased().filter { !$0.isWhitespace }
        let candidates = [account.shownName, account.accountId?.iban, account.accountId?.other, account.uid]
        return candidates.contains { $0.map { TextSanitizer.clean($0).lowercased().filter { !$0.isWhitespace } == wanted } ?? false }
    }

    public var goalAccounts: [EnableBankingStore.AccountData] {
        settings.goals.compactMap { name in store.accounts.first { EnableBankingMapping.names(name, $0.account) } }
    }

    public var spendingAccounts: [EnableBankingStore.AccountData] {
        let goals = Set(goalAccounts.map(\.account.key))
        if let named = settings.spending {
            return named.compactMap { name in store.accounts.first { EnableBankingMapping.names(name, $0.account) } }
        }
        return store.accounts.filter { !goals.contains($0.account.key) }
    }

    static func currency(_ data: EnableBankingStore.AccountData) -> Currency? {
        data.account.currency.flatMap(Currency.from(code:)) ?? booked(data.balances)?.currency
    }

    public var accountCurrency: Currency {
        (spendingAccounts + goalAccounts).lazy.compactMap(EnableBankingMapping.currency).first ?? .eur
    }

    /// Without goals in the config file: where to put them and the accounts to choose from.
    /// Goals given that name no account are `unmatchedNote`'s.
    public var noGoalsNote: String? {
        guard settings.goals.isEmpty, goalAccounts.isEmpty, !store.accounts.isEmpty else { return nil }
        let names = store.accounts.map(\.account.shownName)
        let example = names.first { $0.localizedCaseInsensitiveContains("sav") } ?? names.dropFirst().first ?? names[0]
        let listed = names.count > 3 ? names.prefix(3).joined(separator: ", ") + " +\(names.count - 3)" : names.joined(separator: ", ")
        return "No goals: add [enablebanking] goals = \"\(example)\" to \(settings.configFileShown) (accounts: \(listed))"
    }

    /// The config file's `goals` and `spending` entries that name no account, as written (cleaned).
    public var unmatchedNames: [(setting: String, name: String)] {
        guard !store.accounts.isEmpty else { return [] }
        let named = [("goals", settings.goals), ("spending", settings.spending ?? [])]
        return named.flatMap { setting, names in
            names.filter { name in !store.accounts.contains { EnableBankingMapping.names(name, $0.account) } }
                .map { (setting, TextSanitizer.clean($0)) }
        }
    }

    /// `goals = "Baloons; Dog"` showed Dog alone and Balloons became a spending account, silently:
    /// "[enablebanking] goals "Baloons" names no account (accounts: …)", the accounts to choose from.
    public var unmatchedNote: String? {
        let unmatched = unmatchedNames
        guard !unmatched.isEmpty else { return nil }
        let settingsShown = ["goals", "spending"].compactMap { setting -> String? in
            let names = unmatched.filter { $0.setting == setting }.map { "\"\($0.name)\"" }
            return names.isEmpty ? nil : "\(setting) \(names.joined(separator: ", "))"
        }
        let accounts = store.accounts.map(\.account.shownName)
        let listed = accounts.count > 4 ? accounts.prefix(4).joined(separator: ", ") + " +\(accounts.count - 4)" : accounts.joined(separator: ", ")
        let verb = unmatched.count == 1 ? "names no account" : "name no account"
        return "[enablebanking] \(settingsShown.joined(separator: " and ")) \(verb) in \(settings.configFileShown) (accounts: \(listed))"
    }

    /// "Everyday Account ••7469": the name and the masked IBAN.
    static func shown(_ account: EnableBanking.Account) -> String {
        let number = account.accountId?.iban ?? account.accountId?.other
        return account.shownName + (number.map { " " + EnableBanking.masked($0) } ?? "")
    }

    // MARK: - Header

    /// The first spending account: name, masked IBAN, booked balance (available beside it when
    /// different), the bank, and `consent` (the days left, or the end).
    public func header(bank: String, consent: String?) -> Account? {
        guard let data = spendingAccounts.first ?? goalAccounts.first else { return nil }
        let currency = EnableBankingMapping.currency(data) ?? .eur
        let booked = EnableBankingMapping.booked(data.balances)
        let available = EnableBankingMapping.available(data.balances)
        // The consent's days go with the bank's name (the header's shorter forms keep the holder);
        // the masked IBAN and the available balance are the numbers, dropped first when narrow.
        var holder = data.account.shownName + " · " + TextSanitizer.clean(bank) + (consent.map { " · " + $0 } ?? "")
        if let problem = data.problem { holder += " — " + problem }
        var numbers: [String] = []
        if let number = data.account.accountId?.iban ?? data.account.accountId?.other { numbers.append(EnableBanking.masked(number)) }
        if let available, available != booked { numbers.append("available \(available.formatted)") }
        return Account(id: data.account.key, name: data.account.shownName, currency: currency,
                       createdAt: Date(timeIntervalSince1970: 946_684_800), holder: holder,
                       accountNumber: numbers.isEmpty ? nil : numbers.joined(separator: " · "), effectiveBalance: booked)
    }

    /// Each spending account's rows by id: the account (the 12 hex its rows' ids begin with, and
    /// its name) and whether the row is pending.
    public var activityDetails: [String: ActivityDetails] {
        var details: [String: ActivityDetails] = [:]
        for data in spendingAccounts {
            for row in rows(data) {
                details[row.id] = ActivityDetails(accountId: String(row.id.prefix { $0 != "/" }), accountName: data.account.shownName,
                                                  pending: row.pending)
            }
        }
        return details
    }

    /// What a whole export opens and asserts (docs/cli.md, "ledger"): each spending account (its
    /// rows are the journal's, under its own name) and each goal account (the moves into it are
    /// its savings account's), with its booked balance in its own currency; nil where unknown.
    public var bookedBalances: [BookedBalance] {
        let spending = spendingAccounts.map { data in
            BookedBalance(holder: .account(id: EnableBankingIDs.accountPart(data.account.key)), name: data.account.shownName,
                          booked: EnableBankingMapping.booked(data.balances), asOf: data.lastRead)
        }
        let goals = goalAccounts.map { data in
            BookedBalance(holder: .goal(GoalID(data.account.key)), name: EnableBankingMapping.shown(data.account),
                          booked: EnableBankingMapping.booked(data.balances), asOf: data.lastRead)
        }
        return spending + goals
    }

    // MARK: - Goals

    public func goals(skipped: SkippedRecords?) -> [Goal] {
        (skipped ?? SkippedRecords()).mapEach(goalAccounts, resource: "GET /accounts/{uid}/balances (goals)",
                                               name: { $0.account.shownName }) { data throws(MalformedPayload) in
            guard let balance = EnableBankingMapping.booked(data.balances) else {
                throw MalformedPayload(resource: "balance", reason: data.lastRead == nil ? "not read yet" : "no booked balance")
            }
            let targetText: String? = settings.targets.first { EnableBankingMapping.names($0.key, data.account) }?.value
            let target = targetText
                .flatMap { EnableBankingAmount.magnitude($0, minorDigits: balance.currency.minorDigits) }
                .flatMap { Money(bounded: $0, currency: balance.currency) }
            var goal = Goal(id: GoalID(data.account.key), name: EnableBankingMapping.shown(data.account), ownerId: EnableBankingMapping.holderId,
                            target: target, balance: balance)
            let aliases: [String?] = [data.account.shownName, data.account.accountId?.iban, data.account.uid]
            goal.aliases = aliases.compactMap { $0 }.map { TextSanitizer.clean($0) }
            return goal
        }
    }

    /// A goal's detail: its own rows, newest first.
    public func feed(accountKey: String) -> [FeedItem] {
        guard let data = store.data(accountKey) else { return [] }
        let currency = EnableBankingMapping.currency(data) ?? accountCurrency
        return rows(data).map { row in
            let amount = row.money
            return FeedItem(id: row.id, type: amount == nil ? FeedItem.voidType : "saving", timestamp: row.time,
                            message: MarkupText(runs: [.init(row.text)]), amount: amount ?? .zero(currency), userId: EnableBankingMapping.holderId)
        }.sorted { $0.timestamp != $1.timestamp ? $0.timestamp > $1.timestamp : $0.id < $1.id }
    }

    // MARK: - Activity

    /// One row as shown: its id, time (00:00 local of its date), text with its marks, and amount
    /// (nil: unreadable, no indicator, or cancelled: in no sum).
    public struct ShownRow: Sendable {
        public let id: String
        public let time: Date
        public let text: String
        public let money: Money?
        public let pending: Bool
        public let transaction: EnableBanking.Transaction
    }

    /// 00:00 of `date` (`YYYY-MM-DD`) in `timeZone`.
    static func time(_ date: String?, in timeZone: TimeZone) -> Date {
        guard let date, date.count >= 10 else { return Date(timeIntervalSince1970: 0) }
        let parts = date.prefix(10).split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return Date(timeIntervalSince1970: 0) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) ?? Date(timeIntervalSince1970: 0)
    }

    func rows(_ data: EnableBankingStore.AccountData) -> [ShownRow] {
        (data.booked + data.pending).map { row in
            let transaction = row.transaction
            var money = EnableBankingAmount.money(transaction.amount, indicator: transaction.indicator)
            var text = transaction.text
            if transaction.isPending { text += " (pending)" }
            if transaction.isCancelled {
                text += " (cancelled)"
                money = nil
            } else if money == nil {
                let amount = transaction.amount.map { TextSanitizer.clean(String("\($0.amount) \($0.currency)".prefix(30))) } ?? "none"
                text += " — unreadable amount \"\(amount)\"" + (transaction.indicator == nil ? ", no credit or debit" : "")
            }
            return ShownRow(id: row.id, time: EnableBankingMapping.time(transaction.date, in: settings.timeZone), text: text, money: money,
                            pending: transaction.isPending, transaction: transaction)
        }
    }

    /// The spending accounts' rows in `[from, to)`, merged, newest first, the account on each
    /// row when there are several; a debit matched by the opposite amount in a goal account
    /// within three days is a move into that goal.
    public func activities(from: Date, to: Date) -> ActivityPage {
        let several = spendingAccounts.count > 1
        var goalRows = goalAccounts.flatMap { data in rows(data).map { (key: data.account.key, row: $0, used: false) } }
        func goalMove(_ row: ShownRow) -> GoalID? {
            guard let amount = row.money, amount.minorUnits < 0 else { return nil }
            guard let index = goalRows.indices.first(where: { index in
                !goalRows[index].used && goalRows[index].row.money == Money(minorUnits: -amount.minorUnits, currency: amount.currency)
                    && abs(goalRows[index].row.time.timeIntervalSince(row.time)) <= EnableBankingMapping.transferWindow
            }) else { return nil }
            goalRows[index].used = true
            return GoalID(goalRows[index].key)
        }
        var located: [(data: EnableBankingStore.AccountData, row: ShownRow)] = []
        for data in spendingAccounts {
            for row in rows(data) where row.time >= from && row.time < to { located.append((data, row)) }
        }
        located.sort { $0.row.time != $1.row.time ? $0.row.time > $1.row.time : $0.row.id < $1.row.id }
        var activities: [Activity] = []
        for (data, row) in located {
            let currency = EnableBankingMapping.currency(data) ?? accountCurrency
            let text = row.text + (several ? " · " + data.account.shownName : "")
            let goal = goalMove(row)
            let kind: Activity.Kind = row.money == nil ? .void : goal == nil ? .other : .moveToGoal
            activities.append(Activity(id: row.id, message: MarkupText(runs: [.init(text)]), amount: row.money ?? .zero(currency),
                                       userId: EnableBankingMapping.holderId, timestamp: row.time, kind: kind, goalId: goal))
        }
        return ActivityPage(oldest: oldest, activities: activities)
    }

    /// Where the history the bank gave begins: the day of the oldest row it gave for the
    /// spending accounts; without a row, the oldest `date_from` read (nothing older is asked).
    public var oldest: Date {
        if let first = spendingAccounts.flatMap({ rows($0) }).map(\.time).min() { return first }
        let from = spendingAccounts.compactMap(\.historyFrom).min()
        return from.map { EnableBankingMapping.time($0, in: settings.timeZone) } ?? Date(timeIntervalSince1970: 946_684_800)
    }

    // MARK: - Round-ups

    /// The spending accounts' debits of `[from, to)` as payments, rounding up by the rule.
    public func transactions(from: Date, to: Date) -> [FeedModel.Transaction] {
        let everyRow = store.accounts.flatMap { data in rows(data).map { (key: data.account.key, row: $0) } }
        return spendingAccounts.flatMap { data in
            rows(data).filter { $0.time >= from && $0.time < to }.compactMap { row -> FeedModel.Transaction? in
                guard let amount = row.money else { return nil }
                let others = everyRow.filter { $0.key != data.account.key }.map(\.row)
                return FeedModel.Transaction(id: row.id, timestamp: row.time, amount: amount, counterparty: row.text,
                                             roundsUp: EnableBankingMapping.roundsUp(row, amount: amount, otherAccounts: others))
            }
        }
    }

    /// Debits only; with a merchant code, unless cash or transfer-like; without one, unless the
    /// opposite amount is in another of the user's accounts within three days.
    public static func roundsUp(_ row: ShownRow, amount: Money, otherAccounts: [ShownRow]) -> Bool {
        guard amount.minorUnits < 0, row.transaction.indicator == "DBIT" else { return false }
        if let code = row.transaction.merchantCategoryCode?.trimmingCharacters(in: .whitespaces), !code.isEmpty {
            return !excludedMCCs.contains(code)
        }
        return !otherAccounts.contains { other in
            other.money == Money(minorUnits: -amount.minorUnits, currency: amount.currency)
                && abs(other.time.timeIntervalSince(row.time)) <= transferWindow
        }
    }
}
