import BunqClient
import DemoData
import DemoServer
import FeedModel
import Foundation

/// `serve --api bunq`: the demo dataset in bunq's shapes under `/v1` (docs/banks.md, "bunq"):
/// a real RSA handshake (a server key pair made at start), client signatures verified on the
/// session and payment calls (466 when missing, 401 when wrong), every answer signed, sessions
/// that expire, bunq's classic rate limits, and faults by name:
/// - `lose-payment-answer`: the first payment is applied, and its answer is lost (HTTP 500);
/// - `bad-signature`: answers to `GET …/monetary-account` carry a signature that does not verify.
public actor BunqDemoAPI: ServeHandler {
    /// The printed test key (a `sandbox_` key, as bunq's sandbox gives).
    public static let testKey = "sandbox_0d3m0qapitaltui0000000000000000000000000000000000000000000"
    public static let userId = 4242
    public static let mainAccountId = 101
    public static let jointAccountId = 150
    public static let cancelledSavingsId = 299
    public static let faultNames = ["lose-payment-answer", "bad-signature"]

    public struct Options: Sendable {
        public var sessionTimeout: Int = 3600
        public var rateLimits = true
        public var losePaymentAnswer = false
        public var badSignature = false
        public init(sessionTimeout: Int = 3600, rateLimits: Bool = true, losePaymentAnswer: Bool = false, badSignature: Bool = false) {
            self.sessionTimeout = sessionTimeout
            self.rateLimits = rateLimits
            self.losePaymentAnswer = losePaymentAnswer
            self.badSignature = badSignature
        }
    }

    private struct Installation { var clientKey: BunqPublicKey; var device: Int? }
    private struct Session { var installation: String; var expiry: Date }
    private struct Account {
        var kind: String
        var id: Int
        var description: String
        var iban: String
        var status: String
        var goal: Money?
        var color: String?
        var coOwners: [String]
        var opening: Int64
        var created: Date
    }

    private let backend: DemoBackend
    private var options: Options
    private let clock: @Sendable () -> Date
    private let uptime: @Sendable () -> TimeInterval
    private let serverKey: BunqKeyPair
    private var installations: [String: Installation] = [:]
    private var sessions: [String: Session] = [:]
    private var accounts: [Account] = []
    /// Every account's payments, oldest first (ids rise with time).
    private var payments: [Int: [Bunq.Payment]] = [:]
    private var nextId = 10_000
    private var built = false
    private var sent: [String: [Double]] = [:]
    private var holder = "Demo Holder"
    /// Payments made through the API (tests).
    public private(set) var paymentsMade = 0
    /// Sessions opened (tests).
    public private(set) var sessionsOpened = 0

    /// `uptime`: the seconds the rate limits count in (a test freezes them, so its requests fall
    /// in one window however slowly a loaded machine sends them).
    public init(backend: DemoBackend, options: Options = Options(), clock: @escaping @Sendable () -> Date = { Date() },
                uptime: @escaping @Sendable () -> TimeInterval = { ProcessInfo.processInfo.systemUptime }) throws {
        self.uptime = uptime
        self.backend = backend
        self.options = options
        self.clock = clock
        serverKey = try BunqKeyPair.generate()
    }

    /// `count` more small payments into savings account `account`, a minute apart before now (tests).
    public func addSavings(account: Int, count: Int) async {
        await build()
        for index in 0..<count {
            _ = add(account: account, amount: Money(minorUnits: 100, currency: .eur), counterparty: holder, counterpartyIBAN: nil,
                    description: "Saving \(index)", type: "BUNQ", subType: "PAYMENT", at: clock().addingTimeInterval(-Double(count - index) * 60))
        }
    }

    /// Arms the lost-answer fault again (tests).
    public func loseNextPaymentAnswer() { options.losePaymentAnswer = true }
    /// Expires every session now (tests: the next request is refused, the client opens a new one).
    public func expireSessions() { for key in sessions.keys { sessions[key]?.expiry = .distantPast } }
    /// The payments of the main account whose description contains `text` (tests).
    public func mainPayments(containing text: String) async -> [Bunq.Payment] {
        await build()
        return (payments[BunqDemoAPI.mainAccountId] ?? []).filter { text.isEmpty || ($0.description ?? "").contains(text) }
    }

    struct Failure: Error {
        let status: Int
        let text: String
    }

    public func handle(_ request: ServeRequest) async -> ServeResponse {
        await build()
        do {
            var path = request.path
            guard path.hasPrefix("/v1/") else { throw Failure(status: 404, text: "Route not found.") }
            path.removeFirst(3)
            try limit(request.method, path)
            let (body, wrongSignature) = try await route(request, path: path)
            return signed(body, status: 200, wrong: wrongSignature)
        } catch let failure as Failure {
            let body = BunqDemoAPI.encode(Bunq.ErrorBody(failure.text))
            return failure.status == 500 ? ServeResponse.data(Data(), contentType: ServeResponse.jsonType, status: 500)
                : signed(body, status: failure.status, wrong: false)
        } catch {
            return signed(BunqDemoAPI.encode(Bunq.ErrorBody("Internal error.")), status: 500, wrong: false)
        }
    }

    private func signed(_ body: Data, status: Int, wrong: Bool) -> ServeResponse {
        var response = ServeResponse.data(body, contentType: ServeResponse.jsonType, status: status)
        let signature = (try? serverKey.sign(wrong ? body + Data(" ".utf8) : body)) ?? ""
        response.headers.set("X-Bunq-Server-Signature", signature)
        response.headers.set("X-Bunq-Client-Response-Id", UUID().uuidString.lowercased())
        return response
    }

    /// bunq's classic figures per endpoint: GET 3, POST 5, PUT 2 per 3 s; session-server 1 per 30 s.
    private func limit(_ method: String, _ path: String) throws {
        guard options.rateLimits else { return }
        let limit = BunqPacer.limit(method: method, path: path)
        let key = method.uppercased() + " " + BunqPacer.endpoint(path)
        let now = uptime()
        var times = sent[key, default: []].filter { $0 > now - limit.seconds }
        guard times.count < limit.count else {
            throw Failure(status: 429, text: "Too many requests. You can do a maximum of \(limit.count) calls per \(Int(limit.seconds)) seconds to this endpoint.")
        }
        times.append(now)
        sent[key] = times
    }

    // MARK: - Routing

    private func route(_ request: ServeRequest, path: String) async throws -> (Data, Bool) {
        let method = request.method.uppercased()
        let segments = path.split(separator: "/").map(String.init)
        let headers = request.headers
        for required in ["Cache-Control", "User-Agent", "X-Bunq-Client-Request-Id", "X-Bunq-Geolocation"] where headers[required] == nil {
            throw Failure(status: 400, text: "The header \(required) is missing.")
        }
        switch segments {
        case ["installation"]:
            try allow("POST", method)
            return (try install(request.body), false)
        case ["device-server"]:
            try allow("POST", method)
            let installation = try installationToken(headers)
            guard try field(request.body, "secret") == BunqDemoAPI.testKey else { throw Failure(status: 400, text: "API key not valid.") }
            let id = 500 + installations.count
            installations[installation]?.device = id
            return (BunqDemoAPI.encode(Bunq.Envelope(response: [.id(Bunq.Id(id: id))])), false)
        case ["session-server"]:
            try allow("POST", method)
            let installation = try installationToken(headers)
            try verify(request, installation: installation)
            guard installations[installation]?.device != nil else { throw Failure(status: 400, text: "No device registered.") }
            guard try field(request.body, "secret") == BunqDemoAPI.testKey else { throw Failure(status: 401, text: "API key not valid.") }
            let token = "session_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            sessions[token] = Session(installation: installation, expiry: clock().addingTimeInterval(Double(options.sessionTimeout)))
            sessionsOpened += 1
            let user = Bunq.User(id: BunqDemoAPI.userId, displayName: holder, publicNickName: holder.split(separator: " ").first.map(String.init),
                                 sessionTimeout: options.sessionTimeout)
            return (BunqDemoAPI.encode(Bunq.Envelope(response: [.id(Bunq.Id(id: sessions.count)), .token(Bunq.Token(id: sessions.count, token: token)),
                                                                .user(kind: "UserPerson", user)])), false)
        default:
            break
        }
        let session = try sessionFor(headers)
        guard segments.count >= 2, segments[0] == "user", segments[1] == String(BunqDemoAPI.userId) else {
            throw Failure(status: 404, text: "Route not found.")
        }
        let query = (try? DemoAPIHandler.queryValues(request.rawQuery)) ?? [:]
        switch Array(segments.dropFirst(2)) {
        case ["monetary-account"], ["monetary-account-bank"], ["monetary-account-savings"]:
            if method == "POST", segments[2] == "monetary-account-savings" { return (try createSavings(request.body), false) }
            try allow("GET", method)
            let kinds: Set<String> = segments[2] == "monetary-account" ? ["MonetaryAccountBank", "MonetaryAccountSavings", "MonetaryAccountJoint"]
                : segments[2] == "monetary-account-bank" ? ["MonetaryAccountBank"] : ["MonetaryAccountSavings"]
            let list = accounts.filter { kinds.contains($0.kind) }.map { Bunq.Item.account(monetary($0)) }
            return (BunqDemoAPI.encode(Bunq.Envelope(response: list)), options.badSignature)
        case let rest where rest.count == 3 && rest[0] == "monetary-account" && rest[2] == "payment":
            guard let account = Int(rest[1]), payments[account] != nil else { throw Failure(status: 404, text: "Monetary account not found.") }
            if method == "POST" {
                try verify(request, installation: session.installation)
                return (try await pay(from: account, body: request.body), false)
            }
            try allow("GET", method)
            return (try list(account: account, query: query, path: path), false)
        case let rest where rest.count == 4 && rest[0] == "monetary-account" && rest[2] == "payment":
            try allow("GET", method)
            guard let account = Int(rest[1]), let id = Int(rest[3]), let payment = payments[account]?.first(where: { $0.id == id }) else {
                throw Failure(status: 404, text: "Payment not found.")
            }
            return (BunqDemoAPI.encode(Bunq.Envelope(response: [.payment(payment)])), false)
        default:
            throw Failure(status: 404, text: "Route not found.")
        }
    }

    private func allow(_ wanted: String, _ method: String) throws {
        guard wanted == method else { throw Failure(status: 405, text: "Method not allowed.") }
    }

    private func field(_ body: Data, _ name: String) throws -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw Failure(status: 400, text: "The body is not JSON.")
        }
        return object[name] as? String
    }

    private func install(_ body: Data) throws -> Data {
        guard let pem = try field(body, "client_public_key"), let key = try? BunqPublicKey(pem: pem) else {
            throw Failure(status: 400, text: "client_public_key is not a 2048-bit RSA public key in PEM.")
        }
        let token = "installation_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        installations[token] = Installation(clientKey: key, device: nil)
        return BunqDemoAPI.encode(Bunq.Envelope(response: [.id(Bunq.Id(id: installations.count)), .token(Bunq.Token(id: installations.count, token: token)),
                                                           .serverPublicKey(Bunq.ServerPublicKey(serverPublicKey: serverKey.publicKeyPEM))]))
    }

    private func installationToken(_ headers: ServeHeaders) throws -> String {
        guard let token = headers["X-Bunq-Client-Authentication"], installations[token] != nil else {
            throw Failure(status: 401, text: "Insufficient authorisation.")
        }
        return token
    }

    private func sessionFor(_ headers: ServeHeaders) throws -> Session {
        guard let token = headers["X-Bunq-Client-Authentication"], let session = sessions[token], session.expiry > clock() else {
            throw Failure(status: 401, text: "Insufficient authorisation.")
        }
        return session
    }

    /// 466 without a signature, 401 with one that does not verify with the installation's client key.
    private func verify(_ request: ServeRequest, installation: String) throws {
        guard let signature = request.headers["X-Bunq-Client-Signature"] else {
            throw Failure(status: 466, text: "REQUEST SIGNATURE REQUIRED")
        }
        guard let key = installations[installation]?.clientKey, key.verifies(signature, body: request.body) else {
            throw Failure(status: 401, text: "The request signature is not valid.")
        }
    }

    // MARK: - Accounts and payments

    private func monetary(_ account: Account) -> Bunq.MonetaryAccount {
        let currency = "EUR"
        let balance = Money.sum([account.opening] + (payments[account.id] ?? []).compactMap { $0.amount.money()?.minorUnits })
        let amount = Bunq.Amount(value: Bunq.Amount.text(Money(minorUnits: balance, currency: .eur)), currency: currency)
        var result = Bunq.MonetaryAccount(kind: account.kind, id: account.id, created: Bunq.timeText(account.created), currency: currency,
                                          description: account.description, balance: amount,
                                          alias: [Bunq.Pointer(type: "IBAN", value: account.iban, name: holder)], status: account.status,
                                          setting: Bunq.Setting(color: account.color),
                                          allCoOwner: account.coOwners.isEmpty ? nil : ([holder] + account.coOwners).map {
                                              Bunq.CoOwner(alias: .init(displayName: $0), status: "ACCEPTED") })
        if account.kind == "MonetaryAccountSavings" {
            result.savingsGoal = account.goal.map { Bunq.Amount(value: Bunq.Amount.text($0), currency: currency) }
            if let goal = account.goal, goal.minorUnits > 0 { result.savingsGoalProgress = Double(balance) / Double(goal.minorUnits) }
        }
        return result
    }

    private func list(account: Int, query: [String: String], path: String) throws -> Data {
        let count = Int(query["count"] ?? "10") ?? 10
        guard (1...200).contains(count) else { throw Failure(status: 400, text: "count must be from 1 to 200.") }
        var newest = (payments[account] ?? []).reversed().map { $0 }
        if let text = query["older_id"] {
            guard let older = Int(text) else { throw Failure(status: 400, text: "older_id is not a number.") }
            newest = newest.filter { $0.id < older }
        }
        let page = Array(newest.prefix(count))
        let more = newest.count > count
        let base = "/v1" + path
        let pagination = Bunq.Pagination(futureUrl: nil, newerUrl: page.first.map { "\(base)?count=\(count)&newer_id=\($0.id)" },
                                         olderUrl: more ? page.last.map { "\(base)?count=\(count)&older_id=\($0.id)" } : nil)
        return BunqDemoAPI.encode(Bunq.Envelope(response: page.map(Bunq.Item.payment), pagination: pagination))
    }

    private func pay(from account: Int, body: Data) async throws -> Data {
        struct Body: Decodable {
            let amount: Bunq.Amount
            let counterpartyAlias: Bunq.Pointer
            let description: String?
            enum CodingKeys: String, CodingKey { case amount, description, counterpartyAlias = "counterparty_alias" }
        }
        guard let parsed = try? JSONDecoder().decode(Body.self, from: body) else { throw Failure(status: 400, text: "The payment body is not valid.") }
        guard parsed.amount.currency == "EUR", let money = Bunq.Amount.parse(parsed.amount.value, currency: .eur), money.minorUnits > 0 else {
            throw Failure(status: 400, text: "The amount is not valid.")
        }
        guard parsed.counterpartyAlias.type == "IBAN", let iban = parsed.counterpartyAlias.value else {
            throw Failure(status: 400, text: "The counterparty is not an IBAN.")
        }
        guard (parsed.description ?? "").count <= 9_000 else { throw Failure(status: 400, text: "The description is too long.") }
        guard let source = accounts.first(where: { $0.id == account }), source.status == "ACTIVE" else {
            throw Failure(status: 400, text: "The account cannot pay.")
        }
        let balance = Money.sum([source.opening] + (payments[account] ?? []).compactMap { $0.amount.money()?.minorUnits })
        guard balance >= money.minorUnits else { throw Failure(status: 490, text: "Insufficient balance.") }
        let target = accounts.first { BunqMapping.normalized(iban: $0.iban) == BunqMapping.normalized(iban: iban) && $0.status == "ACTIVE" }
        let id = add(account: account, amount: money.negated, counterparty: target?.description ?? parsed.counterpartyAlias.name ?? iban,
                     counterpartyIBAN: iban, description: parsed.description ?? "", type: target == nil ? "EBA_SCT" : "BUNQ",
                     subType: target == nil ? "SCT" : "PAYMENT", at: clock())
        if let target {
            _ = add(account: target.id, amount: money, counterparty: source.description, counterpartyIBAN: source.iban,
                    description: parsed.description ?? "", type: "BUNQ", subType: "PAYMENT", at: clock())
        }
        paymentsMade += 1
        if options.losePaymentAnswer {
            options.losePaymentAnswer = false
            throw Failure(status: 500, text: "")
        }
        return BunqDemoAPI.encode(Bunq.Envelope(response: [.id(Bunq.Id(id: id))]))
    }

    private func createSavings(_ body: Data) throws -> Data {
        struct Body: Decodable {
            let currency: String?
            let description: String?
            let savingsGoal: Bunq.Amount?
            enum CodingKeys: String, CodingKey { case currency, description, savingsGoal = "savings_goal" }
        }
        guard let parsed = try? JSONDecoder().decode(Body.self, from: body), let name = parsed.description, !name.isEmpty, name.count <= 100 else {
            throw Failure(status: 400, text: "A description is needed.")
        }
        guard (parsed.currency ?? "EUR") == "EUR" else { throw Failure(status: 400, text: "Only EUR accounts here.") }
        let goal = try parsed.savingsGoal.map { amount -> Money in
            guard let money = Bunq.Amount.parse(amount.value, currency: .eur), money.minorUnits > 0 else {
                throw Failure(status: 400, text: "savings_goal is not valid.")
            }
            return money
        }
        let id = (accounts.map(\.id).max() ?? 300) + 1
        accounts.append(Account(kind: "MonetaryAccountSavings", id: id, description: name, iban: BunqDemoAPI.iban(id), status: "ACTIVE",
                                goal: goal, color: "#4CAF50", coOwners: [], opening: 0, created: clock()))
        payments[id] = []
        return BunqDemoAPI.encode(Bunq.Envelope(response: [.id(Bunq.Id(id: id))]))
    }

    @discardableResult
    private func add(account: Int, amount: Money, counterparty: String, counterpartyIBAN: String?, description: String, type: String,
                     subType: String, at: Date) -> Int {
        nextId += 1
        let own = accounts.first { $0.id == account }
        let payment = Bunq.Payment(id: nextId, created: Bunq.timeText(at), monetaryAccountId: account,
                                   amount: Bunq.Amount(value: Bunq.Amount.text(amount), currency: "EUR"),
                                   alias: Bunq.Label(iban: own?.iban, displayName: holder, country: "NL"),
                                   counterpartyAlias: Bunq.Label(iban: counterpartyIBAN, displayName: counterparty, country: "NL"),
                                   description: description, type: type, subType: subType)
        payments[account, default: []].append(payment)
        return nextId
    }

    public static func iban(_ id: Int) -> String { "NL\(String(format: "%02d", id % 97))BUNQ20\(String(format: "%08d", id))" }

    // MARK: - The demo data in bunq's shapes

    /// The accounts and a year of payments, from the demo dataset, made once.
    private func build() async {
        guard !built else { return }
        built = true
        let dataset = await backend.dataset
        holder = dataset.users.first { $0.id == 1 }?.displayName ?? holder
        let opened = dataset.now.addingTimeInterval(-Double(DemoDataset.historyDays + 30) * 86_400)
        accounts = [Account(kind: "MonetaryAccountBank", id: BunqDemoAPI.mainAccountId, description: "Main", iban: BunqDemoAPI.iban(101),
                            status: "ACTIVE", goal: nil, color: "#1E88E5", coOwners: [], opening: 250_000, created: opened),
                    Account(kind: "MonetaryAccountJoint", id: BunqDemoAPI.jointAccountId, description: "Household", iban: BunqDemoAPI.iban(150),
                            status: "ACTIVE", goal: nil, color: "#FB8C00", coOwners: ["Sam Partner"], opening: 80_000, created: opened)]
        let names = Dictionary(dataset.users.map { ($0.id, $0.displayName) }, uniquingKeysWith: { first, _ in first })
        var events: [(Date, () -> Void)] = []
        let colors = ["#4CAF50", "#E91E63", "#FDD835", "#2196F3", "#FF9800"]
        for (index, goal) in dataset.goals.enumerated() where goal.status == .active {
            let id = 200 + (goal.id.number ?? index)
            let target = goal.target.map { Money(minorUnits: $0.minorUnits, currency: .eur) }
            let feed = (dataset.feeds[goal.id] ?? []).filter { $0.amount.minorUnits > 0 }
            let fed = Money.sum(feed.map(\.amount.minorUnits))
            accounts.append(Account(kind: "MonetaryAccountSavings", id: id, description: goal.name, iban: BunqDemoAPI.iban(id), status: "ACTIVE",
                                    goal: index % 3 == 2 ? nil : target, color: colors[index % colors.count],
                                    coOwners: goal.connectedUserIds.compactMap { names[$0] }, opening: max(0, goal.balance.minorUnits - fed),
                                    created: opened))
            payments[id] = []
            for item in feed {
                let amount = Money(minorUnits: item.amount.minorUnits, currency: .eur)
                events.append((item.timestamp, { [goalName = goal.name] in
                    self.add(account: BunqDemoAPI.mainAccountId, amount: amount.negated, counterparty: goalName, counterpartyIBAN: BunqDemoAPI.iban(id),
                             description: "Savings", type: "BUNQ", subType: "PAYMENT", at: item.timestamp)
                    self.add(account: id, amount: amount, counterparty: "Main", counterpartyIBAN: BunqDemoAPI.iban(101), description: "Savings",
                             type: "BUNQ", subType: "PAYMENT", at: item.timestamp)
                }))
            }
        }
        accounts.append(Account(kind: "MonetaryAccountSavings", id: BunqDemoAPI.cancelledSavingsId, description: "Old savings",
                                iban: BunqDemoAPI.iban(299), status: "CANCELLED", goal: nil, color: nil, coOwners: [], opening: 0, created: opened))
        payments[BunqDemoAPI.mainAccountId] = []
        payments[BunqDemoAPI.jointAccountId] = []
        payments[BunqDemoAPI.cancelledSavingsId] = []
        let autoSaveInto = accounts.first { $0.kind == "MonetaryAccountSavings" }?.id
        for transaction in dataset.transactions {
            var minor = transaction.amount.minorUnits
            if transaction.amount.currency != .eur { minor = minor * 92 / 100 }
            let amount = Money(minorUnits: minor, currency: .eur)
            let hash = FNV1a.hash(transaction.id.utf8)
            let at = transaction.timestamp
            let name = TextSanitizer.clean(transaction.counterparty)
            events.append((at, {
                if minor >= 0 {
                    self.add(account: BunqDemoAPI.mainAccountId, amount: amount, counterparty: name, counterpartyIBAN: "NL91ABNA0417164300",
                             description: "Salary", type: "EBA_SCT", subType: "SCT", at: at)
                    return
                }
                switch hash % 12 {
                case 0: self.add(account: BunqDemoAPI.mainAccountId, amount: amount, counterparty: name, counterpartyIBAN: "NL20INGB0001234567",
                                 description: "Direct debit", type: "EBA_SDD", subType: "SDD", at: at)
                case 1: self.add(account: BunqDemoAPI.mainAccountId, amount: amount, counterparty: name, counterpartyIBAN: "NL44RABO0123456789",
                                 description: "iDEAL payment", type: "IDEAL", subType: "PAYMENT", at: at)
                default:
                    self.add(account: BunqDemoAPI.mainAccountId, amount: amount, counterparty: name, counterpartyIBAN: nil,
                             description: name, type: "MASTERCARD", subType: "PAYMENT", at: at)
                    if hash % 12 == 2 {
                        self.add(account: BunqDemoAPI.mainAccountId, amount: amount.negated, counterparty: name, counterpartyIBAN: nil,
                                 description: "Refund " + name, type: "MASTERCARD", subType: "REVERSAL", at: at.addingTimeInterval(86_400))
                    }
                    let cents = minor.magnitude % 100
                    if hash % 12 == 3, cents != 0, let into = autoSaveInto {
                        let up = Money(minorUnits: Int64(100 - cents), currency: .eur)
                        self.add(account: BunqDemoAPI.mainAccountId, amount: up.negated, counterparty: "Auto-save", counterpartyIBAN: BunqDemoAPI.iban(into),
                                 description: "bunq auto-save", type: "SAVINGS", subType: "PAYMENT", at: at.addingTimeInterval(5))
                        self.add(account: into, amount: up, counterparty: "Main", counterpartyIBAN: BunqDemoAPI.iban(101),
                                 description: "bunq auto-save", type: "SAVINGS", subType: "PAYMENT", at: at.addingTimeInterval(5))
                    }
                }
            }))
        }
        for event in events.sorted(by: { $0.0 < $1.0 }) { event.1() }
    }

    static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return (try? encoder.encode(value)) ?? Data(#"{"Error":[{"error_description":"cannot encode"}]}"#.utf8)
    }
}
