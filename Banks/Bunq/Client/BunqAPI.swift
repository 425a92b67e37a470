import FeedModel
import Foundation
import HTTPTransport

/// bunq's public API as a `BankAPI` for one user and their main account (docs/banks.md,
/// "bunq"): savings accounts are goals, the main account's payments are the feed and the
/// round-ups, and a week's round-ups move by one signed payment to the goal's IBAN, marked in
/// its description and looked for before every send (bunq has no idempotency key).
public struct BunqAPI: BankAPI {
    public static let productionURL = URL(string: "https://api.bunq.com/v1")!
    public static let sandboxURL = URL(string: "https://public-api.sandbox.bunq.com/v1")!
    public static let source = SourceDescription(
        name: "bunq", title: "bunq", baseURL: productionURL, sandboxURL: sandboxURL, signIn: .token, tokenVariables: ["BUNQ_API_KEY", "QAPITAL_TOKEN"],
        abilities: [.createGoals, .moveMoney, .sharedGoals, .bankAccount], tokenCheck: "POST /session-server",
        configKeys: ["main-account"], documentation: "docs/banks.md", tokenLabel: "API key")

    /// The most payments one page answers (bunq's `count` at most).
    public static let pageSize = 200
    /// Pages a goal's detail reads at most (newest first): 1,000 payments.
    public static let feedPages = 5
    /// Pages walked in one go at most (a server that never stops paging is cut off).
    public static let maxPages = 500
    /// How long a lost payment answer is waited out before the payments are checked again.
    public static let lostAnswerWait: Double = 3
    /// The most a headless save waits before it looks (a random moment from 0).
    public static let unattendedSpread: Double = 5

    public let connection: BunqConnection
    public let userId: Int
    public let main: Bunq.MonetaryAccount
    public let accountCurrency: Currency
    private let decoder = PayloadDecoder(skipped: SkippedRecords())
    private let now: @Sendable () -> Date
    private let sleep: @Sendable (Double) async -> Void
    private let walker: PaymentWalker
    /// Savings accounts as the last `goals()` read them, by id.
    private let savings = Locked<[Int: Bunq.MonetaryAccount]>([:])
    /// Co-owners' names → their person ids.
    private let people = Locked<[String: Int]>([:])
    /// Whether the last walk saw bunq's own auto-save.
    private let autoSaveSeen = Locked(false)

