import FeedModel
import Foundation
import HTTPTransport

/// Enable Banking's requests over `HTTPTransport` (docs/banks.md, Enable Banking), each signed
/// with the application's JWT (`AuthScheme.signed`: to the API's origin only, never over plain
/// http to another machine). A failure is an `EnableBankingFailure`: the API's error code read
/// into what the app does about it, with the API's words.
public struct EnableBankingClient: Sendable {
    public static let apiURL = URL(string: "https://api.enablebanking.com")!

    public let transport: HTTPTransport

    public init(baseURL: URL, signer: EnableBankingSigner, allowInsecureHTTP: Bool = false, log: RequestLog? = nil,
                timeout: TimeInterval = 30) {
        transport = HTTPTransport(baseURL: baseURL, token: nil, timeout: timeout, deadline: 120, allowInsecureHTTP: allowInsecureHTTP,
                                  serverMessage: { EnableBanking.Problem.read($0)?.message }, log: log, scheme: .signed(signer))
    }

    /// The PSU headers (the user is present): both or none.
    public struct PSU: Sendable, Equatable {
        public var ipAddress: String
        public var userAgent: String

        public init(ipAddress: String, userAgent: String) {
            self.ipAddress = ipAddress
            self.userAgent = userAgent
        }

        var headers: [String: String] { ["Psu-Ip-Address": ipAddress, "Psu-User-Agent": userAgent] }
    }

    // MARK: - Sign-in

    /// `GET /application`: whether the key and id are right, and the application is active.
    public func application() async throws(EnableBankingFailure) -> EnableBanking.Application {
        try await request("GET", "/application", as: EnableBanking.Application.self)
    }

    /// `GET /aspsps`: the banks in `country` for account information.
    public func aspsps(country: String, psuType: String) async throws(EnableBankingFailure) -> [EnableBanking.ASPSP] {
        try await request("GET", "/aspsps", query: [URLQueryItem(name: "country", value: country), URLQueryItem(name: "psu_type", value: psuType),
                                                    URLQueryItem(name: "service", value: "AIS")],
                          label: "GET /aspsps", as: EnableBanking.ASPSPList.self).aspsps
    }

    /// `POST /auth`: where the user gives consent at the bank.
    public func startAuthorization(aspsp: String, country: String, validUntil: String, state: String, redirectURL: String,
                                   psuType: String) async throws(EnableBankingFailure) -> EnableBanking.AuthStart {
        struct Body: Encodable {
            struct Access: Encodable { let valid_until: String }
            struct ASPSP: Encodable { let name: String; let country: String }
            let access: Access
            let aspsp: ASPSP
            let state: String
            let redirect_url: String
            let psu_type: String
        }
        let body = Body(access: .init(valid_until: validUntil), aspsp: .init(name: aspsp, country: country), state: state,
                        redirect_url: redirectURL, psu_type: psuType)
        return try await request("POST", "/auth", body: try? JSONEncoder().encode(body), as: EnableBanking.AuthStart.self)
    }

    /// `POST /sessions {"code"}`: the consent as a session (a code works once).
    public func createSession(code: String) async throws(EnableBankingFailure) -> EnableBanking.Session {
        struct Body: Encodable { let code: String }
        return try await request("POST", "/sessions", body: try? JSONEncoder().encode(Body(code: code)), as: EnableBanking.Session.self)
    }

    /// `GET /sessions/{id}`: its status and accounts. The id is a secret: the log writes `/sessions/…`.
    public func session(id: String) async throws(EnableBankingFailure) -> EnableBanking.Session {
        try await request("GET", "/sessions/" + EnableBankingClient.pathPart(id), loggedPath: "/sessions/…", label: "GET /sessions",
                          as: EnableBanking.Session.self)
    }

    /// `DELETE /sessions/{id}`: the consent ended from this side.
    public func closeSession(id: String) async throws(EnableBankingFailure) {
        let label = "DELETE /sessions"
        let answer = try await exchange("DELETE", "/sessions/" + EnableBankingClient.pathPart(id), loggedPath: "/sessions/…", label: label)
        guard answer.isSuccess else { throw failure(answer, label: label) }
    }

