import DemoData
import DemoServer
import FeedModel
import Foundation
import UpClient

/// `serve --api up`: the demo dataset in Up's shapes and paths (JSON:API, docs/banks.md), a
/// `ServeHandler` under `/api/v1` (so the base URL is `http://HOST:PORT/api/v1`).
///
/// - Every request needs `Authorization: Bearer <token>` with the printed test token (401 with
///   Up's error envelope otherwise); `GET /util/ping` checks it.
/// - Accounts: one spending account (TRANSACTIONAL, JOINT: "2Up Spending") and a saver for each
///   active demo goal. Its transactions: the demo's card payments (the newest two days HELD,
///   the foreign ones paid in euros at a fixed rate, with `foreignAmount`), each with Up's own
///   round-up (to the next dollar; every seventh boosted by a dollar), and every saving into a
///   goal as a transfer to that saver; a saver's transactions are its transfers in.
/// - Lists are paged by `links.next` (absolute, with an opaque `page[after]`) at most `pageSize`
///   records a page, newest first; `filter[since]`/`filter[until]` must be RFC 3339.
/// - Every answer to the right token carries `X-RateLimit-Remaining`; after `rateLimit` requests
///   in an hour each is 429 with the envelope.
public actor UpDemoAPI: ServeHandler {
    /// The token `serve --api up` prints and requires (shaped like the docs' demo tokens).
    public static let testToken = "up:demo:qapitalTui7Qx2"
    public static let spendingId = "2a5e0000-0000-4000-8000-5a4c1e000001"
    public static let basePath = "/api/v1"
    public static let defaultPageSize = 10
    public static let defaultRateLimit = 1_000
    static let euroRate: (numerator: Int64, denominator: Int64) = (165, 100)   // 1 EUR = 1.65 AUD, fixed
    /// The demo's categories as Up's category ids (`GET /categories`).
    static let categories = ["eating_out": "restaurants-and-cafes", "groceries": "groceries", "transport": "taxis-and-share-cars",
                             "entertainment": "tv-and-music", "shopping": "technology", "personal_care": "health-and-medical"]

    private let backend: DemoBackend
    private let token: String
    private let pageSize: Int
    private let rateLimit: Int
    private let clock: @Sendable () -> Date
    private var hourStarted: Date?
    private var usedThisHour = 0
    /// Requests answered to the right token since start (for tests that count a session's requests).
    public private(set) var requestCount = 0

    public init(backend: DemoBackend, token: String = UpDemoAPI.testToken, pageSize: Int = UpDemoAPI.defaultPageSize,
                rateLimit: Int = UpDemoAPI.defaultRateLimit, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.backend = backend
        self.token = token
        self.pageSize = max(1, min(100, pageSize))
        self.rateLimit = max(0, rateLimit)
        self.clock = clock
    }

    /// `5a7e0000-0000-4000-8000-000000000004` for demo goal 4.
    public static func saverId(_ id: GoalID) -> String { DemoIDs.goalUid(id) }

    struct Failure: Error {
        let status: Int
        let title: String
        let detail: String
        var parameter: String?
    }

    public func handle(_ request: ServeRequest) async -> ServeResponse {
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer "),
              header.dropFirst("Bearer ".count) == token else {
            return UpDemoAPI.failure(Failure(status: 401, title: "Not Authorized", detail: "The request was not authenticated "
                                             + "because no valid credential was found in the Authorization header, or the "
                                             + "Authorization header was not present."))
        }
        requestCount += 1
        let now = clock()
        if let started = hourStarted, now.timeIntervalSince(started) < 3_600 {
            usedThisHour += 1
        } else {
            hourStarted = now
            usedThisHour = 1
        }
        let remaining = max(0, rateLimit - usedThisHour)
        var response: ServeResponse
        if usedThisHour > rateLimit {
            response = UpDemoAPI.failure(Failure(status: 429, title: "Too Many Requests",
                                                 detail: "You have made too many requests in a short period of time."))
        } else {
            do {
                response = .data(try await route(request), contentType: "application/json", status: 200)
            } catch let failure as Failure {
                response = UpDemoAPI.failure(failure)
            } catch {
                response = UpDemoAPI.failure(Failure(status: 500, title: "Internal Server Error", detail: "internal error"))
            }
        }
        response.headers.set("X-RateLimit-Remaining", String(remaining))
        return response
    }

    static func failure(_ failure: Failure) -> ServeResponse {
        let document = Up.ErrorDocument(errors: [.init(status: String(failure.status), title: failure.title, detail: failure.detail,
                                                       parameter: failure.parameter)])
        return .data(encode(document), contentType: "application/json", status: failure.status)
    }

    // MARK: - Routing

    private func route(_ request: ServeRequest) async throws -> Data {
        guard request.method.uppercased() == "GET" else {
            throw Failure(status: 405, title: "Method Not Allowed", detail: "this demo of Up's API is read-only (GET)")
        }
        guard request.path.hasPrefix(UpDemoAPI.basePath + "/") else { throw notFound(request.path) }
        let segments = request.path.dropFirst(UpDemoAPI.basePath.count).split(separator: "/")
            .map { String($0).removingPercentEncoding ?? String($0) }
        let query: [String: String]
        do {
            query = try DemoAPIHandler.queryValues(request.rawQuery)
        } catch {
            throw Failure(status: 400, title: "Invalid Request", detail: error.message)
        }
        let origin = "http://" + (request.headers["Host"] ?? "127.0.0.1")
        switch segments.count {
        case 2 where segments == ["util", "ping"]:
            return UpDemoAPI.encode(Up.Ping(id: "7feb7523-d65e-4b98-9eae-cd521b5005de", statusEmoji: "⚡️"))
        case 1 where segments[0] == "accounts":
            var accounts = await accounts()
            if let type = query["filter[accountType]"] {
                guard ["SAVER", "TRANSACTIONAL", "HOME_LOAN"].contains(type) else {
                    throw Failure(status: 400, title: "Invalid Filter", detail: "accountType must be SAVER, TRANSACTIONAL or HOME_LOAN",
                                  parameter: "filter[accountType]")
                }
                accounts = accounts.filter { $0.attributes.accountType == type }
            }
            return try page(accounts, query: query, link: origin + request.path)
        case 2 where segments[0] == "accounts":
            guard let account = await accounts().first(where: { $0.id == segments[1] }) else { throw notFound(request.path) }
            return UpDemoAPI.encode(Up.SingleDocument(data: account))
        case 3 where segments[0] == "accounts" && segments[2] == "transactions":
            let since = try date(query, "filter[since]")
            let until = try date(query, "filter[until]")
            let items = try await transactions(account: segments[1])
                .filter { item in
                    (since.map { item.attributes.createdAt >= $0 } ?? true) && (until.map { item.attributes.createdAt < $0 } ?? true)
                }
            return try page(items, query: query, link: origin + request.path)
        default:
            throw notFound(request.path)
        }
    }

    private func notFound(_ path: String) -> Failure {
        Failure(status: 404, title: "Not Found", detail: "no such resource: \(TextSanitizer.clean(String(path.prefix(120))))")
    }

    private func date(_ query: [String: String], _ name: String) throws -> Date? {
        guard let text = query[name] else { return nil }
        guard let date = Timestamp.parse(text) else {
            throw Failure(status: 400, title: "Invalid Filter",
                          detail: "not an RFC 3339 date-time: \"\(TextSanitizer.clean(String(text.prefix(40))))\"", parameter: name)
        }
        return date
    }

    /// One page of `records` from `page[after]`, with `links.next` when more remain: the same
    /// query, the cursor moved on (base64 of the next offset, opaque to the client).
    private func page<Resource: Codable & Sendable>(_ records: [Resource], query: [String: String], link: String) throws -> Data {
        var size = pageSize
        if let text = query["page[size]"] {
            guard let asked = Int(text), (1...100).contains(asked) else {
                throw Failure(status: 400, title: "Invalid Page Size", detail: "page[size] must be from 1 to 100", parameter: "page[size]")
            }
            size = min(size, asked)
        }
        var offset = 0
        if let cursor = query["page[after]"] {
            guard let data = Data(base64Encoded: cursor), let text = String(data: data, encoding: .utf8),
                  text.hasPrefix("offset:"), let value = Int(text.dropFirst("offset:".count)), value >= 0 else {
                throw Failure(status: 400, title: "Invalid Cursor", detail: "page[after] is not a cursor this server gave",
                              parameter: "page[after]")
            }
            offset = value
        }
        let slice = Array(records.dropFirst(offset).prefix(size))
        var next: String?
        if offset + size < records.count {
            var items = query.filter { $0.key != "page[after]" }
            items["page[after]"] = Data("offset:\(offset + size)".utf8).base64EncodedString()
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            next = link + "?" + items.sorted { $0.key < $1.key }.map { name, value in
                (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "="
                    + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
            }.joined(separator: "&")
        }
        return UpDemoAPI.encode(Up.ListDocument(data: slice, links: Up.Links(prev: nil, next: next)))
    }

    // MARK: - The data

    private func accounts() async -> [Up.AccountResource] {
        let dataset = await backend.dataset
        let currency = dataset.currency
        let opened = await createdAt()
        let spendingBalance = await spendingBalance()
        var accounts = [Up.AccountResource(id: UpDemoAPI.spendingId,
                                           attributes: .init(displayName: "2Up Spending", accountType: "TRANSACTIONAL",
                                                             ownershipType: "JOINT", balance: Up.MoneyObject(spendingBalance),
                                                             createdAt: opened))]
        for goal in dataset.goals where goal.status == .active {
            accounts.append(Up.AccountResource(id: UpDemoAPI.saverId(goal.id),
                                               attributes: .init(displayName: goal.name, accountType: "SAVER",
                                                                 ownershipType: "INDIVIDUAL",
                                                                 balance: Up.MoneyObject(Money(minorUnits: goal.balance.minorUnits,
                                                                                               currency: currency)),
                                                                 createdAt: opened)))
        }
        return accounts
    }

    /// When the demo account was opened (`DemoAccount.openedAt`).
    private func createdAt() async -> Date { await DemoAccount.openedAt(backend) }

    /// An opening A$1,000 plus everything the spending account's feed holds.
    private func spendingBalance() async -> Money {
        let currency = await backend.currency
        let items = await spendingTransactions()
        let sum = Money.sum(items.map(\.attributes.amount.valueInBaseUnits))
        return Money(minorUnits: Money.add(1_000 * currency.minorPerUnit, sum), currency: currency)
    }

    private func people() async -> (String, String) {
        let users = await backend.dataset.users
        return (users.first { $0.id == 1 }?.displayName ?? "Alex", users.first { $0.id == 2 }?.displayName ?? "Sam")
    }

    private func transactions(account id: String) async throws -> [Up.TransactionResource] {
        if id == UpDemoAPI.spendingId { return await spendingTransactions() }
        let dataset = await backend.dataset
        guard let goal = dataset.goals.first(where: { $0.status == .active && UpDemoAPI.saverId($0.id) == id }) else {
            throw notFound("/accounts/\(id)/transactions")
        }
        let currency = dataset.currency
        let (first, second) = await people()
        return (dataset.feeds[goal.id] ?? []).filter { !$0.amount.isZero }.map { saving in
            let amount = Money(minorUnits: saving.amount.minorUnits, currency: currency)
            return Up.TransactionResource(
                id: DemoIDs.uid(saving.id, prefix: "5v"),
                attributes: .init(status: "SETTLED", rawText: nil, description: amount.isNegative ? "Transfer to 2Up Spending" : "Transfer from 2Up Spending",
                                  message: saving.message.plainText, amount: Up.MoneyObject(amount), foreignAmount: nil, roundUp: nil,
                                  createdAt: saving.timestamp, settledAt: saving.timestamp,
                                  performingCustomer: Up.Customer(displayName: saving.userId == 1 ? first : second)),
                relationships: .init(account: Up.ToOne(Up.Identifier(type: "accounts", id: id)),
                                     transferAccount: Up.ToOne(Up.Identifier(type: "accounts", id: UpDemoAPI.spendingId))))
        }.sorted { $0.attributes.createdAt > $1.attributes.createdAt }
    }

    /// The demo's card payments and salary, plus every saving into a goal as a transfer out to
    /// its saver: one ledger, newest first.
    private func spendingTransactions() async -> [Up.TransactionResource] {
        let dataset = await backend.dataset
        let currency = dataset.currency
        let (first, second) = await people()
        let newest = dataset.transactions.first?.timestamp ?? dataset.now
        let heldAfter = newest.addingTimeInterval(-2 * 86_400)
        let spending = Up.ToOne(Up.Identifier(type: "accounts", id: UpDemoAPI.spendingId))
        var items: [Up.TransactionResource] = dataset.transactions.map { transaction in
            let hash = FNV1a.hash(transaction.id.utf8)
            var amount = transaction.amount
            var foreign: Up.MoneyObject?
            if amount.currency != currency {
                // Paid abroad: the account pays in its own currency at a fixed demo rate.
                let converted = (amount.minorUnits.magnitude * UInt64(UpDemoAPI.euroRate.numerator)
                                 + UInt64(UpDemoAPI.euroRate.denominator / 2)) / UInt64(UpDemoAPI.euroRate.denominator)
                foreign = Up.MoneyObject(amount)
                amount = Money(minorUnits: (amount.isNegative ? -1 : 1) * Int64(clamping: converted), currency: currency)
            }
            var roundUp: Up.RoundUpObject?
            if amount.isNegative, let made = RoundUp.of(amount, step: currency.minorPerUnit) {
                let boosted = hash % 7 == 0
                let total = made.minorUnits + (boosted ? currency.minorPerUnit : 0)
                if total > 0 {
                    roundUp = Up.RoundUpObject(amount: Up.MoneyObject(Money(minorUnits: -total, currency: currency)),
                                               boostPortion: boosted ? Up.MoneyObject(Money(minorUnits: -currency.minorPerUnit,
                                                                                            currency: currency)) : nil)
                }
            }
            let held = amount.isNegative && transaction.timestamp >= heldAfter
            var relationships = Up.TransactionRelationships(account: spending, transferAccount: Up.ToOne(nil))
            var attributes = Up.TransactionAttributes(status: held ? "HELD" : "SETTLED", rawText: transaction.counterparty.uppercased(),
                                                      description: transaction.counterparty, message: nil, amount: Up.MoneyObject(amount),
                                                      foreignAmount: foreign, roundUp: roundUp, createdAt: transaction.timestamp,
                                                      settledAt: held ? nil : transaction.timestamp,
                                                      performingCustomer: Up.Customer(displayName: hash % 3 == 0 ? second : first))
            if amount.isNegative { attributes.cardPurchaseMethod = Up.CardPurchaseMethod(method: "CONTACTLESS", cardNumberSuffix: "0001") }
            if let category = transaction.category.flatMap({ UpDemoAPI.categories[$0] }) {
                relationships.category = Up.ToOne(Up.Identifier(type: "categories", id: category))
            }
            return Up.TransactionResource(
                id: DemoIDs.uid(transaction.id, prefix: "7c"), attributes: attributes, relationships: relationships)
        }
        for goal in dataset.goals where goal.status == .active {
            for saving in dataset.feeds[goal.id] ?? [] where !saving.amount.isZero {
                let amount = Money(minorUnits: Money.negate(saving.amount.minorUnits), currency: currency)
                items.append(Up.TransactionResource(
                    id: DemoIDs.uid(saving.id, prefix: "5s"),
                    attributes: .init(status: "SETTLED", rawText: nil, description: "Transfer to \(goal.name)", message: nil,
                                      amount: Up.MoneyObject(amount), foreignAmount: nil, roundUp: nil, createdAt: saving.timestamp,
                                      settledAt: saving.timestamp,
                                      performingCustomer: Up.Customer(displayName: saving.userId == 1 ? first : second)),
                    relationships: .init(account: spending,
                                         transferAccount: Up.ToOne(Up.Identifier(type: "accounts", id: UpDemoAPI.saverId(goal.id))))))
            }
        }
        return items.sorted { $0.attributes.createdAt != $1.attributes.createdAt
            ? $0.attributes.createdAt > $1.attributes.createdAt : $0.id < $1.id }
    }

    // MARK: - JSON

    /// Dates as Up writes them: RFC 3339 with an offset (`+00:00` here).
    static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.queryString(date))
        }
        return (try? encoder.encode(value)) ?? Data(#"{"errors":[{"status":"500","title":"cannot encode"}]}"#.utf8)
    }
}