    init(connection: BunqConnection, userId: Int, main: Bunq.MonetaryAccount, currency: Currency,
         now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Double) async -> Void) {
        self.connection = connection
        self.userId = userId
        self.main = main
        self.accountCurrency = currency
        self.now = now
        self.sleep = sleep
        self.walker = PaymentWalker(connection: connection, path: "/user/\(userId)/monetary-account/\(main.id)/payment")
    }

    public var baseURL: URL { connection.transport.baseURL }
    public var accountId: String { "\(userId)/\(main.id)" }
    public var sourceName: String { connection.transport.hostAndPort }
    public var skippedRecords: SkippedRecords? { decoder.skipped }
    public var tokenRefused: Bool { connection.refused.withLock { $0 } }
    public var statusNote: String? {
        if autoSaveSeen.withLock({ $0 }) { return "bunq's own auto-save is on: purchases may round up twice" }
        return connection.lastWarning.withLock { $0 }
    }
    public var answersUsersAndRulesItself: Bool { true }

    /// The key is refused in one line before any request when it is a sandbox key for
    /// production or a production key for the sandbox.
    public static func keyCrossing(apiKey: String, baseURL: URL) -> String? {
        let sandboxKey = apiKey.hasPrefix("sandbox_")
        let host = baseURL.host?.lowercased() ?? ""
        if sandboxKey, host == productionURL.host { return "a sandbox_ key works only with the sandbox (--sandbox)" }
        if !sandboxKey, host == sandboxURL.host { return "the sandbox takes only sandbox_ keys; this is a production key" }
        return nil
    }

    /// Opens the API context (kept in `contextDirectory`, made once per machine, base URL and
    /// key), a session (reused while it lasts), and picks the main account: the one named by
    /// `mainAccount` (its description or id), else the first active MonetaryAccountBank.
    public static func connect(baseURL: URL, apiKey: String, contextDirectory: URL?, mainAccount: String? = nil,
                               timeout: TimeInterval = 10, allowInsecureHTTP: Bool = false, log: RequestLog? = nil,
                               pacing: Bool = true, now: @escaping @Sendable () -> Date = { Date() },
                               sleep: (@Sendable (Double) async -> Void)? = nil) async throws(APIError) -> BunqAPI {
        let label = "POST /session-server"
        if let crossing = keyCrossing(apiKey: apiKey, baseURL: baseURL) {
            throw APIError(kind: .unauthorized, request: label, message: "\(label): not sent: \(crossing)")
        }
        guard !apiKey.isEmpty, apiKey.utf8.count <= 200, apiKey.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw APIError(kind: .unauthorized, request: label, message: "\(label): not sent: the API key has spaces or characters a key cannot have")
        }
        if baseURL.scheme?.lowercased() != "https", !allowInsecureHTTP, !HTTPTransport.isLoopback(baseURL.host ?? "") {
            throw APIError(kind: .rejected, request: label, message: "\(label): not sent: the API key goes over https only (--allow-insecure-http)")
        }
        let transport = HTTPTransport(baseURL: baseURL, token: nil, timeout: timeout, allowInsecureHTTP: allowInsecureHTTP, log: log)
        let pause = sleep ?? { seconds in try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000)) }
        let connection = try BunqConnection(transport: transport, apiKey: apiKey,
                                            file: contextDirectory.map { BunqContextFile(directory: $0, baseURL: baseURL) },
                                            pacer: BunqPacer(enabled: pacing), now: now, sleep: pause)
        return try await open(connection, mainAccount: mainAccount, now: now, sleep: pause)
    }

    public static func open(_ connection: BunqConnection, mainAccount: String? = nil, now: @escaping @Sendable () -> Date = { Date() },
                            sleep: @escaping @Sendable (Double) async -> Void) async throws(APIError) -> BunqAPI {
        try await connection.prepare()
        guard let userId = connection.userId else {
            throw APIError(kind: .malformed, request: "POST /session-server", message: "POST /session-server: no user in bunq's answer")
        }
        let accounts = try await readAccounts(connection, userId: userId)
        let active = accounts.filter(\.isActive)
        let wanted = mainAccount.map { TextSanitizer.clean($0) }.flatMap { $0.isEmpty ? nil : $0 }
        let chosen = wanted.flatMap { name in active.first { String($0.id) == name || TextSanitizer.clean($0.description ?? "") == name } }
            ?? active.first(where: \.isBank)
        let label = "GET /user/{id}/monetary-account"
        guard let main = chosen else {
            throw APIError(kind: .notFound, request: label, message: "\(label): the user has no active bank account"
                           + (wanted.map { " named \"\($0)\"" } ?? ""))
        }
        guard let currency = Currency.from(code: main.currency ?? main.balance?.currency ?? "EUR") else {
            throw APIError(kind: .malformed, request: label, message: "\(label): the main account's currency is not an ISO code")
        }
        let api = BunqAPI(connection: connection, userId: userId, main: main, currency: currency, now: now, sleep: sleep)
        api.remember(accounts)
        return api
    }

    /// The API for the account a last run opened, without a request (the app starting while bunq
    /// cannot be reached): the kept context's connection, the user and main account as they were.
    /// Nil when the context file is not this key's.
    public static func offline(baseURL: URL, apiKey: String, contextDirectory: URL, userId: Int, main: Bunq.MonetaryAccount,
                               allowInsecureHTTP: Bool = false, log: RequestLog? = nil) -> BunqAPI? {
        let file = BunqContextFile(directory: contextDirectory, baseURL: baseURL)
        guard let kept = file.load(), kept.keyDigest == BunqContext.digest(apiKey: apiKey), kept.userId == userId,
              let currency = Currency.from(code: main.currency ?? "EUR") else { return nil }
        let transport = HTTPTransport(baseURL: baseURL, token: nil, allowInsecureHTTP: allowInsecureHTTP, log: log)
        guard let connection = try? BunqConnection(transport: transport, apiKey: apiKey, file: file) else { return nil }
        let sleep: @Sendable (Double) async -> Void = { seconds in try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000)) }
        return BunqAPI(connection: connection, userId: userId, main: main, currency: currency, now: { Date() }, sleep: sleep)
    }

    static func readAccounts(_ connection: BunqConnection, userId: Int) async throws(APIError) -> [Bunq.MonetaryAccount] {
        try await connection.call("GET", "/user/\(userId)/monetary-account", query: [URLQueryItem(name: "count", value: "200")]).accounts
    }

    private func remember(_ accounts: [Bunq.MonetaryAccount]) {
        let list = accounts.filter(\.isSavings)
        savings.withLock { table in
            for account in list { table[account.id] = account }
        }
        let holder = connection.userName
        people.withLock { table in
            for name in list.flatMap({ BunqMapping.coOwners($0, holder: holder) }).sorted() where table[name] == nil {
                table[name] = BunqMapping.firstCoOwnerId + table.count
            }
        }
    }

    public func replaceToken(_ token: String) async throws(APIError) {
        let label = "POST /session-server"
        throw APIError(kind: .unauthorized, request: label, message: "\(label): a new bunq API key opens a new context: start again with it")
    }

    // MARK: - The account

    public func account() async throws -> Account? {
        let accounts = try await BunqAPI.readAccounts(connection, userId: userId)
        remember(accounts)
        let current = accounts.first { $0.id == main.id } ?? main
        let balance = try? current.balance.flatMap { amount throws(MalformedPayload) in try BunqMapping.money(amount, "balance") }
        return Account(id: accountId, name: current.description ?? "bunq", currency: accountCurrency,
                       createdAt: current.created.flatMap(Bunq.parseTime) ?? BunqAPI.earliest, holder: connection.userName,
                       accountNumber: current.iban, effectiveBalance: balance ?? nil)
            .withFeedBalance(asOf: now())
    }

    /// Activity is the main account's payments, as its balance is.
    public var saysFeedBalance: Bool { true }

    /// Before bunq's first account (2015): the history's end when an account says no `created`.
    static let earliest = Date(timeIntervalSince1970: 1_420_070_400)

    // MARK: - Goals

    /// Active savings accounts in the main account's currency or any other (shown; saving into another is refused).
    public func goals() async throws -> [Goal] {
        let accounts = try await BunqAPI.readAccounts(connection, userId: userId)
        remember(accounts)
        let table = people.withLock { $0 }
        let holder = connection.userName
        let active = accounts.filter { $0.isSavings && $0.isActive }
        return (decoder.skipped ?? SkippedRecords()).mapEach(active, resource: "GET /user/{id}/monetary-account",
                                                             name: { "id \($0.id)" }) { account throws(MalformedPayload) in
            try BunqMapping.goal(account, people: table, holder: holder)
        }
    }

    /// A savings account's payments, newest first (its first pages).
    public func feed(goalId: GoalID) async throws -> [FeedItem] {
        guard let id = Int(goalId.rawValue) else { return [] }
        let path = "/user/\(userId)/monetary-account/\(id)/payment"
        let label = "GET /user/{id}/monetary-account/{id}/payment"
        var items: [Bunq.Payment] = []
        var older: Int?
        for page in 0..<BunqAPI.feedPages {
            var query = [URLQueryItem(name: "count", value: String(BunqAPI.pageSize))]
            if let older { query.append(URLQueryItem(name: "older_id", value: String(older))) }
            let envelope = try await connection.call("GET", path, query: query)
            items += envelope.payments
            guard let next = envelope.pagination?.olderId, next != older else { break }
            if page == BunqAPI.feedPages - 1 {
                // More than the detail reads: said, not dropped in silence.
                decoder.skipped?.leftOut(resource: label, "the goal shows its newest \(items.count) payments; older ones are not loaded")
            }
            older = next
        }
        return mapEach(items, label, BunqMapping.feedItem)
    }

    public func rules() async throws -> [SavingsRule] { [] }

    /// The user is person 1; co-owners of savings accounts follow.
    public func user(id: Int) async throws -> User {
        if id == BunqMapping.holderId { return User(id: id, displayName: connection.userName ?? "You") }
        if let name = people.withLock({ table in table.first { $0.value == id }?.key }) { return User(id: id, displayName: name) }
        let label = "user \(id)"
        throw APIError(kind: .notFound, request: label, message: "\(label): not found")
    }

    public func createGoal(name: String, target: Money?) async throws -> Goal {
        let label = "POST /user/{id}/monetary-account-savings"
        let clean = TextSanitizer.clean(name).trimmingCharacters(in: .whitespaces)
        guard !clean.isEmpty, clean.count <= 100 else {
            throw APIError(kind: .rejected, request: label, message: "\(label): a name of 1 to 100 characters")
        }
        if let target, target.currency != accountCurrency || target.minorUnits <= 0 {
            throw APIError(kind: .rejected, request: label, message: "\(label): a target above zero in \(accountCurrency.code)")
        }
        struct Body: Encodable {
            let currency: String
            let description: String
            let savingsGoal: Bunq.Amount?
            enum CodingKeys: String, CodingKey { case currency, description, savingsGoal = "savings_goal" }
        }
        let body = try BunqAPI.encode(Body(currency: accountCurrency.code, description: clean,
                                           savingsGoal: target.map { Bunq.Amount(value: Bunq.Amount.text($0), currency: $0.currency.code) }),
                                      label: label)
        let envelope = try await connection.call("POST", "/user/\(userId)/monetary-account-savings", body: body, signed: true)
        guard let id = envelope.ids.first else {
            throw APIError(kind: .malformed, request: label, message: "\(label): bunq's answer has no id")
        }
        // Made: a list that cannot be read now does not unmake it (the app would offer to make it again).
        if let goal = try? await goals().first(where: { $0.id == GoalID(String(id)) }) { return goal }
        return Goal(id: GoalID(String(id)), name: clean, ownerId: BunqMapping.holderId, target: target, balance: .zero(accountCurrency))
    }

    // MARK: - Activity and round-ups

    /// The main account's payments in `[from, to)`, newest first, from the walk by `older_id`
    /// (the newest window starts a fresh walk; older windows continue it). `oldest` is the
    /// oldest payment once the walk reached the end, else the account's opening.
    public func activities(from: Date, to: Date) async throws -> ActivityPage {
        let walk = try await walker.covering(from: from, prefetch: 14 * 86_400, fresh: to >= now().addingTimeInterval(-86_400))
        noteAutoSave(walk.payments)
        let table = savings.withLock { $0 }
        var byIBAN: [String: GoalID] = [:]
        for account in table.values where account.isActive {
            if let iban = account.iban { byIBAN[BunqMapping.normalized(iban: iban)] = GoalID(String(account.id)) }
        }
        let inWindow = walk.payments.filter { payment in
            guard let date = Bunq.parseTime(payment.created) else { return true }
            return date >= from && date < to
        }
        let rows = mapEach(inWindow, "GET /user/{id}/monetary-account/{id}/payment") { payment throws(MalformedPayload) in
            try BunqMapping.activity(payment, savings: byIBAN, currency: accountCurrency)
        }
        let opened = main.created.flatMap(Bunq.parseTime) ?? BunqAPI.earliest
        let oldest = walk.atEnd ? (walk.payments.compactMap { Bunq.parseTime($0.created) }.min() ?? now()) : opened
        return ActivityPage(oldest: min(oldest, walk.atEnd ? oldest : opened), activities: rows.sorted { $0.timestamp > $1.timestamp })
    }

    public func transactions(from: Date, to: Date) async throws -> [FeedModel.Transaction] {
        let walk = try await PaymentWalker(connection: connection, path: walker.path).covering(from: from, prefetch: 0)
        let inWindow = walk.payments.filter { payment in
            guard let date = Bunq.parseTime(payment.created) else { return false }
            return date >= from && date < to
        }
        noteAutoSave(inWindow)
        return mapEach(inWindow, "GET /user/{id}/monetary-account/{id}/payment", BunqMapping.transaction)
    }

    /// Pages the Activity walk asked for since its last fresh start (tests).
    public var walkerPages: Int { get async { await walker.pages } }

    private func noteAutoSave(_ payments: [Bunq.Payment]) {
        if payments.contains(where: BunqRoundUp.isAutoSave) { autoSaveSeen.withLock { $0 = true } }
    }

    // MARK: - Saving a week once (docs/roundups.md, "bunq: no idempotency key")

    /// The mark of a transfer key in a payment's description: its first 12 hex digits.
    public static func marker(_ key: UUID) -> String {
        String(key.uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12))
    }

    /// `qapital-tui round-ups 2026-W47 6f1d2c8e3a4b`
    /// "qapital-tui round-ups 2026-W47 qt-…", or for a savings rule "qapital-tui rule coffee 2026-11 qt-…".
    public static func description(week: String, key: UUID, rule: String? = nil) -> String {
        "qapital-tui \(rule.map { "rule \($0)" } ?? "round-ups") \(week) \(marker(key))"
    }

    /// The main account's payments since `since` whose description carries `marker` (a fresh walk).
    public func marked(_ marker: String, since: Date) async throws(APIError) -> [Bunq.Payment] {
        let walk = try await PaymentWalker(connection: connection, path: walker.path).covering(from: since, prefetch: 0)
        return walk.payments.filter { ($0.description ?? "").contains(marker) }
    }

    /// Moves `amount` from the main account to the goal's IBAN, once: the main account's
    /// payments are checked for the key's mark before every send; a lost answer is resolved by
    /// checking again (never a blind resend); after sending, two marked payments mean two runs
    /// raced (`SavedTwice`: nothing is moved back). A mark found before sending is another run's
    /// save (409, `already saved …`) unless this run sent it before and lost the answer.
    public func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
        let label = "POST /user/{id}/monetary-account/{id}/payment"
        guard amount.currency == accountCurrency, amount.minorUnits > 0 else {
            throw APIError(kind: .rejected, request: label, message: "\(label): only an amount in \(accountCurrency.code) above zero moves")
        }
        _ = try await goals()
        guard let id = Int(goalId.rawValue), let account = savings.withLock({ $0[id] }), account.isActive, account.isSavings else {
            throw APIError(kind: .rejected, request: label, message: "\(label): no active savings account \(TextSanitizer.clean(goalId.rawValue))",
                           status: 404)
        }
        guard account.currency == nil || account.currency == accountCurrency.code else {
            throw APIError(kind: .rejected, request: label,
                           message: "\(label): \(TextSanitizer.clean(account.description ?? "the goal")) is in \(TextSanitizer.clean(account.currency ?? "?")); saving between currencies is not done",
                           status: 422)
        }
        guard let iban = account.iban else {
            throw APIError(kind: .rejected, request: label, message: "\(label): the savings account has no IBAN", status: 422)
        }
        let weekLabel = attempt.week
        // From the period's start (a week's Monday, a month's first day), a day early for time zones.
        let start = attempt.periodStart(calendar: Week.calendar(in: .current)) ?? now().addingTimeInterval(-35 * 86_400)
        let since = start.addingTimeInterval(-86_400)
        let marker = BunqAPI.marker(transferId)
        let goalName = TextSanitizer.clean(account.description ?? "the goal")

        let body = try BunqAPI.encode(PaymentBody(amount: Bunq.Amount(value: Bunq.Amount.text(amount), currency: amount.currency.code),
                                                  counterpartyAlias: Bunq.Pointer(type: "IBAN", value: iban, name: connection.userName ?? goalName),
                                                  description: BunqAPI.description(week: weekLabel, key: transferId, rule: attempt.rule)), label: label)
        let path = "/user/\(userId)/monetary-account/\(main.id)/payment"
        // A headless save waits a random 0–5 s first: timers firing in the same minute rarely overlap.
        if TransferAttempt.unattended { await sleep(Double.random(in: 0...BunqAPI.unattendedSpread)) }
        var found: [Bunq.Payment] = []
        let outcome = try await BunqSaveProtocol.run(
            find: { () async throws -> [Date?] in
                found = try await marked(marker, since: since)
                return found.map { Bunq.parseTime($0.created) }
            },
            send: { () async throws in _ = try await connection.call("POST", path, body: body, signed: true) },
            isLost: { ($0 as? APIError).map(BunqAPI.isLost) ?? true },
            wait: { await sleep(BunqAPI.lostAnswerWait) })
        // The payment went (or was found): a goal that cannot be read now does not undo it.
        func moved() async throws -> Goal {
            do { return try await goal(id) } catch { throw APIError.afterSending(error, "the payment") }
        }
        switch outcome {
        case .foundBefore(let when):
            if attempt.resent { return try await moved() }
            let day = when.map { $0.formatted(date: .abbreviated, time: .omitted) } ?? "an earlier day"
            // Into the goal the earlier payment went to (another run may have chosen another goal).
            let table = savings.withLock { $0 }
            let into = found.first?.counterpartyAlias?.iban.flatMap { iban in
                table.values.first { $0.iban.map(BunqMapping.normalized(iban:)) == BunqMapping.normalized(iban: iban) }?.description
            } ?? found.first?.counterpartyAlias?.displayName
            throw AlreadySaved(message: "already saved on \(day) into \(TextSanitizer.clean(String((into ?? "a savings account").prefix(60))))")
        case .sent(let count):
            let current = try await moved()
            if count >= 2 {
                let extra = Money(minorUnits: Money.sum(Array(repeating: amount.minorUnits, count: count - 1)), currency: amount.currency)
                throw SavedTwice(goal: current, message: BunqSaveProtocol.twiceMessage(extra: extra, goal: goalName))
            }
            return current
        }
    }

    struct PaymentBody: Encodable {
        let amount: Bunq.Amount
        let counterpartyAlias: Bunq.Pointer
        let description: String
        enum CodingKeys: String, CodingKey { case amount, description, counterpartyAlias = "counterparty_alias" }
    }

    /// An error after which a payment may exist: no answer, a 5xx, a 429 after sending, an answer that did not verify.
    static func isLost(_ error: APIError) -> Bool {
        if BunqConnection.isUnverified(error) { return true }
        switch error.kind {
        case .timedOut, .transport, .cannotConnect, .cancelled: return true
        case .http(let status): return status >= 500 || status == 429
        case .malformed: return true
        default: return false
        }
    }

    private func goal(_ id: Int) async throws -> Goal {
        guard let goal = try await goals().first(where: { $0.id == GoalID(String(id)) }) else {
            let label = "GET /user/{id}/monetary-account"
            throw APIError(kind: .notFound, request: label, message: "\(label): the savings account is gone")
        }
        return goal
    }

    // MARK: - Plumbing

    static func encode(_ value: some Encodable, label: String) throws(APIError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw APIError(kind: .transport, request: label, message: "\(label): the body could not be written")
        }
    }

    private func mapEach<Value>(_ records: [Bunq.Payment], _ label: String,
                                _ transform: (Bunq.Payment) throws(MalformedPayload) -> Value) -> [Value] {
        (decoder.skipped ?? SkippedRecords()).mapEach(records, resource: label, name: { "id \($0.id)" }, transform)
    }
}