    // MARK: - Data

    /// `GET /accounts/{uid}/balances`.
    public func balances(uid: String, psu: PSU?) async throws(EnableBankingFailure) -> [EnableBanking.Balance] {
        try await request("GET", "/accounts/\(EnableBankingClient.pathPart(uid))/balances", label: "GET /accounts/{uid}/balances",
                          headers: psu?.headers ?? [:], as: EnableBanking.Balances.self).balances
    }

    /// `GET /accounts/{uid}/transactions`, every page (one read): `dateFrom`/`dateTo` inclusive
    /// `YYYY-MM-DD`; `longest`: the longest history the bank gives.
    public func transactions(uid: String, dateFrom: String, dateTo: String?, longest: Bool,
                             psu: PSU?) async throws(EnableBankingFailure) -> [EnableBanking.Transaction] {
        let label = "GET /accounts/{uid}/transactions"
        let path = "/accounts/\(EnableBankingClient.pathPart(uid))/transactions"
        let headers = psu?.headers ?? [:]
        return try await EnableBankingPaging.walk(label: label, givenUp: { EnableBankingFailure(error: $0, code: nil) }) {
            key throws(EnableBankingFailure) in
            var query = [URLQueryItem(name: "date_from", value: dateFrom)]
            if let dateTo { query.append(URLQueryItem(name: "date_to", value: dateTo)) }
            if longest { query.append(URLQueryItem(name: "strategy", value: "longest")) }
            if let key { query.append(URLQueryItem(name: "continuation_key", value: key)) }
            return try await request("GET", path, query: query, label: label, headers: headers, as: EnableBanking.TransactionPage.self)
        }
    }

    // MARK: - Plumbing

    /// A path segment percent-encoded strictly (an id is the API's, but never trusted to be a path).
    static func pathPart(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }

    func exchange(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil, loggedPath: String? = nil,
                  label: String, headers: [String: String] = [:]) async throws(EnableBankingFailure) -> HTTPTransport.Answer {
        do {
            return try await transport.answer(method, path, query: query, body: body, label: label, headers: headers, loggedPath: loggedPath)
        } catch {
            throw EnableBankingFailure(error: error, code: nil)
        }
    }

    func request<Value: Decodable>(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil, loggedPath: String? = nil,
                                   label: String? = nil, headers: [String: String] = [:],
                                   as type: Value.Type) async throws(EnableBankingFailure) -> Value {
        let label = label ?? "\(method) \(path)"
        let answer = try await exchange(method, path, query: query, body: body, loggedPath: loggedPath, label: label, headers: headers)
        guard answer.isSuccess else { throw failure(answer, label: label) }
        do {
            return try PayloadDecoder().decode(type, from: answer.body, resource: label)
        } catch {
            throw EnableBankingFailure(error: APIError(kind: .malformed, request: label, message: error.description), code: nil)
        }
    }

    /// A non-2xx answer read by its error code; the code and detail go to the log, the words to the user.
    func failure(_ answer: HTTPTransport.Answer, label: String) -> EnableBankingFailure {
        let problem = EnableBanking.Problem.read(answer.body)
        let code = problem?.error.map { TextSanitizer.clean(String($0.prefix(60))).uppercased() }
        if let code {
            transport.log?.note("\(label): \(answer.status) \(code)" + (problem?.detail.map { ": " + TextSanitizer.clean(String($0.prefix(200))) } ?? ""))
        }
        return EnableBankingFailure(status: answer.status, code: code, message: problem?.message, label: label)
    }
}

/// A failed request: what the app does about it (`reading`, from the API's error code or the
/// status) and the one line it shows.
public struct EnableBankingFailure: Error, Sendable, CustomStringConvertible {
    public let error: APIError
    /// The API's `error` code (`EXPIRED_SESSION`…), nil when none was sent.
    public let code: String?

    public init(error: APIError, code: String?) {
        self.error = error
        self.code = code
    }

