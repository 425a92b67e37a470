import DemoData
import DemoServer
import FeedModel
import Foundation
import StarlingClient

/// `serve --api starling`: the demo dataset in Starling Bank's shapes and paths (docs/starling.md),
/// a `ServeHandler`: `DemoHTTPServer(handler: StarlingDemoAPI(backend: …))`.
///
/// - Every request needs `Authorization: Bearer <token>` with the fixed test token (401 otherwise).
/// - Feed windows need both timestamps, once each, as `2026-11-08T00:00:00.000Z` (400 otherwise).
/// - `add-money` is idempotent by `transferUid`: the same uid twice moves money once.
/// - The demo's goals get UIDs (`5a7e0000-0000-4000-8000-00000000000N` for goal N); its card
///   transactions are the account's feed (the newest two days pending, a few declined or
///   reversed, the foreign ones paid in euros); its goal feeds are the goals' own feeds.
public actor StarlingDemoAPI: ServeHandler {
    /// The token `serve --api starling` prints and requires.
    public static let testToken = "starling-demo-token-7Qx2"
    public static let accountUid = "6a1d0b5e-0000-4000-8000-5a4c1e000001"
    public static let defaultCategory = "c47e9a10-0000-4000-8000-5a4c1e000002"
    static let euroRate: (numerator: Int64, denominator: Int64) = (87, 100)   // 1 EUR = 0.87 GBP, fixed

    private let backend: DemoBackend
    private let token: String
    /// Transfers applied by `add-money`: uid → goal and amount; each also a feed item.
    private var transfers: [String: (goal: GoalID, amount: Money, at: Date)] = [:]

    /// The account's balance before anything in the demo's feed, in minor units (1,000 units by default).
    private let openingBalance: Int64?

    public init(backend: DemoBackend, token: String = StarlingDemoAPI.testToken, openingBalance: Int64? = nil) {
        self.backend = backend
        self.token = token
        self.openingBalance = openingBalance
    }

    struct Failure: Error {
        let status: Int
        let body: Data

        static func starling(_ status: Int, _ message: String) -> Failure {
            Failure(status: status, body: StarlingDemoAPI.encode(Starling.ErrorBody(messages: [message])))
        }
    }

    public func handle(_ request: ServeRequest) async -> ServeResponse {
        func json(_ body: Data, _ status: Int) -> ServeResponse { .data(body, contentType: ServeResponse.jsonType, status: status) }
        do {
            try authorize(request.headers["Authorization"])
            return json(try await route(request), 200)
        } catch let failure as Failure {
            return json(failure.body, failure.status)
        } catch let error as APIError {
            let status = error.status ?? (error.kind == .notFound ? 404 : 500)
            var message = error.message
            if let range = message.range(of: ": HTTP \(status): ") { message = String(message[range.upperBound...]) }
            return json(StarlingDemoAPI.encode(Starling.ErrorBody(messages: [message])), status)
        } catch {
            return json(StarlingDemoAPI.encode(Starling.ErrorBody(messages: ["internal error"])), 500)
        }
    }

    private func authorize(_ header: String?) throws {
        guard let header, header.hasPrefix("Bearer "), header.dropFirst("Bearer ".count) == token else {
            struct OAuthError: Encodable {
                let error = "invalid_token"
                let error_description = "No access token, or not the one this server printed at start"
            }
            throw Failure(status: 401, body: StarlingDemoAPI.encode(OAuthError()))
        }
    }

    // MARK: - Routing

    private func route(_ request: ServeRequest) async throws -> Data {
        let segments = request.path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        guard segments.count >= 3, segments[0] == "api", segments[1] == "v2" else { throw notFound(request.path) }
        let rest = Array(segments.dropFirst(2))
        let method = request.method.uppercased()
        switch rest.count {
        case 1 where rest[0] == "accounts":
            try allow(["GET"], method)
            return StarlingDemoAPI.encode(Starling.AccountList(accounts: [await accountItem()]))
        case 3 where rest[0] == "accounts" && rest[2] == "balance":
            try allow(["GET"], method)
            try checkAccount(rest[1])
            return StarlingDemoAPI.encode(try await balance())
        case 3 where rest[0] == "accounts" && rest[2] == "identifiers":
            try allow(["GET"], method)
            try checkAccount(rest[1])
            return StarlingDemoAPI.encode(Starling.Identifiers(accountIdentifier: "12345678", bankIdentifier: "608371",
                                                               iban: "GB33SRLG60837112345678", bic: "SRLGGB2L"))
        case 2 where rest[0] == "account-holder" && rest[1] == "name":
            try allow(["GET"], method)
            return StarlingDemoAPI.encode(Starling.HolderName(accountHolderName: await holderName()))
        case 3 where rest[0] == "account" && rest[2] == "savings-goals":
            try checkAccount(rest[1])
            if method == "GET" { return StarlingDemoAPI.encode(Starling.SavingsGoalList(savingsGoalList: await goals())) }
            try allow(["GET", "PUT"], method)
            return StarlingDemoAPI.encode(try await createGoal(request.body))
        case 5 where rest[0] == "account" && rest[2] == "savings-goals" && rest[4] == "photo":
            try allow(["GET"], method)
            try checkAccount(rest[1])
            return StarlingDemoAPI.encode(try await photo(goalUid: rest[3]))
        case 6 where rest[0] == "account" && rest[2] == "savings-goals" && rest[4] == "add-money":
            try allow(["PUT"], method)
            try checkAccount(rest[1])
            return StarlingDemoAPI.encode(try await addMoney(goalUid: rest[3], transferUid: rest[5], body: request.body))
        case 6 where rest[0] == "feed" && rest[1] == "account" && rest[3] == "category" && rest[5] == "transactions-between":
            try allow(["GET"], method)
            try checkAccount(rest[2])
            let (from, to) = try StarlingDemoAPI.window(request.rawQuery)
            return StarlingDemoAPI.encode(Starling.FeedItems(feedItems: try await feed(category: rest[4], from: from, to: to)))
        default:
            throw notFound(request.path)
        }
    }

    private func notFound(_ path: String) -> Failure {
        .starling(404, "no such endpoint: \(TextSanitizer.clean(String(path.prefix(120))))")
    }

    private func allow(_ methods: [String], _ method: String) throws {
        guard methods.contains(method) else {
            throw Failure.starling(405, "\(TextSanitizer.clean(String(method.prefix(10)))) not allowed here (use \(methods.joined(separator: " or ")))")
        }
    }

    private func checkAccount(_ uid: String) throws {
        guard uid == StarlingDemoAPI.accountUid else {
            throw Failure.starling(403, "There was an error authorising the request, you are forbidden from this resource.")
        }
    }

    /// Both timestamps, once each, exactly `yyyy-MM-ddTHH:mm:ss.SSSZ`, min ≤ max.
    static func window(_ rawQuery: String) throws -> (from: Date, to: Date) {
        let values: [String: String]
        do {
            values = try DemoAPIHandler.queryValues(rawQuery)
        } catch {
            throw Failure.starling(400, error.message)
        }
        func date(_ name: String) throws -> Date {
            guard let text = values[name] else {
                throw Failure.starling(400, "\(name) is missing (expected e.g. \(name)=2026-11-08T00%3A00%3A00.000Z)")
            }
            guard strictTimestamp(text), let date = Timestamp.parse(text) else {
                throw Failure.starling(400, "\(name): not a timestamp: \"\(TextSanitizer.clean(String(text.prefix(40))))\" (expected e.g. 2026-11-08T00:00:00.000Z, UTC with milliseconds)")
            }
            return date
        }
        let from = try date("minTransactionTimestamp")
        let to = try date("maxTransactionTimestamp")
        guard from <= to else { throw Failure.starling(400, "minTransactionTimestamp is after maxTransactionTimestamp") }
        return (from, to)
    }

    /// `2026-11-08T00:00:00.000Z`: 24 characters, digits where digits go, milliseconds and a Z.
    static func strictTimestamp(_ text: String) -> Bool {
        let pattern = Array("dddd-dd-ddTdd:dd:dd.dddZ")
        let characters = Array(text)
        guard characters.count == pattern.count else { return false }
        return zip(characters, pattern).allSatisfy { character, expected in
            expected == "d" ? (character.isASCII && character.isNumber) : character == expected
        }
    }

    // MARK: - The account

    private func accountItem() async -> Starling.AccountItem {
        Starling.AccountItem(accountUid: StarlingDemoAPI.accountUid, accountType: "PRIMARY",
                             defaultCategory: StarlingDemoAPI.defaultCategory, currency: await backend.currency.code,
                             createdAt: await createdAt(), name: "Personal")
    }

    /// When the demo account was opened (`DemoAccount.openedAt`).
    private func createdAt() async -> Date { await DemoAccount.openedAt(backend) }

    private func holderName() async -> String {
        let dataset = await backend.dataset
        return dataset.users.first { $0.id == 1 }?.displayName ?? "Demo Holder"
    }

    /// An opening balance plus everything in the feed that was not declined or reversed.
    private func balance() async throws -> Starling.Balance {
        let currency = await backend.currency
        let items = try await accountFeed(from: .distantPast, to: .distantFuture)
        var cleared: Int64 = openingBalance ?? 1_000 * currency.minorPerUnit
        var pending: Int64 = 0
        for item in items where item.status == "SETTLED" || item.status == "PENDING" {
            let signed = item.direction == "OUT" ? Money.negate(item.amount.minorUnits) : item.amount.minorUnits
            if item.status == "PENDING" { pending = Money.add(pending, signed) } else { cleared = Money.add(cleared, signed) }
        }
        return Starling.Balance(cleared: Starling.Amount(currency: currency.code, minorUnits: cleared),
                                effective: Starling.Amount(currency: currency.code, minorUnits: Money.add(cleared, pending)),
                                pending: Starling.Amount(currency: currency.code, minorUnits: pending))
    }

    // MARK: - Goals

    private func goals() async -> [Starling.SavingsGoal] {
        await backend.goals().map(StarlingDemoAPI.savingsGoal)
    }

    static func savingsGoal(_ goal: Goal) -> Starling.SavingsGoal {
        let percentage = goal.target.flatMap { target in
            target.minorUnits > 0 ? (Double(goal.balance.minorUnits) * 100 / Double(target.minorUnits)).rounded(.towardZero) : nil
        }
        return Starling.SavingsGoal(savingsGoalUid: DemoIDs.goalUid(goal.id), name: goal.name, target: goal.target.map(Starling.Amount.init),
                                    totalSaved: Starling.Amount(goal.balance), savedPercentage: percentage,
                                    state: goal.status == .active ? "ACTIVE" : "ARCHIVED")
    }

    private func goal(uid: String) async throws -> Goal {
        guard let id = DemoIDs.goalId(fromUid: uid), let goal = await backend.goals().first(where: { $0.id == id }) else {
            throw Failure.starling(404, "no such savings goal: \(TextSanitizer.clean(String(uid.prefix(40))))")
        }
        return goal
    }

    private func photo(goalUid: String) async throws -> Starling.Photo {
        let goal = try await goal(uid: goalUid)
        if let url = goal.imageURL, let photo = await backend.photo(atPath: url.path) {
            return Starling.Photo(base64EncodedPhoto: photo.base64EncodedString())
        }
        guard let url = goal.imageURL, url.scheme == DemoImages.scheme, let png = DemoImages.png(atPath: url.path) else {
            return Starling.Photo(base64EncodedPhoto: nil)
        }
        return Starling.Photo(base64EncodedPhoto: png.base64EncodedString())
    }

    private func createGoal(_ body: Data) async throws -> Starling.CreateGoalResponse {
        let request = try StarlingDemoAPI.decode(Starling.CreateGoalRequest.self, body)
        let currency = await backend.currency
        guard request.currency.uppercased() == currency.code else {
            throw Failure.starling(400, "currency: the account's currency is \(currency.code)")
        }
        let target = try request.target.map { amount in try StarlingDemoAPI.money(amount, currency: currency, field: "target") }
        var photo: Data?
        if let text = request.base64EncodedPhoto, !text.isEmpty {
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), !data.isEmpty else {
                throw Failure.starling(400, "base64EncodedPhoto: not base64")
            }
            photo = data
        }
        let goal = try await backend.createGoal(name: request.name, target: target, photo: photo)
        return Starling.CreateGoalResponse(savingsGoalUid: DemoIDs.goalUid(goal.id))
    }

    private func addMoney(goalUid: String, transferUid: String, body: Data) async throws -> Starling.TransferResponse {
        guard let transferId = UUID(uuidString: transferUid) else {
            throw Failure.starling(400, "transferUid: not a UUID: \"\(TextSanitizer.clean(String(transferUid.prefix(40))))\"")
        }
        let request = try StarlingDemoAPI.decode(Starling.TopUpRequest.self, body)
        let goal = try await goal(uid: goalUid)
        let amount = try StarlingDemoAPI.money(request.amount, currency: await backend.currency, field: "amount")
        _ = try await backend.transfer(goalId: goal.id, transferId: transferId, amount: amount)
        let key = transferId.uuidString.lowercased()
        if transfers[key] == nil { transfers[key] = (goal.id, amount, Date()) }
        return Starling.TransferResponse(transferUid: key)
    }

    private static func money(_ amount: Starling.Amount, currency: Currency, field: String) throws -> Money {
        guard amount.currency.uppercased() == currency.code else {
            throw Failure.starling(400, "\(field): the account's currency is \(currency.code)")
        }
        guard amount.minorUnits > 0 else { throw Failure.starling(400, "\(field): must be more than zero") }
        return Money(minorUnits: amount.minorUnits, currency: currency)
    }

    // MARK: - Feeds

    private func feed(category: String, from: Date, to: Date) async throws -> [Starling.FeedItem] {
        if category == StarlingDemoAPI.defaultCategory { return try await accountFeed(from: from, to: to) }
        let goal = try await goal(uid: category)
        let currency = await backend.currency
        return try await backend.feed(goalId: goal.id)
            .filter { $0.timestamp >= from && $0.timestamp < to }
            .map { item in
                Starling.FeedItem(feedItemUid: DemoIDs.uid(item.id.isEmpty ? "\(item.timestamp)" : item.id, prefix: "fe"),
                                  categoryUid: category, amount: Starling.Amount(currency: currency.code, minorUnits: item.amount.minorUnits.magnitude.int64),
                                  sourceAmount: nil, direction: item.amount.isNegative ? "OUT" : "IN", transactionTime: item.timestamp,
                                  source: "INTERNAL_TRANSFER", status: "SETTLED", counterPartyType: "CATEGORY",
                                  counterPartyName: "Personal", reference: item.message.plainText, spendingCategory: "SAVING")
            }
    }

    /// The demo's card transactions, plus the transfers into goals, newest first.
    private func accountFeed(from: Date, to: Date) async throws -> [Starling.FeedItem] {
        let dataset = await backend.dataset
        let currency = dataset.currency
        let newest = dataset.transactions.first?.timestamp ?? dataset.now
        var items = dataset.transactions.filter { $0.timestamp >= from && $0.timestamp < to }.map { transaction in
            StarlingDemoAPI.feedItem(transaction, currency: currency, pendingAfter: newest.addingTimeInterval(-2 * 86_400))
        }
        // Every saving into a goal left the account: one ledger, as a bank keeps it (the round-ups
        // saved here among them, under their transfer uid).
        for goal in dataset.goals {
            for saving in dataset.feeds[goal.id] ?? [] where saving.timestamp >= from && saving.timestamp < to && saving.amount.minorUnits > 0 {
                let transfer = transfers.first { $0.key == saving.id }
                let uid = transfer?.key ?? DemoIDs.uid(saving.id, prefix: "f7")
                let amount = Starling.Amount(currency: currency.code, minorUnits: saving.amount.minorUnits)
                var item = Starling.FeedItem(feedItemUid: uid, categoryUid: StarlingDemoAPI.defaultCategory,
                                             amount: amount, sourceAmount: amount, direction: "OUT", transactionTime: saving.timestamp,
                                             source: "INTERNAL_TRANSFER", status: "SETTLED", counterPartyType: "CATEGORY",
                                             counterPartyName: goal.name, reference: transfer == nil ? "Saving" : "Round-ups",
                                             spendingCategory: "SAVING")
                // As Starling does: the savings goal the money went to, by uid.
                item.counterPartyUid = DemoIDs.goalUid(goal.id)
                items.append(item)
            }
        }
        return items.sorted { $0.transactionTime > $1.transactionTime }
    }

    /// A demo transaction as Starling writes it; the status follows from its id, so it is the same every time.
    static func feedItem(_ transaction: Transaction, currency: Currency, pendingAfter: Date) -> Starling.FeedItem {
        let out = transaction.amount.isNegative
        let paid = transaction.amount.magnitude
        var amount = Starling.Amount(paid)
        if paid.currency != currency {
            // Paid abroad: the account pays in its own currency at a fixed demo rate.
            let converted = (paid.minorUnits * euroRate.numerator + euroRate.denominator / 2) / euroRate.denominator
            amount = Starling.Amount(currency: currency.code, minorUnits: converted)
        }
        let hash = FNV1a.hash(transaction.id.utf8)
        let status: String = if !out || transaction.timestamp < pendingAfter {
            out && hash % 13 == 0 ? "DECLINED" : out && hash % 13 == 1 ? "REVERSED" : "SETTLED"
        } else {
            "PENDING"
        }
        return Starling.FeedItem(feedItemUid: DemoIDs.uid(transaction.id, prefix: "fd"), categoryUid: defaultCategory, amount: amount,
                                 sourceAmount: Starling.Amount(paid), direction: out ? "OUT" : "IN",
                                 transactionTime: transaction.timestamp, source: out ? "MASTER_CARD" : "FASTER_PAYMENTS_IN",
                                 status: status, counterPartyType: out ? "MERCHANT" : "SENDER",
                                 counterPartyName: transaction.counterparty, reference: out ? nil : "SALARY",
                                 spendingCategory: (transaction.category ?? (out ? "shopping" : "income")).uppercased())
    }


    // MARK: - JSON

    static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.feedString(date))
        }
        return (try? encoder.encode(value)) ?? Data(#"{"success":false,"errors":[{"message":"cannot encode"}]}"#.utf8)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ body: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch let DecodingError.keyNotFound(key, _) {
            throw Failure.starling(400, "\(key.stringValue): missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw Failure.starling(400, "\(field.isEmpty ? "the body" : field): wrong type")
        } catch {
            throw Failure.starling(400, "the body is not JSON")
        }
    }
}

private extension UInt64 {
    var int64: Int64 { Int64(clamping: self) }
}
