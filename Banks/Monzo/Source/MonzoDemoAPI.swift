import DemoData
import DemoServer
import FeedModel
import Foundation
import MonzoClient

/// `serve --api monzo`: the demo dataset in Monzo's shapes and paths (docs/banks.md), a
/// `ServeHandler`: `DemoHTTPServer(handler: MonzoDemoAPI(backend: …))`.
///
/// - Every API request needs `Authorization: Bearer <token>`: the printed test token, or one the
///   OAuth pair issued (`GET /auth/` → the callback with a code, `POST /oauth2/token`); a
///   refresh replaces the pair and the old one is refused from then on.
/// - With `scaPending`, a new token is refused with `forbidden.verification_required` until
///   `POST /test/approve` is sent with it (what the customer's tap in the Monzo app does).
/// - With `approvalLapsesAfter` N, a token's approval lapses once after N requests it made
///   (Monzo asking the customer again, in the middle of a session): refused the same way until
///   approved again.
/// - `historyWindow` after a token was issued, transactions older than 90 days are refused (403).
/// - `PUT /pots/{id}/deposit` is idempotent by `dedupe_id`: the same one twice moves money once.
/// - Pots are the demo's goals (`pot_0000demo000000000000000N`); the account's transactions are
///   its card payments (the newest two days pending, a few declined, those abroad in euros with
///   `local_amount`), its salary, and every saving into a goal as a pot transfer.
public actor MonzoDemoAPI: ServeHandler {
    public static let testToken = "monzo-demo-token-3Kp9"
    public static let accountId = "acc_0000demo00000000000001"
    public static let userId = "user_0000demo0000000000001"
    /// The demo's OAuth client (put them in the config file's `[monzo]` table to try `login monzo`).
    public static let clientId = "oauth2client_0000demo000001"
    public static let clientSecret = "mnzconf.demo-secret-8Rw2"
    static let euroRate: (numerator: Int64, denominator: Int64) = (87, 100)
    /// How long an issued access token lasts (Monzo's: 6 hours).
    public static let tokenLifetime: TimeInterval = 21_600

    public struct Options: Sendable {
        /// How long after a token was issued the whole history can be read (Monzo: 5 minutes).
        public var historyWindow: TimeInterval = MonzoAPI.fullHistoryWindow
        /// New tokens wait for the customer's approval in the app.
        public var scaPending = false
        /// How long issued access tokens last.
        public var tokenLifetime: TimeInterval = MonzoDemoAPI.tokenLifetime
        /// After this many requests with a token, its approval lapses once (nil: never).
        public var approvalLapsesAfter: Int?

        public init(historyWindow: TimeInterval = MonzoAPI.fullHistoryWindow, scaPending: Bool = false,
                    tokenLifetime: TimeInterval = MonzoDemoAPI.tokenLifetime, approvalLapsesAfter: Int? = nil) {
            self.historyWindow = historyWindow
            self.scaPending = scaPending
            self.tokenLifetime = tokenLifetime
            self.approvalLapsesAfter = approvalLapsesAfter
        }
    }

    private struct Grant {
        var issuedAt: Date
        var expiresAt: Date?
        var approved: Bool
        /// Requests answered with it so far.
        var served = 0
        /// Its approval lapsed once already (`approvalLapsesAfter`).
        var lapsed = false
    }

    private let backend: DemoBackend
    private let options: Options
    private let clock: @Sendable () -> Date
    private var grants: [String: Grant] = [:]
    /// Refresh token → the access token it came with.
    private var refreshTokens: [String: String] = [:]
    /// Authorisation code → the redirect URI it was issued for (each code works once).
    private var codes: [String: String] = [:]
    /// dedupe_id → the deposit it made.
    private var deposits: [String: (pot: GoalID, amount: Money, at: Date, id: String)] = [:]
    private var issued = 0

    public init(backend: DemoBackend, options: Options = Options(), clock: @escaping @Sendable () -> Date = { Date() }) {
        self.backend = backend
        self.options = options
        self.clock = clock
        grants[MonzoDemoAPI.testToken] = Grant(issuedAt: clock(), expiresAt: nil, approved: !options.scaPending)
    }

    /// How many deposits moved money (tests: a retried one counts once).
    public var depositCount: Int { deposits.count }

    struct Failure: Error {
        let status: Int
        let body: Data

        static func monzo(_ status: Int, _ code: String, _ message: String) -> Failure {
            Failure(status: status, body: MonzoDemoAPI.encode(Monzo.ErrorBody(code: code, message: message)))
        }

        static func oauth(_ status: Int, _ error: String, _ description: String) -> Failure {
            Failure(status: status, body: MonzoDemoAPI.encode(Monzo.ErrorBody(error: error, description: description)))
        }
    }

    public func handle(_ request: ServeRequest) async -> ServeResponse {
        do {
            if let special = try await unauthenticated(request) { return special }
            let token = try authorize(request.headers["Authorization"], path: request.path)
            return .data(try await route(request, token: token), contentType: ServeResponse.jsonType, status: 200)
        } catch let failure as Failure {
            return .data(failure.body, contentType: ServeResponse.jsonType, status: failure.status)
        } catch let error as APIError {
            let status = error.status ?? (error.kind == .notFound ? 404 : 500)
            var message = error.message
            if let range = message.range(of: ": HTTP \(status): ") { message = String(message[range.upperBound...]) }
            return .data(MonzoDemoAPI.encode(Monzo.ErrorBody(code: "bad_request", message: message)),
                         contentType: ServeResponse.jsonType, status: status)
        } catch {
            return .data(MonzoDemoAPI.encode(Monzo.ErrorBody(code: "internal_service", message: "internal error")),
                         contentType: ServeResponse.jsonType, status: 500)
        }
    }

    // MARK: - OAuth and approval

    /// The paths without a bearer token: the authorisation page and the token exchange.
    private func unauthenticated(_ request: ServeRequest) async throws -> ServeResponse? {
        switch request.path {
        case "/auth", "/auth/":
            try allow(["GET"], request.method)
            return try authorizePage(request.rawQuery)
        case "/oauth2/token":
            try allow(["POST"], request.method)
            return .data(MonzoDemoAPI.encode(try exchange(request.body)), contentType: ServeResponse.jsonType, status: 200)
        default:
            return nil
        }
    }

    /// `GET /auth/?client_id&redirect_uri&response_type=code&state`: the customer signs in (here
    /// at once) and is sent back to the loopback callback with a code and the same state.
    private func authorizePage(_ rawQuery: String) throws -> ServeResponse {
        let values = try formValues(rawQuery)
        guard values["client_id"] == MonzoDemoAPI.clientId else { throw Failure.oauth(400, "invalid_client", "unknown client_id") }
        guard values["response_type"] == "code" else { throw Failure.oauth(400, "unsupported_response_type", "response_type must be code") }
        guard let redirect = values["redirect_uri"], let url = URL(string: redirect), url.scheme == "http",
              ["127.0.0.1", "localhost", "::1", "[::1]"].contains(url.host ?? "") else {
            throw Failure.oauth(400, "invalid_request", "redirect_uri must be a loopback http URL")
        }
        guard let state = values["state"], !state.isEmpty else { throw Failure.oauth(400, "invalid_request", "state is missing") }
        issued += 1
        let code = "code_demo_\(issued)_" + UUID().uuidString.prefix(8).lowercased()
        codes[code] = redirect
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let location = redirect + (redirect.contains("?") ? "&" : "?") + "code=" + code + "&state="
            + (state.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        return ServeResponse(status: 302, headers: ["Location": location, "Content-Type": "text/plain; charset=utf-8"],
                             body: Data("Signed in to the demo bank; back to qapital-tui.\n".utf8))
    }

    /// `POST /oauth2/token` (form): a code for a pair, or a refresh token for a new pair (the old
    /// pair is refused from then on).
    private func exchange(_ body: Data) throws -> Monzo.TokenPair {
        let values = try formValues(String(decoding: body, as: UTF8.self))
        guard values["client_id"] == MonzoDemoAPI.clientId, values["client_secret"] == MonzoDemoAPI.clientSecret else {
            throw Failure.oauth(401, "invalid_client", "client_id or client_secret is wrong")
        }
        switch values["grant_type"] {
        case "authorization_code":
            guard let code = values["code"], let redirect = codes.removeValue(forKey: code) else {
                throw Failure.oauth(400, "invalid_grant", "the code is unknown or was used already")
            }
            guard values["redirect_uri"] == redirect else { throw Failure.oauth(400, "invalid_grant", "redirect_uri does not match") }
            return newPair()
        case "refresh_token":
            guard let refresh = values["refresh_token"], let access = refreshTokens.removeValue(forKey: refresh) else {
                throw Failure.oauth(400, "invalid_grant", "the refresh token is unknown or was used already")
            }
            // The new pair keeps the approval of the old one: a refresh is not a new sign-in.
            let approved = grants.removeValue(forKey: access)?.approved ?? false
            var pair = newPair()
            grants[pair.accessToken]?.approved = approved
            pair.userId = MonzoDemoAPI.userId
            return pair
        default:
            throw Failure.oauth(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
        }
    }

    private func newPair() -> Monzo.TokenPair {
        issued += 1
        let access = "demo_access_\(issued)_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let refresh = "demo_refresh_\(issued)_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let now = clock()
        grants[access] = Grant(issuedAt: now, expiresAt: now.addingTimeInterval(options.tokenLifetime), approved: !options.scaPending)
        refreshTokens[refresh] = access
        return Monzo.TokenPair(accessToken: access, clientId: MonzoDemoAPI.clientId, expiresIn: Int(options.tokenLifetime),
                               refreshToken: refresh, userId: MonzoDemoAPI.userId)
    }

    /// Approves the token of this request (what the customer's tap in the app does).
    public func approve(_ token: String) -> Bool {
        guard grants[token] != nil else { return false }
        grants[token]?.approved = true
        return true
    }

    /// Takes the approval of `token` back (Monzo asking the customer again mid-session): its
    /// requests are refused with `forbidden.verification_required` until it is approved again.
    public func lapseApproval(_ token: String) -> Bool {
        guard grants[token] != nil else { return false }
        grants[token]?.approved = false
        grants[token]?.lapsed = true
        return true
    }

    private func authorize(_ header: String?, path: String) throws -> String {
        guard let header, header.hasPrefix("Bearer ") else {
            throw Failure.monzo(401, "unauthorized.bad_access_token", "No access token")
        }
        let token = String(header.dropFirst("Bearer ".count))
        guard let grant = grants[token] else {
            throw Failure.monzo(401, "unauthorized.bad_access_token.evicted", "The access token is not valid (evicted or unknown)")
        }
        if let expiry = grant.expiresAt, clock() >= expiry {
            throw Failure.monzo(401, "unauthorized.bad_access_token.expired", "The access token has expired")
        }
        if grant.approved, !grant.lapsed, let limit = options.approvalLapsesAfter, grant.served >= limit {
            _ = lapseApproval(token)
        }
        if grants[token]?.approved != true, path != "/test/approve" {
            throw Failure.monzo(403, "forbidden.verification_required",
                                "Verification required: approve this sign-in in the Monzo app")
        }
        grants[token]?.served += 1
        return token
    }

    // MARK: - Routing

    private func route(_ request: ServeRequest, token: String) async throws -> Data {
        let segments = request.path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        let method = request.method.uppercased()
        let values = try formValues(request.rawQuery)
        switch segments {
        case ["ping", "whoami"]:
            try allow(["GET"], method)
            return MonzoDemoAPI.encode(Monzo.WhoAmI(authenticated: true, clientId: MonzoDemoAPI.clientId, userId: MonzoDemoAPI.userId))
        case ["test", "approve"]:
            try allow(["POST"], method)
            _ = approve(token)
            return Data(#"{"approved":true}"#.utf8)
        case ["accounts"]:
            try allow(["GET"], method)
            return MonzoDemoAPI.encode(Monzo.AccountList(accounts: [await account()]))
        case ["balance"]:
            try allow(["GET"], method)
            try checkAccount(values["account_id"])
            return MonzoDemoAPI.encode(try await balance())
        case ["pots"]:
            try allow(["GET"], method)
            try checkAccount(values["current_account_id"])
            return MonzoDemoAPI.encode(Monzo.PotList(pots: await backend.goals().map(MonzoDemoAPI.pot)))
        case let path where path.count == 3 && path[0] == "pots" && path[2] == "deposit":
            try allow(["PUT"], method)
            return MonzoDemoAPI.encode(try await deposit(potId: path[1], body: request.body))
        case ["transactions"]:
            try allow(["GET"], method)
            try checkAccount(values["account_id"])
            return MonzoDemoAPI.encode(Monzo.TransactionList(transactions: try await transactions(values, token: token)))
        default:
            throw Failure.monzo(404, "not_found", "no such endpoint: \(TextSanitizer.clean(String(request.path.prefix(120))))")
        }
    }

    private func allow(_ methods: [String], _ method: String) throws {
        guard methods.contains(method.uppercased()) else {
            throw Failure.monzo(405, "method_not_allowed",
                                "\(TextSanitizer.clean(String(method.prefix(10)))) not allowed here (use \(methods.joined(separator: " or ")))")
        }
    }

    private func checkAccount(_ id: String?) throws {
        guard let id else { throw Failure.monzo(400, "bad_request.missing_param.account_id", "account_id is missing") }
        guard id == MonzoDemoAPI.accountId else {
            throw Failure.monzo(403, "forbidden.insufficient_permissions", "Access forbidden due to insufficient permissions")
        }
    }

    private func formValues(_ text: String) throws -> [String: String] {
        do {
            return try DemoAPIHandler.queryValues(text)
        } catch {
            throw Failure.monzo(400, "bad_request", error.message)
        }
    }

    // MARK: - The account and pots

    private func account() async -> Monzo.Account {
        let holder = await backend.dataset.users.first { $0.id == 1 }?.displayName ?? "Demo Holder"
        return Monzo.Account(id: MonzoDemoAPI.accountId, description: MonzoDemoAPI.userId, created: await createdAt(),
                             closed: false, type: "uk_retail", currency: await backend.currency.code,
                             owners: [Monzo.Owner(userId: MonzoDemoAPI.userId, preferredName: holder)],
                             accountNumber: "12345678", sortCode: "040004")
    }

    /// When the demo account was opened (`DemoAccount.openedAt`).
    private func createdAt() async -> Date { await DemoAccount.openedAt(backend) }

    /// 1,000 units to start with, plus everything in the feed that was not declined; the total
    /// adds the pots that are not deleted (a deleted pot holds no money of the account's; the
    /// app hides it, and a header that counted it would not add up with the list).
    private func balance() async throws -> Monzo.Balance {
        let currency = await backend.currency
        var balance: Int64 = 1_000 * currency.minorPerUnit
        for transaction in try await allTransactions() where !transaction.isDeclined {
            balance = Money.add(balance, transaction.amount)
        }
        let pots = await backend.goals().filter { $0.status == .active }.reduce(Int64(0)) { Money.add($0, $1.balance.minorUnits) }
        return Monzo.Balance(balance: balance, totalBalance: Money.add(balance, pots), currency: currency.code, spendToday: 0)
    }

    /// `pot_0000demo000000000000000004` for demo goal 4.
    public static func potId(_ id: GoalID) -> String {
        guard let number = id.number else { return id.rawValue }
        return "pot_0000demo" + String(format: "%016d", number)
    }

    static func goalId(fromPot id: String) -> GoalID? {
        let prefix = "pot_0000demo"
        guard id.hasPrefix(prefix), let number = Int(id.dropFirst(prefix.count)) else { return nil }
        return GoalID(number)
    }

    static func pot(_ goal: Goal) -> Monzo.Pot {
        let styles = ["beach_ball", "raspberry", "blue_steel", "sunny_day", "yellow"]
        return Monzo.Pot(id: potId(goal.id), name: goal.name, style: styles[abs(goal.id.number ?? 0) % styles.count],
                         balance: goal.balance.minorUnits, currency: goal.balance.currency.code,
                         goalAmount: goal.target?.minorUnits, created: nil, updated: nil, deleted: goal.status != .active)
    }

    private func deposit(potId: String, body: Data) async throws -> Monzo.Pot {
        let values = try formValues(String(decoding: body, as: UTF8.self))
        try checkAccount(values["source_account_id"])
        guard let dedupe = values["dedupe_id"], !dedupe.isEmpty, dedupe.count <= 200 else {
            throw Failure.monzo(400, "bad_request.missing_param.dedupe_id", "dedupe_id is missing")
        }
        guard let text = values["amount"], let minor = Int64(text), minor > 0 else {
            throw Failure.monzo(400, "bad_request.bad_param.amount", "amount must be a whole number of pence above zero")
        }
        guard let goalId = MonzoDemoAPI.goalId(fromPot: potId), let goal = await backend.goals().first(where: { $0.id == goalId }) else {
            throw Failure.monzo(404, "not_found.pot", "no such pot: \(TextSanitizer.clean(String(potId.prefix(40))))")
        }
        let amount = Money(minorUnits: minor, currency: await backend.currency)
        if let earlier = deposits[dedupe] {
            // The same dedupe_id again: money moves once; the pot as it is now.
            guard earlier.pot == goal.id, earlier.amount == amount else {
                throw Failure.monzo(409, "conflict.dedupe_id", "dedupe_id was used for another deposit")
            }
            return MonzoDemoAPI.pot(await backend.goals().first { $0.id == goalId } ?? goal)
        }
        let transferId = UUID(uuidString: dedupe) ?? UUID.version5(namespace: MonzoDemoAPI.dedupeNamespace, name: dedupe)
        let updated = try await backend.transfer(goalId: goal.id, transferId: transferId, amount: amount)
        deposits[dedupe] = (goal.id, amount, clock(), transferId.uuidString.lowercased())
        return MonzoDemoAPI.pot(updated)
    }

    static let dedupeNamespace = UUID(uuidString: "3b8f5a2e-7c1d-4e9a-8f60-2d4c9e1b7a55")!

    // MARK: - Transactions

    /// `since` (RFC 3339, or a transaction id: the ones after it), `before`, `limit` (at most
    /// 100): oldest first. Past the 90-day edge of this token's sign-in: 403.
    private func transactions(_ values: [String: String], token: String) async throws -> [Monzo.Transaction] {
        let all = try await allTransactions()
        var list = all
        let limitText = values["limit"] ?? "100"
        guard let limit = Int(limitText), (1...100).contains(limit) else {
            throw Failure.monzo(400, "bad_request.bad_param.limit", "limit must be from 1 to 100")
        }
        var since: Date?
        if let text = values["since"] {
            if text.hasPrefix("tx_") {
                guard let index = all.firstIndex(where: { $0.id == text }) else {
                    throw Failure.monzo(400, "bad_request.bad_param.since", "since: no such transaction")
                }
                since = all[index].created
                list = Array(all[(index + 1)...])
            } else {
                guard let date = Monzo.parseDate(text) else {
                    throw Failure.monzo(400, "bad_request.bad_param.since", "since: not an RFC 3339 time or a transaction id")
                }
                since = date
                list = list.filter { $0.created >= date }
            }
        }
        if let text = values["before"] {
            guard let date = Monzo.parseDate(text) else {
                throw Failure.monzo(400, "bad_request.bad_param.before", "before: not an RFC 3339 time")
            }
            list = list.filter { $0.created < date }
        }
        if let grant = grants[token], clock().timeIntervalSince(grant.issuedAt) >= options.historyWindow {
            let edge = clock().addingTimeInterval(-Double(MonzoAPI.historyDays) * 86_400)
            if (since ?? .distantPast) < edge {
                throw Failure.monzo(403, "forbidden.insufficient_permissions",
                                    "Only the last 90 days of transactions can be read once a sign-in is 5 minutes old")
            }
        }
        return Array(list.prefix(limit))
    }

    /// Every transaction of the account, oldest first (ids and statuses the same every time).
    private func allTransactions() async throws -> [Monzo.Transaction] {
        let dataset = await backend.dataset
        let currency = dataset.currency
        let newest = dataset.transactions.first?.timestamp ?? dataset.now
        var list = dataset.transactions.map { transaction in
            MonzoDemoAPI.transaction(transaction, currency: currency, pendingAfter: newest.addingTimeInterval(-2 * 86_400))
        }
        let byTransfer = Dictionary(deposits.map { ($0.value.id, $0.key) }, uniquingKeysWith: { first, _ in first })
        for goal in dataset.goals {
            for saving in dataset.feeds[goal.id] ?? [] where saving.amount.minorUnits > 0 {
                let dedupe = byTransfer[saving.id]
                list.append(Monzo.Transaction(
                    id: "tx_0000pot" + String(format: "%016llx", FNV1a.hash((saving.id + goal.id.rawValue).utf8)),
                    created: saving.timestamp, amount: Money.negate(saving.amount.minorUnits), currency: currency.code,
                    description: MonzoDemoAPI.potId(goal.id), category: "savings", scheme: "uk_retail_pot",
                    settled: Timestamp.feedString(saving.timestamp),
                    metadata: ["pot_id": MonzoDemoAPI.potId(goal.id), "trigger": dedupe == nil ? "user" : "dedupe",
                               "external_id": dedupe ?? ""]))
            }
        }
        return list.sorted { $0.created != $1.created ? $0.created < $1.created : $0.id < $1.id }
    }

    /// A demo transaction as Monzo writes it.
    static func transaction(_ transaction: FeedModel.Transaction, currency: Currency, pendingAfter: Date) -> Monzo.Transaction {
        let out = transaction.amount.isNegative
        let paid = transaction.amount
        var amount = paid.minorUnits
        var local: (Int64, String)?
        if paid.currency != currency {
            // Paid abroad: the account pays in its own currency at a fixed demo rate.
            amount = (paid.minorUnits * euroRate.numerator - euroRate.denominator / 2) / euroRate.denominator
            local = (paid.minorUnits, paid.currency.code)
        }
        let hash = FNV1a.hash(transaction.id.utf8)
        let declined = out && hash % 13 == 0 && transaction.timestamp < pendingAfter
        let pending = out && transaction.timestamp >= pendingAfter
        let id = "tx_0000demo" + String(format: "%016llx", hash)
        return Monzo.Transaction(
            id: id, created: transaction.timestamp, amount: amount, currency: currency.code, localAmount: local?.0 ?? amount,
            localCurrency: local?.1 ?? currency.code, description: transaction.counterparty.uppercased(),
            merchant: out ? Monzo.Merchant(id: "merch_" + String(hash % 100_000), name: transaction.counterparty) : nil,
            counterparty: out ? nil : Monzo.Counterparty(name: transaction.counterparty), category: transaction.category ?? (out ? "shopping" : "income"),
            scheme: out ? "mastercard" : "payport_faster_payments",
            settled: pending || declined ? "" : Timestamp.feedString(transaction.timestamp.addingTimeInterval(86_400)),
            declineReason: declined ? "INSUFFICIENT_FUNDS" : nil, isLoad: false, metadata: [:])
    }

    // MARK: - JSON

    static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.feedString(date))
        }
        return (try? encoder.encode(value)) ?? Data(#"{"code":"internal_service","message":"cannot encode"}"#.utf8)
    }
}
