import FeedModel
import Foundation
import HTTPTransport

/// Up's public API (v1, JSON:API) as a read-only `SavingsAPI` (docs/banks.md, Up part).
///
/// Goals are the customer's savers; activity and round-ups are the spending (TRANSACTIONAL)
/// account's transactions; a goal's feed is that saver's own transactions. Every list is read
/// page by page by following `links.next` exactly as Up gave it (never built here), on Up's
/// origin only. `X-RateLimit-Remaining` is read from every answer (`rateLimit`); a 429 with a
/// short `Retry-After` is waited out and tried once more, any other stops all fetching until the
/// time it names (an hour when none), without a retry. Up's API cannot move money or create
/// savers: `transfer` and `createGoal` refuse in one line, without a request.
public struct UpAPI: BankAPI {
    public static let productionURL = URL(string: "https://api.up.com.au/api/v1")!
    public static let source = SourceDescription(
        name: "up", title: "Up", baseURL: productionURL, signIn: .token, tokenVariables: ["UP_TOKEN"],
        abilities: [.bankAccount], noGoalCreation: cannotCreateSavers, tokenCheck: "GET /util/ping",
        configKeys: ["saver-targets", "you"], documentation: "docs/banks.md", noMoneyMoves: cannotMoveMoney)
    /// Records asked for per page (Up's largest is 100).
    public static let pageSize = 100
    /// Pages followed at most in one walk: a server whose `next` never ends cannot keep the app busy.
    public static let maxPages = 100
    /// Before any Up account: the history's end when an account says no `createdAt`.
    public static let earliestHistory = Date(timeIntervalSince1970: 1_538_352_000)   // 2018-10-01

    public let transport: HTTPTransport
    /// The spending account every activity and round-up is about.
    public let spending: Up.AccountResource
    public let accountCurrency: Currency
    /// The spending account's opening: the activity feed's `oldest`.
    public let createdAt: Date
    /// What Up's rate limit has left, and whether a 429 stopped fetching.
    public let rateLimit: UpRateLimit
    /// Targets the config file sets, by saver name or id (Up has none).
    public let targets: [String: Money]
    /// On a joint account, the name Up gives the user (`[up] you`): their payments are "you".
    public let you: String?
    private let directory: Directory
    private let decoder: PayloadDecoder
    private let now: @Sendable () -> Date

    /// `people`: the names of people on a joint account as a last run met them (an offline start
    /// names them before Up answers).
    public init(transport: HTTPTransport, spending: Up.AccountResource, accounts: [Up.AccountResource] = [],
                targets: [String: Money] = [:], targetAmounts: [String: Decimal] = [:], rateLimit: UpRateLimit = UpRateLimit(),
                people: [Int: String] = [:], you: String? = nil, now: @escaping @Sendable () -> Date = { Date() }) throws(MalformedPayload) {
        let balance = try spending.attributes.balance.money("accounts[].attributes.balance")
        self.transport = transport
        self.spending = spending
        self.accountCurrency = balance.currency
        self.createdAt = spending.attributes.createdAt ?? UpAPI.earliestHistory
        self.rateLimit = rateLimit
        self.targets = targets.merging(UpAPI.targets(targetAmounts, currency: balance.currency)) { given, _ in given }
        self.you = you.map(TextSanitizer.clean).flatMap { $0.isEmpty ? nil : $0 }
        self.directory = Directory()
        self.decoder = PayloadDecoder(accountCurrency: balance.currency, skipped: SkippedRecords())
        self.now = now
        directory.learn(accounts + [spending])
        for (id, name) in people { directory.meet(id: id, name: TextSanitizer.clean(name)) }
    }

    /// Notes about records Up's answers held but that could not be read (for the status bar).
    public var skippedRecords: SkippedRecords? { decoder.skipped }

    /// A transport with Up's error envelope.
    public static func transport(baseURL: URL, token: String?, timeout: TimeInterval = 10,
                                 allowInsecureHTTP: Bool = false, log: RequestLog? = nil) -> HTTPTransport {
        HTTPTransport(baseURL: baseURL, token: token, timeout: timeout, allowInsecureHTTP: allowInsecureHTTP,
                      serverMessage: Up.serverMessage, log: log)
    }

