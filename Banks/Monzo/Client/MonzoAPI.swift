import FeedModel
import Foundation
import HTTPTransport

/// Monzo's public API as a `SavingsAPI`, for one account: the token's first open `uk_retail`
/// account. Pots are goals; a deposit carries a `dedupe_id`, so the same one twice moves money
/// once. See docs/banks.md for the mapping and what was checked against what.
///
/// Every request carries the bearer token (through `HTTPTransport`, to this base URL only);
/// writes are form-encoded; both error shapes become one-line messages. Monzo publishes no rate
/// limit figures, so nothing is paced; a read answered 429 with a `Retry-After` of
/// `longestRetryWait` at most is waited out and sent once more, any other 429 is said in one line.
public struct MonzoAPI: BankAPI {
    public static let productionURL = URL(string: "https://api.monzo.com")!
    public static let authURL = URL(string: "https://auth.monzo.com")!
    /// The source as the registry lists it.
    public static let source = SourceDescription(
        name: "monzo", title: "Monzo", baseURL: productionURL, signIn: .tokenOrOAuth, tokenVariables: ["MONZO_TOKEN"],
        abilities: [.moveMoney, .bankAccount],
        noGoalCreation: "Monzo's API cannot create pots: make the pot in the Monzo app, then press r here.",
        tokenCheck: "GET /ping/whoami", configKeys: ["client-id", "client-secret", "port"], documentation: "docs/banks.md")

