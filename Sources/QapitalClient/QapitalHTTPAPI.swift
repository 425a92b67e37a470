import FeedModel
import Foundation
import HTTPTransport

/// The Qapital API of docs/api.md over HTTP(S).
public struct QapitalHTTPAPI: SavingsAPI {
    /// The source as the registry lists it: a server the user names, an optional token.
    public static let source = SourceDescription(
        name: "qapital", title: "Qapital API", signIn: .optionalToken, tokenVariables: ["QAPITAL_TOKEN"],
        abilities: [.createGoals, .moveMoney, .sharedGoals], documentation: "docs/api.md")

    public let transport: HTTPTransport
    public let decoder: PayloadDecoder
    /// The API's rule of each kind, looked up once (`GET /savingsrules`) for the first rule's transfer.
    private let ruleIds = Locked<[SavingsRule.Kind: Int]?>(nil)

    /// `timeout`: how long the server may stay silent; `deadline`: how long a request may take in all.
    public init(baseURL: URL, token: String? = nil, timeout: TimeInterval = 10, deadline: TimeInterval = 30,
                accountCurrency: Currency = .usd, allowInsecureHTTP: Bool = false, log: RequestLog? = nil) {
        self.transport = HTTPTransport(baseURL: baseURL, token: token, timeout: timeout, deadline: deadline,
                                       allowInsecureHTTP: allowInsecureHTTP, log: log)
        self.decoder = PayloadDecoder(accountCurrency: accountCurrency, skipped: SkippedRecords())
    }

    public var skippedRecords: SkippedRecords? { decoder.skipped }

    public var baseURL: URL { transport.baseURL }
    public var sourceName: String { transport.hostAndPort }

    public func goals() async throws -> [Goal] {
        try await get("/savingsgoals", as: GoalList.self).savingsGoals
    }

    public func feed(goalId: GoalID) async throws -> [FeedItem] {
        try await get("/savingsgoals/\(goalId.pathComponent)/feed", as: GoalFeed.self).feed
    }

    public func rules() async throws -> [SavingsRule] {
        try await get("/savingsrules", as: RuleList.self).savingsRules
    }

    public func user(id: Int) async throws -> User {
        try await get("/users/\(id)", as: UserResponse.self).user
    }

    public func activities(from: Date, to: Date) async throws -> ActivityPage {
        try await get("/activities", query: window(from, to), as: ActivityPage.self)
    }

    public func transactions(from: Date, to: Date) async throws -> [Transaction] {
        try await get("/transactions", query: window(from, to), as: TransactionList.self).transactions
    }

    public func createGoal(name: String, target: Money?) async throws -> Goal {
        try await createGoal(name: name, target: target, photo: nil)
    }

    /// The photo goes in the body as `base64EncodedPhoto` (docs/api.md).
    public func createGoal(name: String, target: Money?, photo: Data?) async throws -> Goal {
        var body = #"{"name":"# + jsonString(name)
        body += #","targetAmount":"# + (target?.jsonNumberString ?? "null")
        if let photo { body += #","base64EncodedPhoto":""# + photo.base64EncodedString() + "\"" }
        body += "}"
        return try await send("POST", "/savingsgoals", body: Data(body.utf8), as: Goal.self)
    }

    public func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
        // A savings rule's transfer names the API's rule of its kind, so its feed item carries it
        // (a failed look-up sends the transfer without it: the money matters more than the label).
        var rule = ""
        if let kind = attempt.serverKind, let id = await ruleId(of: kind) {
            rule = #","savingsRuleId":\#(id)"#
        }
        let body = #"{"transferId":"\#(transferId.uuidString)","amount":\#(amount.jsonNumberString)\#(rule)}"#
        return try await send("POST", "/savingsgoals/\(goalId.pathComponent)/transfers", body: Data(body.utf8), as: Goal.self)
    }

    public func imageData(at url: URL) async throws -> Data {
        try await ImageFetch.data(at: url, log: transport.log)
    }

    /// The id of the API's first rule of `kind`; the rules are asked for once, and asked again
    /// after a failed look-up.
    private func ruleId(of kind: SavingsRule.Kind) async -> Int? {
        if let known = ruleIds.withLock({ $0 }) { return known[kind] }
        guard let rules = try? await rules() else { return nil }
        var ids: [SavingsRule.Kind: Int] = [:]
        for rule in rules where ids[rule.kind] == nil { ids[rule.kind] = rule.id }
        ruleIds.withLock { $0 = ids }
        return ids[kind]
    }

    // MARK: - Plumbing

    private func window(_ from: Date, _ to: Date) -> [URLQueryItem] {
        [URLQueryItem(name: "from", value: Timestamp.queryString(from)),
         URLQueryItem(name: "to", value: Timestamp.queryString(to))]
    }

    private func jsonString(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The request URL (for tests: `+` goes out as `%2B`).
    func url(for path: String, query: [URLQueryItem] = []) -> URL {
        transport.url(for: path, query: query)
    }

    private func get<T: Decodable>(_ path: String, query: [URLQueryItem] = [], as type: T.Type) async throws -> T {
        try await send("GET", path, query: query, body: nil, as: type)
    }

    private func send<T: Decodable>(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data?,
                                    as type: T.Type) async throws -> T {
        let label = "\(method) \(path)"
        let data = try await transport.send(method, path, query: query, body: body, label: label)
        do {
            return try decoder.decode(type, from: data, resource: label)
        } catch {
            throw APIError(kind: .malformed, request: label, message: error.description)
        }
    }
}
