import DemoData
import DemoServer
import FeedModel
import Foundation
import SimpleFINClient

/// `serve --api simplefin`: the demo dataset in SimpleFIN's shapes (docs/banks.md, SimpleFIN).
///
/// - `POST /simplefin/claim/<code>` claims the printed setup token once (the access URL as
///   text, for the host the request named); again: 403.
/// - `GET /simplefin/info` (no auth): the versions.
/// - `GET /simplefin/accounts` with basic auth: an Account Set. `start-date`/`end-date` (Unix
///   seconds) are needed and span at most 90 days (400 otherwise); `pending=1` adds the newest
///   two days' card payments as pending (`posted: 0`). Accounts: "Everyday Checking" (the
///   demo's card payments, with `mcc`, and its savings as transfers out), a savings account per
///   demo goal (the transfers in), "Rewards Points" in a custom currency, and "Maple Visa" at a
///   second connection whose login needs attention (`con.auth` in `errlist`).
/// - The budget: past `budget` requests in a rolling day each answer warns in `errlist`
///   (`gen.quota`); five more and the access URL is disabled (403 from then on).
/// - `--v1`: v1's shapes (`errors` strings, `org` per account; no `errlist`, no connections).
public actor SimpleFINDemoAPI: ServeHandler {
    public static let basePath = "/simplefin"
    public static let claimCode = "qapital-tui-demo-claim"
    public static let user = "demo"
    public static let password = "qt-demo-7Kx2Vb"
    public static let defaultBudget = 24
    static let rewardsCurrency = "https://rewards.example.com/points"

    private let backend: DemoBackend
    private let budget: Int
    private let versionOne: Bool
    private let clock: @Sendable () -> Date
    private var claimed = false
    private var disabled = false
    private var requestTimes: [Date] = []
    /// `GET /accounts` answered since start (for tests that count a session's requests).
    public private(set) var accountRequests = 0
    public private(set) var claims = 0

    public init(backend: DemoBackend, budget: Int = SimpleFINDemoAPI.defaultBudget, versionOne: Bool = false,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.backend = backend
        self.budget = max(0, budget)
        self.versionOne = versionOne
        self.clock = clock
    }

    /// The setup token for a look-alike at `baseURL` (`http://127.0.0.1:PORT`).
    public static func setupToken(baseURL: String) -> String {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        return Data((base + basePath + "/claim/" + claimCode).utf8).base64EncodedString()
    }

    public func handle(_ request: ServeRequest) async -> ServeResponse {
        let path = request.path
        if path == SimpleFINDemoAPI.basePath + "/claim/" + SimpleFINDemoAPI.claimCode {
            guard request.method.uppercased() == "POST" else { return .error(405, "POST to claim") }
            claims += 1
            guard !claimed else { return ServeResponse.data(Data("Forbidden".utf8), contentType: "text/plain", status: 403) }
            claimed = true
            let host = request.headers["Host"] ?? "127.0.0.1"
            let access = "http://\(SimpleFINDemoAPI.user):\(SimpleFINDemoAPI.password)@\(host)\(SimpleFINDemoAPI.basePath)"
            return .data(Data(access.utf8), contentType: "text/plain")
        }
        if path.hasPrefix(SimpleFINDemoAPI.basePath + "/claim/") {
            return ServeResponse.data(Data("Forbidden".utf8), contentType: "text/plain", status: 403)
        }
        guard request.method.uppercased() == "GET" else { return .error(405, "GET only") }
        switch path {
        case SimpleFINDemoAPI.basePath + "/info":
            return .json(["versions": ["1.0", "2.0"]])
        case SimpleFINDemoAPI.basePath + "/accounts":
            let expected = "Basic " + Data("\(SimpleFINDemoAPI.user):\(SimpleFINDemoAPI.password)".utf8).base64EncodedString()
            guard request.headers["Authorization"] == expected, !disabled else {
                return ServeResponse.data(Data("Forbidden".utf8), contentType: "text/plain", status: 403)
            }
            return await accounts(request)
        default:
            return .error(404, "not found")
        }
    }

    private func accounts(_ request: ServeRequest) async -> ServeResponse {
        let query: [String: String]
        do {
            query = try DemoAPIHandler.queryValues(request.rawQuery)
        } catch {
            return .error(400, error.message)
        }
        guard let startText = query["start-date"], let endText = query["end-date"], let start = Int64(startText), let end = Int64(endText),
              start <= end else {
            return .error(400, "start-date and end-date (Unix seconds) are needed, start before end")
        }
        guard end - start <= 90 * 86_400 else { return .error(400, "the date range spans more than 90 days") }
        let now = clock()
        requestTimes = requestTimes.filter { now.timeIntervalSince($0) < 86_400 } + [now]
        accountRequests += 1
        if requestTimes.count > budget + 5 {
            disabled = true
            return ServeResponse.data(Data("Forbidden".utf8), contentType: "text/plain", status: 403)
        }
        let overBudget = requestTimes.count > budget
        let set = await accountSet(start: start, end: end, pending: query["pending"] == "1", now: now, overBudget: overBudget)
        if versionOne { return .json(SimpleFINDemoAPI.versionOneShape(set)) }
        return .json(set)
    }

    // MARK: - The data

    static let connection = SimpleFIN.Connection(connId: "CON-demo", name: "SimpleFIN Demo Bank", orgId: "ORG-demo",
                                                 orgURL: "https://bank.example.com", sfinURL: "https://bridge.example.com/simplefin",
                                                 orgName: "SimpleFIN Demo Bank")
    static let otherConnection = SimpleFIN.Connection(connId: "CON-maple", name: "Maple Credit Union", orgId: "ORG-maple",
                                                      sfinURL: "https://bridge.example.com/simplefin", orgName: "Maple Credit Union")
    static let checkingId = "ACT-checking"

    /// Merchant category codes the demo's payments get, by a stable hash; every seventh none.
    static let mccs = ["5411", "5812", "5814", "5912", "5541", "5999", "4121", "5732"]

    func accountSet(start: Int64, end: Int64, pending: Bool, now: Date, overBudget: Bool) async -> SimpleFIN.AccountSet {
        let backend = self.backend
        let currency = await backend.currency
        let digits = currency.minorDigits
        let text = { (minor: Int64) in SimpleFINAmount.text(minor, minorDigits: digits) }
        let from = Date(timeIntervalSince1970: Double(start))
        let to = Date(timeIntervalSince1970: Double(end))
        let pendingSince = now.addingTimeInterval(-2 * 86_400)
        var checkingRows: [SimpleFIN.TransactionRecord] = []
        for payment in await backend.transactions(from: from, to: to) where payment.amount.currency == currency {
            let seconds = Int64(payment.timestamp.timeIntervalSince1970)
            let hash = FNV1a.hash(payment.id.utf8)
            let mcc: String? = hash % 7 == 0 ? nil : hash % 31 == 0 ? "6011" : SimpleFINDemoAPI.mccs[Int(hash % UInt64(SimpleFINDemoAPI.mccs.count))]
            let isPending = payment.timestamp >= pendingSince
            if isPending && !pending { continue }
            checkingRows.append(SimpleFIN.TransactionRecord(
                id: "TRN-" + payment.id, posted: isPending ? 0 : seconds, amount: text(payment.amount.minorUnits),
                description: payment.counterparty.uppercased(), transactedAt: seconds, pending: isPending ? true : nil, mcc: mcc,
                payee: payment.counterparty))
        }
        var accounts: [SimpleFIN.AccountRecord] = []
        var checkingBalance: Int64 = 1_234_56 * Int64(max(1, currency.minorPerUnit / 100))
        for goal in await backend.goals() where goal.status == .active && goal.balance.currency == currency {
            let items = (try? await backend.feed(goalId: goal.id)) ?? []
            var rows: [SimpleFIN.TransactionRecord] = []
            for item in items where !item.isVoid && item.timestamp >= from && item.timestamp < to && item.timestamp < pendingSince {
                let seconds = Int64(item.timestamp.timeIntervalSince1970)
                let id = "TRN-save-" + String(FNV1a.hash((goal.id.rawValue + item.id + String(seconds)).utf8), radix: 36)
                rows.append(SimpleFIN.TransactionRecord(id: id, posted: seconds, amount: text(item.amount.minorUnits),
                                                        description: "TRANSFER FROM EVERYDAY CHECKING"))
                checkingRows.append(SimpleFIN.TransactionRecord(id: id, posted: seconds, amount: text(-item.amount.minorUnits),
                                                                description: "TRANSFER TO " + goal.name.uppercased(),
                                                                payee: "Transfer to \(goal.name)"))
            }
            accounts.append(SimpleFIN.AccountRecord(
                id: "ACT-goal-\(goal.id.rawValue)", name: goal.name, connId: SimpleFINDemoAPI.connection.connId, currency: currency.code,
                balance: text(goal.balance.minorUnits), balanceDate: Int64(now.timeIntervalSince1970) - 3_600,
                transactions: rows.sorted { $0.posted < $1.posted }))
        }
        checkingRows.sort { ($0.posted == 0 ? Int64.max : $0.posted) < ($1.posted == 0 ? Int64.max : $1.posted) }
        let pendingTotal = checkingRows.filter { $0.pending == true }
            .compactMap { SimpleFINAmount.minorUnits($0.amount, minorDigits: digits) }.reduce(0, +)
        checkingBalance = max(checkingBalance, 0)
        let checking = SimpleFIN.AccountRecord(
            id: SimpleFINDemoAPI.checkingId, name: "Everyday Checking", connId: SimpleFINDemoAPI.connection.connId,
            currency: currency.code, balance: text(checkingBalance), availableBalance: text(checkingBalance + pendingTotal),
            balanceDate: Int64(now.timeIntervalSince1970) - 3_600, transactions: checkingRows)
        let rewards = SimpleFIN.AccountRecord(
            id: "ACT-rewards", name: "Rewards Points", connId: SimpleFINDemoAPI.connection.connId, currency: SimpleFINDemoAPI.rewardsCurrency,
            balance: "25310", balanceDate: Int64(now.timeIntervalSince1970) - 3_600, transactions: [])
        let maple = SimpleFIN.AccountRecord(
            id: "ACT-maple-visa", name: "Maple Visa", connId: SimpleFINDemoAPI.otherConnection.connId, currency: currency.code,
            balance: text(-41_20), balanceDate: Int64(now.timeIntervalSince1970) - 9 * 86_400, transactions: nil)
        var errlist = [SimpleFIN.Problem(code: "con.auth", message: "the bank asks to sign in again",
                                         connId: SimpleFINDemoAPI.otherConnection.connId)]
        if overBudget {
            errlist.append(SimpleFIN.Problem(code: "gen.quota", message: "You have made more requests today than the Bridge allows; "
                                             + "more may disable this access token"))
        }
        return SimpleFIN.AccountSet(errlist: errlist, connections: [SimpleFINDemoAPI.connection, SimpleFINDemoAPI.otherConnection],
                                    accounts: [checking] + accounts + [rewards, maple])
    }

    /// v1's shapes: `errors` as strings, `org` per account.
    struct VersionOneSet: Encodable {
        var errors: [String]
        var accounts: [Account]

        struct Account: Encodable {
            var org: SimpleFIN.Org
            var id: String
            var name: String
            var currency: String
            var balance: String
            var availableBalance: String?
            var balanceDate: Int64
            var transactions: [SimpleFIN.TransactionRecord]?

            enum CodingKeys: String, CodingKey {
                case org, id, name, currency, balance, availableBalance = "available-balance", balanceDate = "balance-date", transactions
            }
        }
    }

    static func versionOneShape(_ set: SimpleFIN.AccountSet) -> VersionOneSet {
        let connections = Dictionary(set.connections.map { ($0.connId, $0) }, uniquingKeysWith: { first, _ in first })
        return VersionOneSet(errors: set.errlist.map(\.message), accounts: set.accounts.map { account in
            let connection = account.connId.flatMap { connections[$0] }
            let org = SimpleFIN.Org(domain: connection.map { $0.connId.lowercased() + ".example.com" }, name: connection?.name,
                                    sfinURL: connection?.sfinURL, id: connection?.orgId)
            return .init(org: org, id: account.id, name: account.name, currency: account.currency, balance: account.balance,
                         availableBalance: account.availableBalance, balanceDate: account.balanceDate, transactions: account.transactions)
        })
    }
}