    /// Checks the token with `GET /util/ping`, then lists the accounts and picks the spending
    /// one (the first TRANSACTIONAL). A refused token throws an `APIError` of kind `.unauthorized`.
    public static func connect(baseURL: URL, token: String?, timeout: TimeInterval = 10, allowInsecureHTTP: Bool = false,
                               log: RequestLog? = nil, targets: [String: Money] = [:], targetAmounts: [String: Decimal] = [:],
                               rateLimit: UpRateLimit = UpRateLimit(), you: String? = nil,
                               now: @escaping @Sendable () -> Date = { Date() }) async throws(APIError) -> UpAPI {
        let ping = "GET /util/ping"
        // A token is printable ASCII: anything else (a pasted line break, a space) would make a
        // broken header; refused here, without quoting it.
        if let token, !token.isEmpty, !token.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) {
            throw APIError(kind: .unauthorized, request: ping,
                           message: "\(ping): not sent: the token has spaces or characters a token cannot have")
        }
        let transport = transport(baseURL: baseURL, token: token, timeout: timeout, allowInsecureHTTP: allowInsecureHTTP, log: log)
        let pages = Pages(transport: transport, rateLimit: rateLimit, decoder: PayloadDecoder())
        _ = try pages.decode(try await pages.first(Path("/util/ping"), label: ping), as: Up.Ping.self, label: ping)
        let label = "GET /accounts"
        let accounts: [Up.AccountResource] = try await pages.all(Path("/accounts"), query: [pageSizeItem], label: label)
        guard let chosen = accounts.first(where: \.isTransactional) else {
            throw APIError(kind: .notFound, request: label, message: "\(label): the token has no spending (TRANSACTIONAL) account")
        }
        do {
            let api = try UpAPI(transport: transport, spending: chosen, accounts: accounts, targets: targets, targetAmounts: targetAmounts,
                                rateLimit: rateLimit, you: you, now: now)
            // The listing just read the spending account: the first look at it asks nothing more.
            api.answerNextAsk(with: header(chosen, balance: try chosen.attributes.balance.money("attributes.balance"),
                                           createdAt: api.createdAt).withFeedBalance(asOf: now()))
            return api
        } catch {
            throw APIError(kind: .malformed, request: label, message: error.description)
        }
    }

    public var baseURL: URL { transport.baseURL }

    /// Whether Up refused the token in use (the app then asks for another).
    public var tokenRefused: Bool { transport.tokenRefused }

    /// Signs in again: checks `token` with `GET /util/ping` and uses it for every request from
    /// now on. Throws the refusal (never quoting it).
    public func replaceToken(_ token: String) async throws(APIError) {
        _ = try await UpAPI.connect(baseURL: baseURL, token: token, timeout: transport.timeout,
                                    allowInsecureHTTP: transport.allowInsecureHTTP, rateLimit: rateLimit)
        transport.replaceToken(token)
    }

    public var sourceName: String { transport.hostAndPort }

    /// The spending account's id: the offline cache's partition and the saved weeks' identity.
    public var accountId: String { spending.id }

    /// The rate limit, when it runs low or has stopped fetching.
    public var statusNote: String? { rateLimit.statusNote }

    /// The config file's `saver-targets = "Holiday = 2000; 🐷 Savings = 500.50"`: a target per
    /// saver (by name or id) in whole units with decimals; nil with a one-line reason otherwise.
    public static func targetAmounts(_ text: String) -> Result<[String: Decimal], MalformedPayload> {
        var targets: [String: Decimal] = [:]
        for part in text.split(separator: ";") {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            guard let equals = trimmed.lastIndex(of: "="),
                  case let name = trimmed[..<equals].trimmingCharacters(in: .whitespaces), !name.isEmpty,
                  case let amount = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces),
                  amount.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                  let value = Decimal(string: amount, locale: Locale(identifier: "en_US_POSIX")), value > 0 else {
                return .failure(MalformedPayload(resource: "saver-targets",
                                                 reason: "\"\(String(trimmed.prefix(40)))\" is not NAME = AMOUNT (e.g. Holiday = 2000)"))
            }
            targets[TextSanitizer.clean(name)] = value
        }
        return .success(targets)
    }

    /// Targets in whole units (`targetAmounts`) as money of `currency`.
    public static func targets(_ amounts: [String: Decimal], currency: Currency) -> [String: Money] {
        amounts.compactMapValues { Money(decimal: $0, currency: currency) }
    }

    /// The accounts known so far (the spending one and the savers), with their names: what an
    /// offline start needs to name savers again.
    public var knownAccounts: [Up.AccountResource] { directory.accounts }

    /// The people on a joint account met so far, by user id: what an offline start needs to name
    /// them again.
    public var knownPeople: [Int: String] { directory.people }

    /// Calls `observer` with everyone met so far each time someone is met for the first time (or
    /// under a new name): to keep them for an offline start.
    public func whenPeopleChange(_ observer: @escaping @Sendable ([Int: String]) -> Void) { directory.observe(observer) }

    /// Whether the spending account is a joint (2Up) one: who made each payment is then shown.
    public var isJoint: Bool { spending.isJoint }

    // MARK: - The account

    /// The spending account again (`GET /accounts/{id}`) for its balance; JOINT is marked.
    public func account() async throws -> Account? {
        if let kept = directory.takeNext() { return kept }
        let path = Path("/accounts/").id(spending.id)
        let label = path.label("GET")
        let pages = pages()
        let document = try pages.decode(try await pages.first(path, label: label),
                                              as: Up.SingleDocument<Up.AccountResource>.self, label: label)
        let fresh = document.data
        let balance: Money
        do {
            balance = try fresh.attributes.balance.money("data.attributes.balance")
        } catch {
            throw APIError(kind: .malformed, request: label, message: error.description)
        }
        return UpAPI.header(fresh, balance: balance, createdAt: createdAt).withFeedBalance(asOf: now())
    }

    /// Activity is the spending account's transactions (held ones included), as its balance is.
    public var saysFeedBalance: Bool { true }

    /// The next `account()` answers `account` without asking (the start read it already).
    public func answerNextAsk(with account: Account) { directory.keepNext(account) }

    /// The header's account: its name, ` (joint)` after a JOINT one, its balance.
    static func header(_ resource: Up.AccountResource, balance: Money, createdAt: Date) -> Account {
        let name = TextSanitizer.clean(resource.attributes.displayName ?? "")
        return Account(id: resource.id, name: name, currency: balance.currency, createdAt: createdAt,
                       holder: resource.isJoint ? name + " (joint)" : name, effectiveBalance: balance)
    }

    // MARK: - SavingsAPI

    /// The savers, with their balances; a target only where the config file sets one.
    public func goals() async throws -> [Goal] {
        let path = Path("/accounts")
        let label = path.label("GET") + " (savers)"
        let query = [URLQueryItem(name: "filter[accountType]", value: "SAVER"), UpAPI.pageSizeItem]
        let savers: [Up.AccountResource] = try await pages().all(path, query: query, label: label)
        directory.learn(savers)
        let targets = self.targets
        return mapEach(savers.filter(\.isSaver), label, name: { "id \($0.id)" }) { saver throws(MalformedPayload) in
            try UpMapping.goal(saver, targets: targets)
        }
    }

    /// The saver's own transactions, newest first, back to its opening.
    public func feed(goalId: GoalID) async throws -> [FeedItem] {
        let path = Path("/accounts/").id(goalId.rawValue).then("/transactions")
        let label = path.label("GET")
        let items: [Up.TransactionResource] = try await pages().all(path, query: [UpAPI.pageSizeItem], label: label)
        let accounts = directory.names
        let joint = isJoint
        learnPeople(items)
        return mapEach(items, label, name: { "id \($0.id)" }) { item throws(MalformedPayload) in
            try UpMapping.goalFeedItem(item, accounts: accounts, joint: joint, you: you)
        }.sorted { $0.timestamp > $1.timestamp }
    }

    /// People and rules are answered here, without a request.
    public var answersUsersAndRulesItself: Bool { true }

    /// Up has no savings rules.
    public func rules() async throws -> [SavingsRule] { [] }

    /// The holder is user 1; on a joint account, whoever made a payment shown so far.
    public func user(id: Int) async throws -> User {
        if let name = directory.person(id) { return User(id: id, displayName: name) }
        guard id == UpMapping.holderId else {
            let label = "user \(id)"
            throw APIError(kind: .notFound, request: label, message: "\(label): not found")
        }
        return User(id: id, displayName: "You")
    }

    /// The spending account's transactions in the window (every page); `oldest` is its opening.
    public func activities(from: Date, to: Date) async throws -> ActivityPage {
        let (items, label) = try await spendingTransactions(from: from, to: to)
        let savers = directory.saverNames
        let joint = isJoint
        let activities = mapEach(items, label, name: { "id \($0.id)" }) { item throws(MalformedPayload) in
            try UpMapping.activity(item, savers: savers, joint: joint, you: you)
        }
        return ActivityPage(oldest: createdAt, activities: activities.sorted { $0.timestamp > $1.timestamp })
    }

    /// The spending account's transactions in the window, each with Up's own round-up.
    public func transactions(from: Date, to: Date) async throws -> [FeedModel.Transaction] {
        let (items, label) = try await spendingTransactions(from: from, to: to)
        return mapEach(items, label, name: { "id \($0.id)" }, UpMapping.transaction)
    }

    /// Up's API cannot create savers.
    public func createGoal(name: String, target: Money?) async throws -> Goal {
        throw APIError(kind: .rejected, request: "new saver", message: UpAPI.cannotCreateSavers)
    }

    /// Up's API cannot move money: Up moves round-ups into a saver itself.
    public func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
        throw APIError(kind: .rejected, request: "transfer", message: UpAPI.cannotMoveMoney)
    }

    public static let cannotMoveMoney = "Up's API cannot move money: Up moves round-ups into your saver itself"
    public static let cannotCreateSavers = "Up's API cannot create savers: make one in the Up app"

    // MARK: - Plumbing

    static let pageSizeItem = URLQueryItem(name: "page[size]", value: String(UpAPI.pageSize))

    /// `2026-11-08T00:00:00+00:00`: RFC 3339 with an offset, as Up's filters take it.
    public static func timestamp(_ date: Date) -> String { Timestamp.queryString(date) }

    private func spendingTransactions(from: Date, to: Date) async throws(APIError) -> ([Up.TransactionResource], String) {
        let path = Path("/accounts/").id(spending.id).then("/transactions")
        let label = path.label("GET")
        let query = [URLQueryItem(name: "filter[since]", value: UpAPI.timestamp(from)),
                     URLQueryItem(name: "filter[until]", value: UpAPI.timestamp(to)), UpAPI.pageSizeItem]
        let items: [Up.TransactionResource] = try await pages().all(path, query: query, label: label)
        learnPeople(items)
        return (items, label)
    }

    /// The names of people on a joint account, as payments name them; on one's own account the
    /// performing customer is the holder.
    private func learnPeople(_ items: [Up.TransactionResource]) {
        for item in items {
            guard let name = item.attributes.performingCustomer?.displayName.map(TextSanitizer.clean), !name.isEmpty else { continue }
            directory.meet(id: UpMapping.userId(item, joint: isJoint, you: you), name: name)
        }
    }

    private func pages() -> Pages { Pages(transport: transport, rateLimit: rateLimit, decoder: decoder) }

    func url(for path: Path, query: [URLQueryItem] = []) -> URL { transport.url(for: path.text, query: query) }

    private func mapEach<Record, Value>(_ records: [Record], _ label: String, name: (Record) -> String,
                                        _ transform: (Record) throws(MalformedPayload) -> Value) -> [Value] {
        (decoder.skipped ?? SkippedRecords()).mapEach(records, resource: label, name: name, transform)
    }

    /// A path and its label (HTTPTransport's `RequestPath`: ids as "…" in the label).
    typealias Path = RequestPath

    /// Requests through the rate limit: one page, or every page by `links.next`.
    struct Pages {
        let transport: HTTPTransport
        let rateLimit: UpRateLimit
        let decoder: PayloadDecoder

        func first(_ path: Path, query: [URLQueryItem] = [], label: String) async throws(APIError) -> Data {
            try await guarded(label) { () async throws(APIError) -> HTTPTransport.Answer in
                try await transport.answer("GET", path.text, query: query, label: label)
            }
        }

        /// Every record of a list: the first page, then each `links.next` as Up wrote it, until
        /// there is none (or the same link comes again, or `maxPages`).
        func all<Resource: Codable & Sendable>(_ path: Path, query: [URLQueryItem], label: String)
            async throws(APIError) -> [Resource] {
            var document = try decode(try await first(path, query: query, label: label), as: Up.ListDocument<Resource>.self,
                                      label: label)
            var records = document.data
            var followed: Set<String> = []
            var pages = 1
            while let next = document.links?.next, !next.isEmpty {
                guard pages < UpAPI.maxPages, followed.insert(next).inserted else { break }
                guard let url = URL(string: next) else {
                    throw APIError(kind: .malformed, request: label, message: "\(label): links.next is not a URL")
                }
                let body = try await guarded(label) { () async throws(APIError) -> HTTPTransport.Answer in
                    try await transport.answer("GET", absolute: url, label: label)
                }
                document = try decode(body, as: Up.ListDocument<Resource>.self, label: label)
                records += document.data
                pages += 1
            }
            return records
        }

        func decode<T: Decodable>(_ data: Data, as type: T.Type, label: String) throws(APIError) -> T {
            do {
                return try decoder.decode(type, from: data, resource: label)
            } catch {
                throw APIError(kind: .malformed, request: label, message: error.description)
            }
        }

        /// No request while a 429 holds; the count read from every answer; a 429 with a short
        /// `Retry-After` is waited out and sent once more, any other (or a second) stops fetching;
        /// any other failure is one line with Up's words.
        private func guarded(_ label: String, _ send: () async throws(APIError) -> HTTPTransport.Answer)
            async throws(APIError) -> Data {
            if let until = rateLimit.stoppedUntil {
                throw APIError(kind: .http(status: 429), request: label, message: rateLimit.message(label: label, until: until),
                               status: 429)
            }
            var answer = try await send()
            rateLimit.observe(remainingHeader: answer.header("X-RateLimit-Remaining"))
            if answer.status == 429, let wait = rateLimit.shortWait(retryAfter: answer.header("Retry-After")) {
                await rateLimit.sleep(wait)
                answer = try await send()
                rateLimit.observe(remainingHeader: answer.header("X-RateLimit-Remaining"))
            }
            if answer.status == 429 {
                let until = rateLimit.stop(retryAfter: answer.header("Retry-After"))
                throw APIError(kind: .http(status: 429), request: label, message: rateLimit.message(label: label, until: until),
                               status: 429)
            }
            guard answer.isSuccess else {
                let error = transport.error(for: answer, label: label)
                // Up's envelope in one line where the transport leaves the server's words out.
                guard ![400, 401, 403, 404, 409, 422].contains(answer.status), let said = Up.serverMessage(answer.body) else {
                    throw error
                }
                throw APIError(kind: error.kind, request: label,
                               message: error.message + ": " + TextSanitizer.clean(String(said.prefix(200))), status: answer.status)
            }
            return answer.body
        }
    }

    /// What the client has learnt of the customer's accounts (names by id) and of the people on
    /// a joint account (names by user id), shared by every copy of the API.
    final class Directory: Sendable {
        private let state = Locked<(accounts: [String: String], savers: Set<String>, people: [Int: String],
                                    resources: [String: Up.AccountResource])>(([:], [], [:], [:]))

        func learn(_ accounts: [Up.AccountResource]) {
            state.withLock { state in
                for account in accounts {
                    state.accounts[account.id] = TextSanitizer.clean(account.attributes.displayName ?? "")
                    if account.isSaver { state.savers.insert(account.id) }
                    state.resources[account.id] = account
                }
            }
        }

        var accounts: [Up.AccountResource] { state.withLock { $0.resources.values.sorted { $0.id < $1.id } } }

        var names: [String: String] { state.withLock { $0.accounts } }

        var saverNames: [String: String] {
            state.withLock { state in state.accounts.filter { state.savers.contains($0.key) } }
        }

        func meet(id: Int, name: String) {
            guard !name.isEmpty else { return }
            let changed = state.withLock { state in
                defer { state.people[id] = name }
                return state.people[id] != name
            }
            // One at a time, each with everyone met by then: the last one kept is the newest.
            if changed { observer.withLock { observer in observer?(people) } }
        }

        var people: [Int: String] { state.withLock { $0.people } }

        private let observer = Locked<(@Sendable ([Int: String]) -> Void)?>(nil)
        func observe(_ observer: @escaping @Sendable ([Int: String]) -> Void) { self.observer.withLock { $0 = observer } }

        private let next = Locked<Account?>(nil)
        func keepNext(_ account: Account) { next.withLock { $0 = account } }
        func takeNext() -> Account? { next.withLock { kept in defer { kept = nil }; return kept } }

        func person(_ id: Int) -> String? { state.withLock { $0.people[id] } }
    }
}