    /// What the app does about a failure.
    public enum Reading: Sendable, Equatable {
        /// Wrong key or application id.
        case keyRefused
        /// The application may not do this (link the accounts in the Control Panel).
        case notAllowed
        /// The consent ended or the sign-in went wrong: sign in again.
        case signInAgain
        /// The bank's daily limit for this account.
        case rateLimited
        /// No answer from the bank: `r` later.
        case bankUnavailable
        /// This account only; the others go on.
        case accountUnavailable
        /// The user must be present (`r`).
        case needsUser
        /// Anything else (a defect, a status without a code).
        case other
    }

    public var reading: Reading { EnableBankingFailure.reading(code: code, status: error.status) }

    static func reading(code: String?, status: Int?) -> Reading {
        switch code {
        case "UNAUTHORIZED_ACCESS", "AUTHORIZATION_NOT_PROVIDED": return .keyRefused
        case "ACCESS_DENIED", "NO_ACCOUNTS_ADDED": return .notAllowed
        case "EXPIRED_SESSION", "REVOKED_SESSION", "CLOSED_SESSION", "SESSION_DOES_NOT_EXIST", "ASPSP_PSU_ACTION_REQUIRED",
             "WRONG_AUTHORIZATION_CODE", "EXPIRED_AUTHORIZATION_CODE", "ALREADY_AUTHORIZED": return .signInAgain
        case "ASPSP_RATE_LIMIT_EXCEEDED": return .rateLimited
        case "ASPSP_ERROR", "ASPSP_TIMEOUT": return .bankUnavailable
        case "ASPSP_ACCOUNT_NOT_ACCESSIBLE", "ACCOUNT_DOES_NOT_EXIST", "INVALID_ACCOUNT_ID": return .accountUnavailable
        case "PSU_HEADER_NOT_PROVIDED": return .needsUser
        case nil:
            switch status {
            case 429: return .rateLimited
            case 401: return .keyRefused
            default: return .other
            }
        default: return .other
        }
    }

    /// Whether the consent ended at the bank (recorded in the session record).
    public var endsConsent: Bool { ["EXPIRED_SESSION", "REVOKED_SESSION", "CLOSED_SESSION", "SESSION_DOES_NOT_EXIST"].contains(code ?? "") }

    init(status: Int, code: String?, message: String?, label: String) {
        self.code = code
        let said = message.map { TextSanitizer.clean(String($0.prefix(200))) }.flatMap { $0.isEmpty ? nil : $0 }
        let codeShown = code.map { " (\($0))" } ?? ""
        let words = said.map { ": " + $0 } ?? ""
        let (kind, text): (APIError.Kind, String)
        switch EnableBankingFailure.reading(code: code, status: status) {
        case .keyRefused:
            (kind, text) = (.unauthorized, "Enable Banking refused the application id or key\(codeShown)\(words)")
        case .notAllowed:
            (kind, text) = (.rejected, "not allowed\(codeShown)\(words): link the accounts in Enable Banking's Control Panel")
        case .signInAgain:
            (kind, text) = (.unauthorized, "the consent with the bank has ended\(codeShown)\(words): sign in again (run qapital-tui login enablebanking)")
        case .rateLimited:
            (kind, text) = (.http(status: status), "the bank's daily limit of reads is used up\(codeShown)\(words)")
        case .bankUnavailable:
            (kind, text) = (.http(status: status), "no answer from the bank\(codeShown)\(words): press r later")
        case .accountUnavailable:
            (kind, text) = (.notFound, "this account cannot be read\(codeShown)\(words)")
        case .needsUser:
            (kind, text) = (.rejected, "the bank wants you present for this read\(codeShown): press r")
        case .other where code == "REDIRECT_URI_NOT_ALLOWED":
            (kind, text) = (.rejected, "the redirect URL is not one the application registered (REDIRECT_URI_NOT_ALLOWED): "
                            + "register it in Enable Banking's Control Panel, or give a registered one with --redirect-url "
                            + "or [enablebanking] redirect-url")
        case .other:
            let base = HTTPTransport.statusError(status, label: label, serverMessage: message)
            (kind, text) = (base.kind, String(base.message.dropFirst(label.count + 2)) + codeShown)
        }
        error = APIError(kind: kind, request: label, message: "\(label): \(text)", status: status)
    }

    public var description: String { error.message }
}
