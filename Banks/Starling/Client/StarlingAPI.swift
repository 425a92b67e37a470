import FeedModel
import Foundation
import HTTPTransport

/// Starling Bank's public API (v2) as a `SavingsAPI`, for one account: the PRIMARY account of
/// the token (else its first). See docs/starling.md for the mapping.
///
/// Every request carries the bearer token (through `HTTPTransport`, to this base URL only);
/// timestamps go out as `2026-11-08T00:00:00.000Z`, percent-encoded; both error envelopes
/// become one-line messages. The account's currency is Starling's, never `--currency`.
public struct StarlingAPI: BankAPI {
    public static let productionURL = URL(string: "https://api.starlingbank.com")!
    public static let sandboxURL = URL(string: "https://api-sandbox.starlingbank.com")!
    /// The source as the registry lists it.
    public static let source = SourceDescription(
        name: "starling", title: "Starling Bank", baseURL: productionURL, sandboxURL: sandboxURL, signIn: .token,
        tokenVariables: ["STARLING_TOKEN", "QAPITAL_TOKEN"], abilities: [.createGoals, .moveMoney, .bankAccount],
        tokenCheck: "GET /api/v2/accounts", documentation: "docs/starling.md")
    /// Goal photos: `starling-photo:<savingsGoalUid>`, answered by `imageData(at:)`.
    public static let photoScheme = "starling-photo"
    /// Before any Starling account: the history's end when an account says no `createdAt`.
    /// The URL a goal's photo is drawn from.
    public static func photoURL(goalUid: String) -> URL? {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        return URL(string: photoScheme + ":" + (goalUid.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""))
    }

    public static let earliestHistory = Date(timeIntervalSince1970: 1_388_534_400)   // 2014-01-01

    public let transport: HTTPTransport
    /// The account every request is about.
    public let primary: Starling.AccountItem
    public let accountCurrency: Currency
    /// The start of the account's history: the activity feed's `oldest`.
    public let createdAt: Date
    private let decoder: PayloadDecoder
    private let now: @Sendable () -> Date
    /// Shared by copies: the holder's name once asked (a start asks for it once, not for the
    /// header and again for user 1), and an account answer handed to the next `account()`.
    private let known = Locked<(holder: String??, next: Account?)>((nil, nil))

    /// An API for an account already known (see `connect`).
    public init(transport: HTTPTransport, account: Starling.AccountItem, now: @escaping @Sendable () -> Date = { Date() })
        throws(MalformedPayload) {
        guard let currency = Currency.from(code: account.currency) else {
            throw MalformedPayload(resource: "GET /api/v2/accounts",
                                   reason: "accounts[].currency: not an ISO currency code: \"\(String(account.currency.prefix(10)))\"")
        }
        self.transport = transport
        self.primary = account
        self.accountCurrency = currency
        self.createdAt = account.createdAt ?? StarlingAPI.earliestHistory
        self.decoder = PayloadDecoder(accountCurrency: currency, skipped: SkippedRecords())
        self.now = now
    }

    /// Notes about records Starling's answers held but that could not be read (for the status bar).
    public var skippedRecords: SkippedRecords? { decoder.skipped }

    /// A transport with Starling's error envelopes.
    public static func transport(baseURL: URL, token: String?, timeout: TimeInterval = 10,
                                 allowInsecureHTTP: Bool = false, log: RequestLog? = nil) -> HTTPTransport {
        HTTPTransport(baseURL: baseURL, token: token, timeout: timeout, allowInsecureHTTP: allowInsecureHTTP,
                      serverMessage: Starling.serverMessage, log: log)
    }