    /// What a request answers while the customer has not approved the sign-in in the app.
    public static let approvalNeeded = "approve this sign-in in the Monzo app, then try again"
    /// How long after a sign-in the whole history can be read; later only `historyDays`.
    public static let fullHistoryWindow: TimeInterval = 5 * 60
    public static let historyDays = 90
    /// The most transactions one request answers; a full page is followed by the next.
    public static let pageLimit = 100
    /// Pages followed in one window at most (a server that never stops paging is cut off).
    public static let maxPages = 200
    /// Before any Monzo account (2015-02-01): the history's end when an account says no `created`.
    public static let earliestHistory = Date(timeIntervalSince1970: 1_422_748_800)
    /// The longest `Retry-After` a read waits out before its one more try.
    public static let longestRetryWait: TimeInterval = 30
    public typealias Sleep = @Sendable (TimeInterval) async -> Void
    public static let realSleep: Sleep = { seconds in try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000)) }

    public let transport: HTTPTransport
    public let account: Monzo.Account
    public let accountCurrency: Currency
    /// The start of the account's history.
    public let createdAt: Date
    /// When the token was checked: the whole history can be read for 5 minutes after.
    public let signedInAt: Date
    private let decoder: PayloadDecoder
    private let now: @Sendable () -> Date
    private let sleep: Sleep
    /// Pot names by id, as the last `goals()` saw them (for "Saved into **Holiday**").
    private let potNames = Locked<[String: String]>([:])

    public init(transport: HTTPTransport, account: Monzo.Account, currency: Currency, signedInAt: Date? = nil,
                now: @escaping @Sendable () -> Date = { Date() }, sleep: @escaping Sleep = MonzoAPI.realSleep) {
        self.transport = transport
        self.account = account
        self.accountCurrency = currency
        self.createdAt = account.created ?? MonzoAPI.earliestHistory
        self.signedInAt = signedInAt ?? now()
        self.decoder = PayloadDecoder(accountCurrency: currency, skipped: SkippedRecords())
        self.now = now
        self.sleep = sleep
    }

    public var baseURL: URL { transport.baseURL }
    public var accountId: String { account.id }
    public var sourceName: String { transport.hostAndPort }
    public var skippedRecords: SkippedRecords? { decoder.skipped }
    public var tokenRefused: Bool { transport.tokenRefused }
    /// Whether Monzo's last answer was "approve this sign-in in the Monzo app" (strong customer
    /// authentication), in the middle of a session too: the token is kept, the app says so.
    public var awaitsApproval: Bool { transport.awaitsApproval }

    /// A transport with Monzo's error shapes, its approval state and its 90-day edge.
    /// `refresh`: for a token from an OAuth pair, a fresh one when Monzo refuses it (401).
    public static func transport(baseURL: URL, token: String?, timeout: TimeInterval = 10, allowInsecureHTTP: Bool = false,
                                 log: RequestLog? = nil, refresh: (@Sendable (String?) async -> String?)? = nil) -> HTTPTransport {
        HTTPTransport(baseURL: baseURL, token: token, timeout: timeout, allowInsecureHTTP: allowInsecureHTTP,
                      serverMessage: Monzo.serverMessage, log: log, classify: MonzoAPI.classify, refresh: refresh)
    }

    /// Monzo's own readings of an error answer: a token not approved in the app yet is refused
    /// with what to do; anything else in either shape is the label, the status and its words.
    static let classify: @Sendable (Int, Data, String) -> APIError? = { status, data, label in
        let body = try? JSONDecoder().decode(Monzo.ErrorBody.self, from: data)
        let code = body?.anyCode?.lowercased() ?? ""
        if status == 403, code.hasPrefix("forbidden.verification_required") {
            return APIError(kind: .unauthorized, request: label, message: "\(label): \(approvalNeeded) (HTTP 403)", status: status,
                            awaitsApproval: true)
        }
        if status == 403, code.hasPrefix("forbidden.insufficient_permissions") || code.contains("history") {
            // The 90-day edge: not a refusal of the token.
            let said = body?.text.map { ": " + TextSanitizer.clean(String($0.prefix(200))) } ?? ""
            return APIError(kind: .http(status: 403), request: label, message: "\(label): HTTP 403\(said)", status: status)
        }
        if status == 401, code.contains("expired") {
            return APIError(kind: .unauthorized, request: label, message: "\(label): the token has expired (HTTP 401)", status: status)
        }
        guard let said = body?.text, status != 401, status != 403, status != 404 else { return nil }
        let words = TextSanitizer.clean(String(said.prefix(200)))
        let kind: APIError.Kind = [400, 409, 422].contains(status) ? .rejected : .http(status: status)
        return APIError(kind: kind, request: label, message: "\(label): HTTP \(status): \(words)", status: status)
    }

    /// Checks the token (`GET /ping/whoami`), picks the account (the first open `uk_retail`
    /// one) and reads its currency from its balance. A refused token, or one not approved in
    /// the Monzo app yet, throws an `APIError` of kind `.unauthorized`.
    public static func connect(baseURL: URL, token: String?, timeout: TimeInterval = 10, allowInsecureHTTP: Bool = false,
                               log: RequestLog? = nil, refresh: (@Sendable (String?) async -> String?)? = nil,
                               now: @escaping @Sendable () -> Date = { Date() }, sleep: @escaping Sleep = MonzoAPI.realSleep)
        async throws(APIError) -> MonzoAPI {
        let label = "GET /ping/whoami"
        if let token, !token.isEmpty, !token.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) {
            throw APIError(kind: .unauthorized, request: label,
                           message: "\(label): not sent: the token has spaces or characters a token cannot have")
        }
        let transport = transport(baseURL: baseURL, token: token, timeout: timeout, allowInsecureHTTP: allowInsecureHTTP, log: log,
                                  refresh: refresh)
        let plain = PayloadDecoder()
        let whoami = try await fetch(transport, "/ping/whoami", label: label, as: Monzo.WhoAmI.self, decoder: plain, sleep: sleep)
        guard whoami.authenticated == true else {
            throw APIError(kind: .unauthorized, request: label, message: "\(label): the token was refused (not authenticated)")
        }
        let accountsLabel = "GET /accounts"
        let list = try await fetch(transport, "/accounts", query: [URLQueryItem(name: "account_type", value: "uk_retail")],
                                   label: accountsLabel, as: Monzo.AccountList.self, decoder: plain, sleep: sleep)
        let open = (list.accounts ?? []).filter { $0.closed != true }
        guard let chosen = open.first(where: { ($0.type ?? "uk_retail") == "uk_retail" }) ?? open.first else {
            throw APIError(kind: .notFound, request: accountsLabel, message: "\(accountsLabel): the token has no open account")
        }
        var code = chosen.currency
        if code == nil {
            let balance = try await fetch(transport, "/balance", query: [URLQueryItem(name: "account_id", value: chosen.id)],
                                          label: "GET /balance", as: Monzo.Balance.self, decoder: plain, sleep: sleep)
            code = balance.currency
        }
        guard let currency = Currency.from(code: code ?? "GBP") else {
            throw APIError(kind: .malformed, request: accountsLabel,
                           message: MalformedPayload(resource: accountsLabel,
                                                     reason: "currency: not an ISO currency code: \"\(String((code ?? "").prefix(10)))\"").description)
        }
        return MonzoAPI(transport: transport, account: chosen, currency: currency, signedInAt: now(), now: now, sleep: sleep)
    }

    /// Signs in again with `token`: checked, and used from now on when it opens this same account.
    public func replaceToken(_ token: String) async throws(APIError) {
        // Checked as the session's own requests go: the same http rule and request log.
        let checked = try await MonzoAPI.connect(baseURL: baseURL, token: token, timeout: transport.timeout,
                                                 allowInsecureHTTP: transport.allowInsecureHTTP, log: transport.log, sleep: sleep)
        guard checked.account.id == account.id else {
            let label = "GET /accounts"
            throw APIError(kind: .unauthorized, request: label,
                           message: "\(label): that token opens another account; start again to switch accounts")
        }
        transport.replaceToken(token)
    }

    // MARK: - The account

    public func account() async throws -> Account? {
        let balance = try await balance()
        let holder = (account.owners ?? []).compactMap(\.preferredName).map(TextSanitizer.clean).first { !$0.isEmpty }
        return Account(id: account.id, name: account.description ?? "Monzo", currency: accountCurrency, createdAt: createdAt,
                       holder: holder, sortCode: account.sortCode.map(Account.formatSortCode), accountNumber: account.accountNumber,
                       effectiveBalance: try money(balance.balance, balance.currency, "balance"),
                       totalBalance: try balance.totalBalance.map { minor throws(MalformedPayload) in
                           try money(minor, balance.currency, "total_balance")
                       })
            .withFeedBalance(asOf: now())
    }

    /// Activity is the account's transactions (pot moves included), as `balance` is without pots.
    public var saysFeedBalance: Bool { true }

    func balance() async throws(APIError) -> Monzo.Balance {
        try await get("/balance", query: [URLQueryItem(name: "account_id", value: account.id)], label: "GET /balance",
                      as: Monzo.Balance.self)
    }

    // MARK: - SavingsAPI

    /// The pots, deleted ones left out.
    public func goals() async throws -> [Goal] {
        let label = "GET /pots"
        let list = try await get("/pots", query: [URLQueryItem(name: "current_account_id", value: account.id)], label: label,
                                 as: Monzo.PotList.self)
        let pots = (list.pots ?? []).filter { $0.deleted != true }
        potNames.withLock { names in
            for pot in pots { names[pot.id] = TextSanitizer.clean(pot.name ?? "") }
        }
        return mapEach(pots, label, name: { "id \($0.id)" }, MonzoMapping.goal)
    }

    /// A pot's deposits and withdrawals: the account's pot transfers that name it, newest first.
    public func feed(goalId: GoalID) async throws -> [FeedItem] {
        let transactions = try await transactionsIn(from: historyStart, to: ActivityPager.newestEnd(now()))
        let label = "GET /transactions"
        return mapEach(transactions.filter { $0.potId == goalId.rawValue }, label, name: { "id \($0.id)" }, MonzoMapping.potFeedItem)
            .sorted { $0.timestamp > $1.timestamp }
    }

    /// People and rules are answered here, without a request.
    public var answersUsersAndRulesItself: Bool { true }

    /// Monzo has no savings rules.
    public func rules() async throws -> [SavingsRule] { [] }

    /// The account holder is user 1; there is nobody else.
    public func user(id: Int) async throws -> User {
        guard id == MonzoMapping.holderId else {
            let label = "user \(id)"
            throw APIError(kind: .notFound, request: label, message: "\(label): not found")
        }
        let name = (account.owners ?? []).compactMap(\.preferredName).first { !$0.isEmpty }
        return User(id: id, displayName: name ?? account.description ?? "You")
    }

    /// The account's feed in the window, newest first; `oldest` is the account's opening, or the
    /// 90-day edge once the sign-in is older than 5 minutes (with a row at the edge that says why).
    public func activities(from: Date, to: Date) async throws -> ActivityPage {
        let edge = historyEdge
        let start = max(from, edge ?? from)
        var transactions: [Monzo.Transaction] = []
        var reachedEdge = edge.map { from <= $0 && $0 < to } ?? false
        if start < to {
            let answer = try await windowOrEdge(from: start, to: to)
            transactions = answer.transactions
            reachedEdge = reachedEdge || answer.pastEdge
        }
        let names = potNames.withLock { $0 }
        var activities = mapEach(transactions, "GET /transactions", name: { "id \($0.id)" }) { transaction throws(MalformedPayload) in
            try MonzoMapping.activity(transaction, potNames: names)
        }
        var oldest = edge.map { max(createdAt, $0) } ?? createdAt
        if reachedEdge {
            let at = edge ?? from
            oldest = max(createdAt, at)
            if at > createdAt { activities.append(MonzoMapping.edgeRow(at: at, currency: accountCurrency)) }
        }
        return ActivityPage(oldest: oldest, activities: activities.sorted { $0.timestamp > $1.timestamp })
    }

    /// The account's feed as payments that round up by the spec's rule (`MonzoRoundUp`).
    public func transactions(from: Date, to: Date) async throws -> [FeedModel.Transaction] {
        let start = max(from, historyEdge ?? from)
        guard start < to else { return [] }
        let transactions = try await transactionsIn(from: start, to: to)
        return mapEach(transactions, "GET /transactions", name: { "id \($0.id)" }, MonzoMapping.transaction)
    }

    public func createGoal(name: String, target: Money?) async throws -> Goal {
        let label = "POST /pots"
        throw APIError(kind: .rejected, request: label, message: "\(label): \(MonzoAPI.source.noGoalCreation ?? "not possible")")
    }

    /// `PUT /pots/{id}/deposit` with `dedupe_id` = `transferId`: the same id twice moves money
    /// once. Answers the pot as the server has it afterwards.
    public func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
        let path = "/pots/" + MonzoAPI.pathSegment(goalId.rawValue) + "/deposit"
        let label = "PUT /pots/…/deposit"
        guard amount.currency == accountCurrency, amount.minorUnits > 0 else {
            throw APIError(kind: .rejected, request: label, message: "\(label): only an amount in \(accountCurrency.code) above zero moves")
        }
        let body = HTTPTransport.formBody([("source_account_id", account.id), ("amount", String(amount.minorUnits)),
                                           ("dedupe_id", transferId.uuidString.lowercased())])
        let data = try await transport.send("PUT", path, body: body, contentType: HTTPTransport.formType, label: label)
        let pot: Monzo.Pot
        do {
            pot = try decoder.decode(Monzo.Pot.self, from: data, resource: label)
        } catch {
            throw APIError(kind: .malformed, request: label, message: error.description)
        }
        do {
            return try MonzoMapping.goal(pot)
        } catch {
            throw APIError(kind: .malformed, request: label, message: error.description)
        }
    }

    // MARK: - History

    /// Where the history ends for this sign-in: nil for the first 5 minutes (all of it), then 90 days back.
    public var historyEdge: Date? {
        let current = now()
        guard current.timeIntervalSince(signedInAt) >= MonzoAPI.fullHistoryWindow else { return nil }
        return current.addingTimeInterval(-Double(MonzoAPI.historyDays) * 86_400)
    }

    /// A window's transactions; a 403 that is not a refusal of the token is the bank saying the
    /// window is past what this sign-in may read: the edge, not a failure.
    private func windowOrEdge(from: Date, to: Date) async throws(APIError) -> (transactions: [Monzo.Transaction], pastEdge: Bool) {
        do {
            return (try await transactionsIn(from: from, to: to), false)
        } catch {
            guard error.status == 403, error.kind != .unauthorized else { throw error }
            return ([], true)
        }
    }

    private var historyStart: Date { max(createdAt, historyEdge ?? createdAt) }

    /// Every transaction in `[from, to)`, oldest first: pages of 100, each from the last id of
    /// the one before, until a page is short (or repeats itself, or there are too many).
    func transactionsIn(from: Date, to: Date) async throws(APIError) -> [Monzo.Transaction] {
        var all: [Monzo.Transaction] = []
        var seen = Set<String>()
        var since = MonzoAPI.timestamp(from)
        let before = MonzoAPI.timestamp(to)
        for _ in 0..<MonzoAPI.maxPages {
            let query = [URLQueryItem(name: "account_id", value: account.id),
                         URLQueryItem(name: "expand[]", value: "merchant"),
                         URLQueryItem(name: "since", value: since), URLQueryItem(name: "before", value: before),
                         URLQueryItem(name: "limit", value: String(MonzoAPI.pageLimit))]
            let page = try await get("/transactions", query: query, label: "GET /transactions", as: Monzo.TransactionList.self)
                .transactions ?? []
            let fresh = page.filter { seen.insert($0.id).inserted }
            all += fresh
            guard page.count >= MonzoAPI.pageLimit, !fresh.isEmpty, let last = page.last?.id else { break }
            since = last
        }
        return all.filter { $0.created >= from && $0.created < to }.sorted { $0.created < $1.created }
    }

    /// `2026-11-08T00:00:00Z`: RFC 3339 as Monzo's queries take it.
    public static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }

    static func pathSegment(_ text: String) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    // MARK: - Plumbing

    private func money(_ minor: Int64, _ code: String, _ field: String) throws(MalformedPayload) -> Money {
        try MonzoMapping.money(minor, code, field)
    }

    private func get<T: Decodable>(_ path: String, query: [URLQueryItem], label: String, as type: T.Type) async throws(APIError) -> T {
        try await MonzoAPI.fetch(transport, path, query: query, label: label, as: type, decoder: decoder, sleep: sleep)
    }

    private static func fetch<T: Decodable>(_ transport: HTTPTransport, _ path: String, query: [URLQueryItem] = [], label: String,
                                            as type: T.Type, decoder: PayloadDecoder, sleep: Sleep) async throws(APIError) -> T {
        var answer = try await transport.answer("GET", path, query: query, label: label)
        if answer.status == 429, let wait = retryWait(answer.header("Retry-After")) {
            await sleep(wait)
            answer = try await transport.answer("GET", path, query: query, label: label)
        }
        guard answer.isSuccess else { throw transport.error(for: answer, label: label) }
        do {
            return try decoder.decode(type, from: answer.body, resource: label)
        } catch {
            throw APIError(kind: .malformed, request: label, message: error.description)
        }
    }

    /// A `Retry-After` of whole seconds, `longestRetryWait` at most; nil otherwise (Monzo
    /// documents neither the header nor a window: without one, the 429 is said, not waited).
    static func retryWait(_ header: String?) -> TimeInterval? {
        guard let text = header?.trimmingCharacters(in: .whitespaces), let seconds = Int(text), seconds >= 0,
              TimeInterval(seconds) <= longestRetryWait else { return nil }
        return TimeInterval(seconds)
    }

    private func mapEach<Record, Value>(_ records: [Record], _ label: String, name: (Record) -> String,
                                        _ transform: (Record) throws(MalformedPayload) -> Value) -> [Value] {
        (decoder.skipped ?? SkippedRecords()).mapEach(records, resource: label, name: name, transform)
    }
}