/// The main account's payments walked newest first with `count=200` and `older_id`, kept
/// between windows; pages are asked for until one reaches `prefetch` past the window's start.
actor PaymentWalker {
    let connection: BunqConnection
    nonisolated let path: String
    private var payments: [Bunq.Payment] = []
    private var seen = Set<Int>()
    private var olderId: Int?
    private var started = false
    private var atEnd = false
    /// Bumped by every fresh start: a page asked for before it belongs to an older walk.
    private var generation = 0
    /// Pages asked for in all (tests).
    private(set) var pages = 0

    init(connection: BunqConnection, path: String) {
        self.connection = connection
        self.path = path
    }

    func reset() {
        generation += 1
        payments = []
        seen = []
        olderId = nil
        started = false
        atEnd = false
    }

    /// The payments walked so far, newest first, once they reach back past `from − prefetch` (or the end).
    /// `fresh`: start the walk again from the newest payment first (the newest window, read again).
    func covering(from: Date, prefetch: TimeInterval, fresh: Bool = false) async throws(APIError) -> (payments: [Bunq.Payment], atEnd: Bool) {
        if fresh { reset() }
        let edge = from.addingTimeInterval(-prefetch)
        var count = 0
        while !atEnd, count < BunqAPI.maxPages {
            if started, let oldest = payments.last.flatMap({ Bunq.parseTime($0.created) }), oldest < edge { break }
            var query = [URLQueryItem(name: "count", value: String(BunqAPI.pageSize))]
            let asked = olderId
            let walk = generation
            if started, asked == nil { atEnd = true; break }
            if let asked { query.append(URLQueryItem(name: "older_id", value: String(asked))) }
            let envelope = try await connection.call("GET", path, query: query)
            count += 1
            pages += 1
            // Another caller moved the walk on (or started it again) meanwhile: this page is not the next one.
            guard asked == olderId, walk == generation else { continue }
            started = true
            let fresh = envelope.payments.filter { seen.insert($0.id).inserted }
            payments += fresh
            let next = envelope.pagination?.olderId
            if next == nil || next == asked || fresh.isEmpty { atEnd = true } else { olderId = next }
        }
        return (payments, atEnd)
    }
}