    /// Checks the token with `GET /api/v2/accounts` and picks the account: the PRIMARY one, else
    /// the first. A refused token throws an `APIError` of kind `.unauthorized`.
    public static func connect(baseURL: URL, token: String?, timeout: TimeInterval = 10, allowInsecureHTTP: Bool = false,
                               log: RequestLog? = nil,
                               now: @escaping @Sendable () -> Date = { Date() }) async throws(APIError) -> StarlingAPI {
        let label = "GET /api/v2/accounts"
        // A token is printable ASCII: anything else (a pasted line break, a space) would make a
        // broken header; refused here, without quoting it.
        if let token, !token.isEmpty, !token.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) {
            throw APIError(kind: .unauthorized, request: label,
                           message: "\(label): not sent: the token has spaces or characters a token cannot have")
        }
        let transport = transport(baseURL: baseURL, token: token, timeout: timeout, allowInsecureHTTP: allowInsecureHTTP, log: log)
        let list = try await fetch(transport, "/api/v2/accounts", label: label, as: Starling.AccountList.self,
                                   decoder: PayloadDecoder())
        let accounts = list.accounts ?? []
        guard let chosen = accounts.first(where: { $0.accountType?.uppercased() == "PRIMARY" }) ?? accounts.first else {
            throw APIError(kind: .notFound, request: label, message: "\(label): the token has no account")
        }
        do {
            return try StarlingAPI(transport: transport, account: chosen, now: now)
        } catch {
            throw APIError(kind: .malformed, request: label, message: error.description)
        }
    }

    public var baseURL: URL { transport.baseURL }
    public var accountId: String { primary.accountUid }

    /// Whether Starling refused the token in use (the app then asks for another).
    public var tokenRefused: Bool { transport.tokenRefused }

    /// Signs in again: checks `token` with `GET /api/v2/accounts` and, when it opens this same
    /// account, uses it for every request from now on. Throws the refusal (never quoting it).
    public func replaceToken(_ token: String) async throws(APIError) {
        let checked = try await StarlingAPI.connect(baseURL: baseURL, token: token, timeout: transport.timeout)
        guard checked.primary.accountUid == primary.accountUid else {
            let label = "GET /api/v2/accounts"
            throw APIError(kind: .unauthorized, request: label,
                           message: "\(label): that token opens another account; start again to switch accounts")
        }
        transport.replaceToken(token)
    }
    public var sourceName: String { transport.hostAndPort }

    // MARK: - The account

    /// The next `account()` answers `account` without asking: the start checked the token and
    /// read the account for its header; the app's first look at the account is that same answer.
    public func answerNextAsk(with account: Account) {
        known.withLock { $0.next = account }
    }

    public func account() async throws -> Account? {
        if let kept = known.withLock({ state in defer { state.next = nil }; return state.next }) { return kept }
        async let balance = get(accountPath("/balance", under: "/api/v2/accounts"), as: Starling.Balance.self)
        async let identifiers = get(accountPath("/identifiers", under: "/api/v2/accounts"), as: Starling.Identifiers.self)
        async let holder = holderName()
        let (balanceValue, identifierValue, holderValue) = try await (balance, identifiers, holder)
        return Account(id: primary.accountUid, name: primary.name ?? "", currency: accountCurrency, createdAt: createdAt,
                       holder: holderValue,
                       sortCode: identifierValue.bankIdentifier.map(Account.formatSortCode),
                       accountNumber: identifierValue.accountIdentifier,
                       effectiveBalance: try balanceValue.effectiveBalance?.money("effectiveBalance"))
            .withFeedBalance(asOf: now())
    }

    /// Activity is the account's feed, pending rows included, as the effective balance is.
    public var saysFeedBalance: Bool { true }

    private func holderName() async throws -> String? {
        if let name = known.withLock({ $0.holder }) { return name }
        let name = try await get(Path("/api/v2/account-holder/name"), as: Starling.HolderName.self).accountHolderName
        known.withLock { $0.holder = .some(name) }
        return name
    }

    // MARK: - SavingsAPI

    public func goals() async throws -> [Goal] {
        let list = try await get(goalsPath(), as: Starling.SavingsGoalList.self)
        let currency = accountCurrency
        return mapEach(list.savingsGoalList ?? [], goalsPath().label("GET"), name: { "id \($0.savingsGoalUid)" }) { goal throws(MalformedPayload) in
            try StarlingMapping.goal(goal, currency: currency)
        }
    }

    /// The goal's own feed (its category), from the account's opening to now, newest first.
    public func feed(goalId: GoalID) async throws -> [FeedItem] {
        let path = feedPath(category: goalId.rawValue)
        let items = try await feedItems(path, from: createdAt, to: ActivityPager.newestEnd(now()))
        return mapEach(items, path.label("GET"), StarlingMapping.goalFeedItem)
            .sorted { $0.timestamp > $1.timestamp }
    }

    /// Starling has no savings rules.
    public func rules() async throws -> [SavingsRule] { [] }

    /// The holder is user 1; there is nobody else.
    public func user(id: Int) async throws -> User {
        guard id == StarlingMapping.holderId else {
            let label = "user \(id)"
            throw APIError(kind: .notFound, request: label, message: "\(label): not found")
        }
        return User(id: id, displayName: try await holderName() ?? primary.name ?? "You")
    }

    /// The account's feed (its default category) in the window; `oldest` is the account's opening.
    public func activities(from: Date, to: Date) async throws -> ActivityPage {
        let path = feedPath(category: primary.defaultCategory)
        let items = try await feedItems(path, from: from, to: to)
        let activities = mapEach(items, path.label("GET"), StarlingMapping.activity)
        return ActivityPage(oldest: createdAt, activities: activities.sorted { $0.timestamp > $1.timestamp })
    }

    /// The account's feed as payments that round up by seed 002's rule.
    public func transactions(from: Date, to: Date) async throws -> [Transaction] {
        let path = feedPath(category: primary.defaultCategory)
        let items = try await feedItems(path, from: from, to: to)
        return mapEach(items, path.label("GET"), StarlingMapping.transaction)
    }

    public func createGoal(name: String, target: Money?) async throws -> Goal {
        try await createGoal(name: name, target: target, photo: nil)
    }

    /// The photo goes as `base64EncodedPhoto`; the new goal shows it from `…/photo`.
    public func createGoal(name: String, target: Money?, photo: Data?) async throws -> Goal {
        let body = Starling.CreateGoalRequest(name: name, currency: accountCurrency.code, target: target.map(Starling.Amount.init),
                                              base64EncodedPhoto: photo?.base64EncodedString())
        let path = goalsPath()
        let answer = try await send("PUT", path, body: try encode(body), as: Starling.CreateGoalResponse.self)
        try check(success: answer.success, errors: answer.errors, label: path.label("PUT"))
        guard let uid = answer.savingsGoalUid, !uid.isEmpty else {
            throw APIError(kind: .malformed, request: path.label("PUT"),
                           message: MalformedPayload(resource: path.label("PUT"), reason: "savingsGoalUid: missing").description)
        }
        return Goal(id: GoalID(uid), name: name, ownerId: StarlingMapping.holderId,
                    imageURL: photo == nil ? nil : StarlingAPI.photoURL(goalUid: uid), target: target,
                    balance: .zero(accountCurrency))
    }

    /// `add-money` with `transferId` as the `transferUid`: the same id twice moves money once.
    /// Answers the goal as the server has it afterwards.
    public func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
        let path = Path("/api/v2/account/").id(primary.accountUid).then("/savings-goals/").id(goalId.rawValue)
            .then("/add-money/").id(transferId.uuidString.lowercased())
        let body = Starling.TopUpRequest(amount: Starling.Amount(amount))
        let answer = try await send("PUT", path, body: try encode(body), as: Starling.TransferResponse.self)
        try check(success: answer.success, errors: answer.errors, label: path.label("PUT"))
        // The money moved: a goal that cannot be read now does not undo it (nor say nothing moved).
        let goals: [Goal]
        do { goals = try await self.goals() } catch { throw APIError.afterSending(error, "the transfer") }
        guard let goal = goals.first(where: { $0.id == goalId }) else {
            let label = goalsPath().label("GET")
            throw APIError.afterSending(APIError(kind: .notFound, request: label, message: "\(label): the goal \(goalId) is gone"),
                                        "the transfer")
        }
        return goal
    }

    /// A goal's photo (`starling-photo:UID`): the base64 bytes of `…/photo`, decoded.
    public func imageData(at url: URL) async throws -> Data {
        let shown = "GET \(TextSanitizer.clean(url.absoluteString))"
        guard url.scheme?.lowercased() == StarlingAPI.photoScheme else {
            throw APIError(kind: .notFound, request: shown, message: "\(shown): Starling has no other pictures")
        }
        let uid = String(url.absoluteString.dropFirst(StarlingAPI.photoScheme.count + 1)).removingPercentEncoding ?? ""
        let path = goalsPath().then("/").id(uid).then("/photo")
        let label = path.label("GET")
        let photo = try await get(path, as: Starling.Photo.self)
        let text = photo.base64EncodedPhoto ?? ""
        guard !text.isEmpty else {
            throw APIError(kind: .notFound, request: label, message: "\(label): the goal has no photo")
        }
        guard text.utf8.count <= ImageFetch.maxBytes * 4 / 3 + 4,
              let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), !data.isEmpty else {
            throw APIError(kind: .malformed, request: label, message: "\(label): the photo is not base64 or is too large")
        }
        return data
    }

    // MARK: - Paths

    /// A path and its label (HTTPTransport's `RequestPath`: ids as "…" in the label).
    typealias Path = RequestPath

    private func accountPath(_ tail: String, under prefix: String) -> Path {
        Path(prefix + "/").id(primary.accountUid).then(tail)
    }

    private func goalsPath() -> Path {
        Path("/api/v2/account/").id(primary.accountUid).then("/savings-goals")
    }

    private func feedPath(category: String) -> Path {
        Path("/api/v2/feed/account/").id(primary.accountUid).then("/category/").id(category).then("/transactions-between")
    }

    // MARK: - Plumbing

    /// `2026-11-08T00:00:00.000Z`, the form Starling's queries take.
    public static func timestamp(_ date: Date) -> String { Timestamp.feedString(date) }

    private func feedItems(_ path: Path, from: Date, to: Date) async throws(APIError) -> [Starling.FeedItem] {
        let query = [URLQueryItem(name: "minTransactionTimestamp", value: StarlingAPI.timestamp(from)),
                     URLQueryItem(name: "maxTransactionTimestamp", value: StarlingAPI.timestamp(to))]
        return try await get(path, query: query, as: Starling.FeedItems.self).feedItems ?? []
    }

    /// The request URL (for tests).
    func url(for path: Path, query: [URLQueryItem] = []) -> URL {
        transport.url(for: path.text, query: query)
    }

    private func get<T: Decodable>(_ path: Path, query: [URLQueryItem] = [], as type: T.Type) async throws(APIError) -> T {
        try await send("GET", path, query: query, body: nil, as: type)
    }

    private func send<T: Decodable>(_ method: String, _ path: Path, query: [URLQueryItem] = [], body: Data?,
                                    as type: T.Type) async throws(APIError) -> T {
        try await StarlingAPI.fetch(transport, path.text, method: method, query: query, body: body, label: path.label(method),
                                    as: type, decoder: decoder)
    }

    private static func fetch<T: Decodable>(_ transport: HTTPTransport, _ path: String, method: String = "GET",
                                            query: [URLQueryItem] = [], body: Data? = nil, label: String, as type: T.Type,
                                            decoder: PayloadDecoder) async throws(APIError) -> T {
        let data = try await transport.send(method, path, query: query, body: body, label: label)
        do {
            return try decoder.decode(type, from: data, resource: label)
        } catch {
            throw APIError(kind: .malformed, request: label, message: error.description)
        }
    }

    /// Feed items that decoded but do not fit the model (an amount out of range, a bad currency
    /// code) are skipped and named in the status bar; the rest of the answer is shown.
    private func mapEach<Value>(_ items: [Starling.FeedItem], _ label: String,
                                _ transform: (Starling.FeedItem) throws(MalformedPayload) -> Value) -> [Value] {
        mapEach(items, label, name: { "id \($0.feedItemUid)" }, transform)
    }

    private func mapEach<Record, Value>(_ records: [Record], _ label: String, name: (Record) -> String,
                                        _ transform: (Record) throws(MalformedPayload) -> Value) -> [Value] {
        (decoder.skipped ?? SkippedRecords()).mapEach(records, resource: label, name: name, transform)
    }

    /// A 2xx answer that still says `"success": false` is a refusal, in the server's words.
    private func check(success: Bool?, errors: [Starling.ErrorDetail]?, label: String) throws(APIError) {
        guard success == false else { return }
        let said = Starling.ErrorBody(messages: (errors ?? []).compactMap(\.message)).message
        let message = said.map { ": " + TextSanitizer.clean(String($0.prefix(200))) } ?? ": refused"
        throw APIError(kind: .rejected, request: label, message: "\(label)\(message)")
    }

    private func encode<T: Encodable>(_ value: T) throws(APIError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            return try encoder.encode(value)
        } catch {
            throw APIError(kind: .transport, request: "encode", message: "cannot write the request body")
        }
    }
}
