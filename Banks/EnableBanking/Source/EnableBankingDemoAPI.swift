import DemoData
import DemoServer
import EnableBankingClient
import FeedModel
import Foundation

/// `serve --api enablebanking`: the demo dataset in Enable Banking's shapes (docs/banks.md,
/// Enable Banking, the look-alike).
///
/// - Every request but the mock bank's page carries a JWT checked against the application's
///   public key (alg, kid, signature, `iss`, `aud`, `iat`, `exp` at most 24 h after it): else
///   401 `UNAUTHORIZED_ACCESS`.
/// - `GET /application`, `GET /aspsps` ("Mock ASPSP" in every country), `POST /auth` (its `url`
///   is this server's `/mock-aspsp/auth`, whose GET answers 302 to the redirect URL with `code`
///   and `state`, or `error` with `--fault auth-error`), `POST /sessions` (a code works once),
///   `GET`/`DELETE /sessions/{id}`.
/// - Accounts: "Everyday Account" (the demo's payments and its savings as transfers out), a
///   savings account for each of the first two demo goals, "Travel Card" in JPY (only `XPCD`).
///   Transactions are paged (`--page-size`, default 50) with continuation keys valid only in
///   their session; the newest two days' payments are pending on an account's first read of a
///   session and booked on the next; `transaction_id` changes on every listing.
/// - Past `--budget` (4) reads of an account and endpoint in a rolling day without PSU
///   headers: 429 `ASPSP_RATE_LIMIT_EXCEEDED`. A session lasts until its consent's `valid_until`,
///   or `--session-timeout` seconds when given (the bank ending it early), then 401 `EXPIRED_SESSION`.
/// - The application registers its redirect URLs (`registeredRedirects`, and `serve
///   --redirect-url`); `POST /auth` with another is 422 `REDIRECT_URI_NOT_ALLOWED`, as the real
///   API refuses one. The bank's `maximum_consent_validity` is 180 days unless a test says less.
/// - `--fault NAME`: `inactive` (`GET /application` says `active: false`), and, once a session's
///   sign-in read is done (its first read of each account and endpoint), `revoke` (the user
///   revoked the consent at the bank: 401 `REVOKED_SESSION`), `aspsp-error` (500 `ASPSP_ERROR`),
///   `account-gone` (the card: 404 `ACCOUNT_DOES_NOT_EXIST`); `psu-headers`: every read without
///   PSU headers is 400 `PSU_HEADER_NOT_PROVIDED`.
public actor EnableBankingDemoAPI: ServeHandler {
    public static let defaultBudget = 4
    public static let defaultPageSize = 50
    public static let bankName = "Mock ASPSP"
    public static let authPath = "/mock-aspsp/auth"
    public static let authErrorFault = "auth-error"
    public static let redirectURL = "http://127.0.0.1:8765/callback"
    /// The redirect URLs the look-alike's application has registered: the sign-in screen's
    /// default and the README's try-out's (`login enablebanking --redirect-url …8766…`).
    public static let registeredRedirects = [redirectURL, "http://127.0.0.1:8766/callback"]
    public static let inactiveFault = "inactive"
    public static let revokeFault = "revoke"
    public static let aspspErrorFault = "aspsp-error"
    public static let accountGoneFault = "account-gone"
    public static let psuHeaderFault = "psu-headers"
    /// Every name `--fault` takes here, as the greeting lists them.
    public static let faultNames = [authErrorFault, inactiveFault, revokeFault, aspspErrorFault, accountGoneFault, psuHeaderFault]
    /// The card's identification hash: the account `account-gone` takes away.
    static let cardHash = "demo-card-jpy"

    private let backend: DemoBackend
    private let check: EnableBankingTokenCheck
    private let budget: Int
    private let pageSize: Int
    private let sessionSeconds: Double?
    /// `--auth-error CODE` (or `--fault auth-error`: `access_denied`): the mock bank's redirect carries it.
    private let authError: String?
    private let clock: @Sendable () -> Date
    private let faults: Set<String>
    private var redirectURLs: [String]
    private let maximumConsentSeconds: Int

    struct Authorization { let state: String; let redirect: String; let validUntil: Date; let psuType: String; let country: String }
    struct SessionState {
        let id: String
        let validUntil: Date
        /// `--session-timeout`: the bank ends the session early (`EXPIRED_SESSION` before `valid_until`).
        let endsAt: Date
        var closed = false
        /// Transaction reads of each account in this session (pending rows book on the second).
        var reads: [String: Int] = [:]
        /// Continuation keys handed out: key → (account uid, offset).
        var keys: [String: (uid: String, offset: Int, bookedAfter: Int)] = [:]
        /// First requests (not continuations) served, by account hash and endpoint: a fault comes after the sign-in's read.
        var served: [String: Int] = [:]
        /// `--fault revoke`: the user revoked the consent at the bank.
        var revoked = false
    }

    private var authorizations: [String: Authorization] = [:]
    private var codes: [String: String] = [:]
    private var sessions: [String: SessionState] = [:]
    private var unattended: [String: [Date]] = [:]
    private var counter = 0
    /// Requests refused for their JWT (for tests).
    public private(set) var refusedTokens = 0

    public init(backend: DemoBackend, publicKeyPEM: String, applicationId: String, budget: Int = EnableBankingDemoAPI.defaultBudget,
                pageSize: Int = EnableBankingDemoAPI.defaultPageSize, sessionSeconds: Double? = nil, authError: Bool = false, authErrorCode: String? = nil,
                faults: Set<String> = [], redirectURLs: [String] = EnableBankingDemoAPI.registeredRedirects,
                maximumConsentSeconds: Int = 180 * 86_400,
                clock: @escaping @Sendable () -> Date = { Date() }) throws(EnableBankingKeyError) {
        self.backend = backend
        check = try EnableBankingTokenCheck(publicKeyPEM: publicKeyPEM, applicationId: applicationId)
        self.budget = max(0, budget)
        self.pageSize = max(1, pageSize)
        self.sessionSeconds = sessionSeconds
        self.authError = authErrorCode ?? (authError ? "access_denied" : nil)
        self.clock = clock
        self.faults = faults
        self.redirectURLs = redirectURLs
        self.maximumConsentSeconds = maximumConsentSeconds
    }

    /// Registers one more redirect URL for the application (as in the Control Panel): a test's own port.
    public func register(redirect: String) {
        if !redirectURLs.contains(redirect) { redirectURLs.append(redirect) }
    }

    static func problem(_ status: Int, _ code: String, _ message: String) -> ServeResponse {
        struct Body: Encodable { let code: Int; let message: String; let error: String }
        return .json(Body(code: status, message: message, error: code), status: status)
    }

    public func handle(_ request: ServeRequest) async -> ServeResponse {
        let method = request.method.uppercased()
        let query = (try? DemoAPIHandler.queryValues(request.rawQuery)) ?? [:]
        // The bank's own page is the browser's: no JWT.
        if request.path == EnableBankingDemoAPI.authPath {
            guard method == "GET" else { return .error(405, "GET only") }
            return bankPage(query)
        }
        if let refusal = check.refusal(request.headers["Authorization"], now: clock()) {
            refusedTokens += 1
            return EnableBankingDemoAPI.problem(401, "UNAUTHORIZED_ACCESS", "JWT refused: \(refusal)")
        }
        let parts = request.path.split(separator: "/").map(String.init)
        switch (method, parts.count, parts.first) {
        case ("GET", 1, "application"):
            return .json(Application(name: "qapital-tui look-alike", kid: check.applicationId, environment: "SANDBOX",
                                     redirect_urls: redirectURLs, active: !faults.contains(EnableBankingDemoAPI.inactiveFault), countries: ["FI", "DE", "GB"],
                                     services: ["AIS"]))
        case ("GET", 1, "aspsps"):
            let country = (query["country"] ?? "FI").uppercased()
            return .json(["aspsps": [ASPSP(name: EnableBankingDemoAPI.bankName, country: country, psu_types: ["personal", "business"],
                                           maximum_consent_validity: maximumConsentSeconds)]])
        case ("POST", 1, "auth"):
            return authorize(request)
        case ("POST", 1, "sessions"):
            return await createSession(request)
        case ("GET", 2, "sessions"):
            guard let session = sessions[parts[1]] else { return EnableBankingDemoAPI.problem(404, "SESSION_DOES_NOT_EXIST", "no such session") }
            let status = session.closed ? "CLOSED" : session.revoked ? "REVOKED" : clock() >= session.endsAt ? "EXPIRED" : "AUTHORIZED"
            return .json(SessionStatus(status: status, accounts: await accounts(session: session.id).map(\.uid),
                                       access: .init(valid_until: EnableBankingDemoAPI.rfc3339(session.validUntil))))
        case ("DELETE", 2, "sessions"):
            guard sessions[parts[1]] != nil else { return EnableBankingDemoAPI.problem(404, "SESSION_DOES_NOT_EXIST", "no such session") }
            sessions[parts[1]]?.closed = true
            return .json(["message": "OK"])
        case ("GET", 3, "accounts") where parts[2] == "balances" || parts[2] == "transactions":
            return await accountData(uid: parts[1], what: parts[2], query: query, headers: request.headers)
        default:
            return EnableBankingDemoAPI.problem(404, "NOT_FOUND", "not found")
        }
    }

    // MARK: - Signing in

    private func authorize(_ request: ServeRequest) -> ServeResponse {
        struct Body: Decodable {
            struct Access: Decodable { let valid_until: String }
            struct Bank: Decodable { let name: String; let country: String }
            let access: Access
            let aspsp: Bank
            let state: String
            let redirect_url: String
            let psu_type: String?
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: request.body),
              let validUntil = EnableBankingSessionRecord.date(body.access.valid_until) else {
            return EnableBankingDemoAPI.problem(422, "WRONG_REQUEST_PARAMETERS", "access.valid_until, aspsp, state and redirect_url are needed")
        }
        guard body.aspsp.name == EnableBankingDemoAPI.bankName else {
            return EnableBankingDemoAPI.problem(422, "WRONG_ASPSP_PROVIDED", "no such bank")
        }
        guard let redirect = URL(string: body.redirect_url), ["http", "https"].contains(redirect.scheme ?? ""),
              redirectURLs.contains(body.redirect_url) else {
            return EnableBankingDemoAPI.problem(422, "REDIRECT_URI_NOT_ALLOWED",
                                                "Redirect URI not allowed: the application registers \(redirectURLs.joined(separator: ", "))")
        }
        counter += 1
        let id = DemoIDs.uid("auth-\(counter)-\(clock().timeIntervalSince1970)", prefix: "a")
        authorizations[id] = Authorization(state: body.state, redirect: body.redirect_url, validUntil: validUntil,
                                           psuType: body.psu_type ?? "personal", country: body.aspsp.country)
        let host = request.headers["Host"] ?? "127.0.0.1"
        return .json(["url": "http://\(host)\(EnableBankingDemoAPI.authPath)?authorization_id=\(id)", "authorization_id": id])
    }

    /// The mock bank's page: straight back to the redirect URL with a code (or the error).
    private func bankPage(_ query: [String: String]) -> ServeResponse {
        guard let id = query["authorization_id"], let authorization = authorizations.removeValue(forKey: id) else {
            return .error(404, "no such authorization")
        }
        var components = URLComponents(string: authorization.redirect)
        var items = components?.queryItems ?? []
        if let authError {
            items += [URLQueryItem(name: "error", value: authError), URLQueryItem(name: "error_description", value: "The user cancelled")]
        } else {
            counter += 1
            let code = DemoIDs.uid("code-\(counter)-\(id)", prefix: "c")
            codes[code] = id
            authorizationsByCode[code] = authorization
            items.append(URLQueryItem(name: "code", value: code))
        }
        items.append(URLQueryItem(name: "state", value: authorization.state))
        components?.queryItems = items
        var response = ServeResponse(status: 302)
        response.headers.set("Location", components?.string ?? authorization.redirect)
        return response
    }

    private var authorizationsByCode: [String: Authorization] = [:]

    private func createSession(_ request: ServeRequest) async -> ServeResponse {
        struct Body: Decodable { let code: String }
        guard let body = try? JSONDecoder().decode(Body.self, from: request.body) else {
            return EnableBankingDemoAPI.problem(422, "WRONG_REQUEST_PARAMETERS", "code is needed")
        }
        // A code works once.
        guard codes.removeValue(forKey: body.code) != nil, let authorization = authorizationsByCode.removeValue(forKey: body.code) else {
            return EnableBankingDemoAPI.problem(400, "WRONG_AUTHORIZATION_CODE", "the code is wrong or was used")
        }
        counter += 1
        let id = DemoIDs.uid("session-\(counter)-\(clock().timeIntervalSince1970)", prefix: "5")
        let validUntil = authorization.validUntil
        let endsAt = sessionSeconds.map { min(validUntil, clock().addingTimeInterval($0)) } ?? validUntil
        sessions[id] = SessionState(id: id, validUntil: validUntil, endsAt: endsAt)
        let accounts = await accounts(session: id)
        return .json(NewSession(session_id: id, accounts: accounts.map(\.record), aspsp: .init(name: EnableBankingDemoAPI.bankName,
                                                                                                 country: authorization.country),
                                psu_type: authorization.psuType, access: .init(valid_until: EnableBankingDemoAPI.rfc3339(validUntil))))
    }

    // MARK: - Data

    private func accountData(uid: String, what: String, query: [String: String], headers: ServeHeaders) async -> ServeResponse {
        guard let (sessionId, account) = await find(uid) else {
            return EnableBankingDemoAPI.problem(404, "ACCOUNT_DOES_NOT_EXIST", "no such account")
        }
        guard let session = sessions[sessionId], !session.closed else {
            return EnableBankingDemoAPI.problem(401, "CLOSED_SESSION", "the session was closed")
        }
        guard clock() < session.endsAt else { return EnableBankingDemoAPI.problem(401, "EXPIRED_SESSION", "Session expired") }
        guard !session.revoked else { return EnableBankingDemoAPI.problem(401, "REVOKED_SESSION", "Session revoked by the user") }
        let ip = headers["Psu-Ip-Address"]
        let agent = headers["Psu-User-Agent"]
        guard (ip == nil) == (agent == nil) else {
            return EnableBankingDemoAPI.problem(422, "WRONG_REQUEST_PARAMETERS", "PSU headers come both or none")
        }
        let continuing = query["continuation_key"]
        if let refusal = fault(session: sessionId, account: account, what: what, continuing: continuing != nil, present: ip != nil) {
            return refusal
        }
        // A read is the balances request, or the transactions request with all its pages.
        if continuing == nil && ip == nil {
            let key = "\(sessionId) \(account.hash) \(what)"
            let now = clock()
            let times = (unattended[key] ?? []).filter { now.timeIntervalSince($0) < 86_400 }
            guard times.count < budget else {
                return EnableBankingDemoAPI.problem(429, "ASPSP_RATE_LIMIT_EXCEEDED", "The bank's daily limit of reads for this account is reached")
            }
            unattended[key] = times + [now]
        }
        if what == "balances" { return .json(["balances": account.balances]) }
        return transactions(account: account, session: sessionId, query: query)
    }

    /// `--fault`: what a read answers instead of the data, if anything. The sign-in's read (each
    /// account and endpoint's first in the session) is served, so the faults meet a kept cache.
    private func fault(session sessionId: String, account: DemoBankAccount, what: String, continuing: Bool, present: Bool) -> ServeResponse? {
        if faults.contains(EnableBankingDemoAPI.psuHeaderFault) && !present {
            return EnableBankingDemoAPI.problem(400, "PSU_HEADER_NOT_PROVIDED", "This bank needs PSU headers: the user must be present")
        }
        guard !continuing else { return nil }
        let key = "\(account.hash) \(what)"
        let served = sessions[sessionId]?.served[key] ?? 0
        sessions[sessionId]?.served[key] = served + 1
        guard served >= 1 else { return nil }
        if faults.contains(EnableBankingDemoAPI.revokeFault) {
            sessions[sessionId]?.revoked = true
            return EnableBankingDemoAPI.problem(401, "REVOKED_SESSION", "Session revoked by the user")
        }
        if faults.contains(EnableBankingDemoAPI.aspspErrorFault) {
            return EnableBankingDemoAPI.problem(500, "ASPSP_ERROR", "The bank did not answer")
        }
        if faults.contains(EnableBankingDemoAPI.accountGoneFault) && account.hash == EnableBankingDemoAPI.cardHash {
            return EnableBankingDemoAPI.problem(404, "ACCOUNT_DOES_NOT_EXIST", "No such account at the bank")
        }
        return nil
    }

    private func transactions(account: DemoBankAccount, session sessionId: String, query: [String: String]) -> ServeResponse {
        let rows: [Row]
        let offset: Int
        if let key = query["continuation_key"] {
            guard let place = sessions[sessionId]?.keys.removeValue(forKey: key), place.uid == account.uid else {
                return EnableBankingDemoAPI.problem(400, "WRONG_CONTINUATION_KEY", "wrong continuation key")
            }
            offset = place.offset
            rows = listing(account, query: query, bookedAfter: place.bookedAfter)
        } else {
            guard let from = query["date_from"], from.count == 10 else {
                return EnableBankingDemoAPI.problem(422, "WRONG_REQUEST_PARAMETERS", "date_from is needed")
            }
            let reads = (sessions[sessionId]?.reads[account.uid] ?? 0) + 1
            sessions[sessionId]?.reads[account.uid] = reads
            offset = 0
            rows = listing(account, query: query, bookedAfter: reads)
        }
        let page = Array(rows.dropFirst(offset).prefix(pageSize))
        var next: String?
        if offset + pageSize < rows.count {
            counter += 1
            let key = DemoIDs.uid("ck-\(counter)", prefix: "k")
            // Read before the write: `a?.b = c` evaluates `c` inside the access to `a`.
            let reads = sessions[sessionId]?.reads[account.uid] ?? 1
            sessions[sessionId]?.keys[key] = (account.uid, offset + pageSize, reads)
            next = key
        }
        return .json(Page(transactions: page.map { $0.answer(counter: &counter) }, continuation_key: next))
    }

    /// The account's rows in the asked window: pending rows are pending on the first read of a session.
    private func listing(_ account: DemoBankAccount, query: [String: String], bookedAfter reads: Int) -> [Row] {
        let from = query["date_from"] ?? "0000-00-00"
        let to = query["strategy"] == "longest" ? "9999-99-99" : (query["date_to"] ?? "9999-99-99")
        return account.rows.filter { $0.date >= from && $0.date <= to }.map { row in
            var row = row
            if row.recent && reads > 1 { row.recent = false }
            return row
        }
    }

    /// Which session's account `uid` is.
    private func find(_ uid: String) async -> (String, DemoBankAccount)? {
        for session in sessions.keys {
            if let account = await accounts(session: session).first(where: { $0.uid == uid }) { return (session, account) }
        }
        return nil
    }

    struct Row {
        let reference: String
        let date: String
        let minor: Int64
        let currency: Currency
        let credit: Bool
        let party: String
        let mcc: String?
        /// Within the last two days: pending until the next read.
        var recent: Bool

        func answer(counter: inout Int) -> Transaction {
            counter += 1
            let amount = EnableBankingAmount.text(minor, minorDigits: currency.minorDigits)
            return Transaction(entry_reference: recent ? nil : reference, transaction_id: "t-\(counter)",
                               transaction_amount: .init(currency: currency.code, amount: amount),
                               credit_debit_indicator: credit ? "CRDT" : "DBIT", status: recent ? "PDNG" : "BOOK",
                               booking_date: recent ? nil : date, transaction_date: date,
                               creditor: credit ? nil : .init(name: party), debtor: credit ? .init(name: party) : nil,
                               remittance_information: [party.uppercased()], merchant_category_code: mcc)
        }
    }

    struct DemoBankAccount {
        let uid: String
        let hash: String
        let record: EnableBanking.Account
        let balances: [Balance]
        let rows: [Row]
    }

    static let mccs = ["5411", "5812", "5814", "5912", "5541", "5999", "4121", "5732"]

    static func day(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }

    static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date).replacingOccurrences(of: "Z", with: "+00:00")
    }

    /// The four accounts of a session: uids of its own, identification hashes for ever.
    private func accounts(session: String) async -> [DemoBankAccount] {
        let backend = self.backend
        let currency = await backend.currency
        let now = clock()
        let from = now.addingTimeInterval(-200 * 86_400)
        let recentSince = now.addingTimeInterval(-2 * 86_400)
        var current: [Row] = []
        for payment in await backend.transactions(from: from, to: now) where payment.amount.currency == currency {
            let hash = FNV1a.hash(payment.id.utf8)
            let mcc: String? = hash % 7 == 0 ? nil : hash % 31 == 0 ? "6011" : EnableBankingDemoAPI.mccs[Int(hash % UInt64(EnableBankingDemoAPI.mccs.count))]
            current.append(Row(reference: "E" + String(hash, radix: 36), date: EnableBankingDemoAPI.day(payment.timestamp),
                               minor: Int64(clamping: payment.amount.minorUnits.magnitude),
                               currency: currency, credit: payment.amount.minorUnits > 0, party: payment.counterparty, mcc: mcc,
                               recent: payment.timestamp >= recentSince))
        }
        var list: [DemoBankAccount] = []
        let goals = EnableBankingDemoAPI.savingsGoals(await backend.goals(), currency: currency)
        let text = { (minor: Int64) in EnableBankingAmount.text(minor, minorDigits: currency.minorDigits) }
        for goal in goals {
            var rows: [Row] = []
            for item in (try? await backend.feed(goalId: goal.id)) ?? [] where !item.isVoid && item.timestamp >= from && item.timestamp < recentSince {
                let reference = "S" + String(FNV1a.hash((goal.id.rawValue + item.id).utf8), radix: 36)
                let date = EnableBankingDemoAPI.day(item.timestamp)
                let minor = Int64(clamping: item.amount.minorUnits.magnitude)
                rows.append(Row(reference: reference, date: date, minor: minor, currency: currency, credit: item.amount.minorUnits > 0,
                                party: "Everyday Account", mcc: nil, recent: false))
                current.append(Row(reference: reference, date: date, minor: minor, currency: currency, credit: item.amount.minorUnits < 0,
                                   party: "Transfer to \(goal.name)", mcc: nil, recent: false))
            }
            let hash = "demo-savings-" + goal.id.rawValue
            let iban = "FI49 5000 9420 0287 3" + String(format: "%02d", goal.id.number ?? 0)
            list.append(DemoBankAccount(
                uid: DemoIDs.uid(session + hash, prefix: "u"), hash: hash,
                record: EnableBanking.Account(uid: DemoIDs.uid(session + hash, prefix: "u"), identificationHash: hash,
                                              accountId: .init(iban: iban), name: "Demo Holder", details: goal.name, product: "Savings",
                                              currency: currency.code, cashAccountType: "SVGS"),
                balances: [Balance(name: "Closing booked", balance_amount: .init(currency: currency.code, amount: text(goal.balance.minorUnits)),
                                   balance_type: "CLBD", reference_date: EnableBankingDemoAPI.day(now))],
                rows: rows.sorted { $0.date < $1.date }))
        }
        current.sort { $0.date != $1.date ? $0.date < $1.date : $0.reference < $1.reference }
        let booked: Int64 = 2_345_67 * max(1, currency.minorPerUnit / 100)
        let pending = current.filter(\.recent).reduce(Int64(0)) { $0 + ($1.credit ? $1.minor : -$1.minor) }
        let hash = "demo-current"
        let everyday = DemoBankAccount(
            uid: DemoIDs.uid(session + hash, prefix: "u"), hash: hash,
            record: EnableBanking.Account(uid: DemoIDs.uid(session + hash, prefix: "u"), identificationHash: hash,
                                          accountId: .init(iban: "FI21 1234 5600 0007 85"), name: "Demo Holder", details: "Everyday Account",
                                          product: "Current", currency: currency.code, cashAccountType: "CACC"),
            balances: [Balance(name: "Closing booked", balance_amount: .init(currency: currency.code, amount: text(booked)), balance_type: "CLBD",
                               reference_date: EnableBankingDemoAPI.day(now)),
                       Balance(name: "Interim available", balance_amount: .init(currency: currency.code, amount: text(booked + pending)),
                               balance_type: "ITAV", reference_date: nil)],
            rows: current)
        let cardHash = EnableBankingDemoAPI.cardHash
        let shops = ["Lawson", "FamilyMart", "JR East", "Ichiran"]
        var card: [Row] = []
        for n in 0..<12 {
            let daysAgo = Double(3 + n * 15)
            let date = EnableBankingDemoAPI.day(now.addingTimeInterval(-daysAgo * 86_400))
            let mcc = n % 4 == 2 ? "4111" : "5812"
            card.append(Row(reference: "J\(n)", date: date, minor: Int64(480 + n * 130), currency: .jpy, credit: false, party: shops[n % 4],
                            mcc: mcc, recent: false))
        }
        let travel = DemoBankAccount(
            uid: DemoIDs.uid(session + cardHash, prefix: "u"), hash: cardHash,
            record: EnableBanking.Account(uid: DemoIDs.uid(session + cardHash, prefix: "u"), identificationHash: cardHash,
                                          accountId: .init(other: "4000 0012 3456 7899"), name: "Demo Holder", details: "Travel Card",
                                          currency: "JPY", cashAccountType: "CARD"),
            balances: [Balance(name: "Expected", balance_amount: .init(currency: "JPY", amount: String(-card.reduce(0) { $0 + $1.minor })),
                               balance_type: "XPCD", reference_date: nil)],
            rows: card.sorted { $0.date < $1.date })
        return [everyday] + list + [travel]
    }

    /// The demo goals that are savings accounts here: the first two active ones.
    public static func savingsGoals(_ goals: [Goal], currency: Currency) -> [Goal] {
        Array(goals.filter { $0.status == .active && $0.balance.currency == currency }.prefix(2))
    }

    // MARK: - Shapes

    struct Application: Encodable {
        let name: String
        let kid: String
        let environment: String
        let redirect_urls: [String]
        let active: Bool
        let countries: [String]
        let services: [String]
    }

    struct ASPSP: Encodable {
        let name: String
        let country: String
        let psu_types: [String]
        let maximum_consent_validity: Int
    }

    struct Access: Encodable { let valid_until: String }
    struct Bank: Encodable { let name: String; let country: String }

    struct NewSession: Encodable {
        let session_id: String
        let accounts: [EnableBanking.Account]
        let aspsp: Bank
        let psu_type: String
        let access: Access
    }

    struct SessionStatus: Encodable {
        let status: String
        let accounts: [String]
        let access: Access
    }

    struct AmountValue: Encodable { let currency: String; let amount: String }
    struct Balance: Encodable {
        let name: String
        let balance_amount: AmountValue
        let balance_type: String
        let reference_date: String?
    }

    struct Party: Encodable { let name: String }
    struct Transaction: Encodable {
        let entry_reference: String?
        let transaction_id: String
        let transaction_amount: AmountValue
        let credit_debit_indicator: String
        let status: String
        let booking_date: String?
        let transaction_date: String
        let creditor: Party?
        let debtor: Party?
        let remittance_information: [String]
        let merchant_category_code: String?
    }

    struct Page: Encodable {
        let transactions: [Transaction]
        let continuation_key: String?
    }
}
