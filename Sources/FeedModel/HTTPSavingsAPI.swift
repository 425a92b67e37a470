import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The API over HTTP(S) with URLSession.
public struct HTTPSavingsAPI: SavingsAPI {
    public let baseURL: URL
    public let token: String?
    public let timeout: TimeInterval
    public let decoder: PayloadDecoder
    private let session: URLSession

    /// Checks a user-given base URL: http or https with a host. Returns a message when unusable.
    public static func validate(baseURL text: String) throws(InvalidBaseURL) -> URL {
        let shown = TextSanitizer.clean(text)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            throw InvalidBaseURL(message: "not a URL: \(shown)")
        }
        guard scheme == "http" || scheme == "https" else {
            throw InvalidBaseURL(message: "unsupported URL scheme \"\(TextSanitizer.clean(scheme))\" in \(shown) (use http or https)")
        }
        guard let host = url.host, !host.isEmpty else {
            throw InvalidBaseURL(message: "no host in URL \(shown)")
        }
        // Paths are appended to the base: a query or fragment would end up in the middle.
        guard url.query == nil, url.fragment == nil else {
            throw InvalidBaseURL(message: "a base URL takes no query or fragment: \(shown)")
        }
        return url
    }

    public struct InvalidBaseURL: Error, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public init(baseURL: URL, token: String? = nil, timeout: TimeInterval = 10, accountCurrency: Currency = .usd) {
        self.baseURL = baseURL
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
        self.timeout = timeout
        self.decoder = PayloadDecoder(accountCurrency: accountCurrency)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = 8
        self.session = URLSession(configuration: configuration)
    }

    public var sourceName: String {
        guard let host = baseURL.host else { return baseURL.absoluteString }
        return baseURL.port.map { "\(host):\($0)" } ?? host
    }

    public func goals() async throws -> [Goal] {
        try await get("/savingsgoals", as: GoalList.self).savingsGoals
    }

    public func feed(goalId: Int) async throws -> [FeedItem] {
        try await get("/savingsgoals/\(goalId)/feed", as: GoalFeed.self).feed
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
        var body = #"{"name":"# + jsonString(name)
        body += #","targetAmount":"# + (target?.jsonNumberString ?? "null") + "}"
        return try await send("POST", "/savingsgoals", body: Data(body.utf8), as: Goal.self)
    }

    public func transfer(goalId: Int, transferId: UUID, amount: Money) async throws -> Goal {
        let body = #"{"transferId":"\#(transferId.uuidString)","amount":\#(amount.jsonNumberString)}"#
        return try await send("POST", "/savingsgoals/\(goalId)/transfers", body: Data(body.utf8), as: Goal.self)
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

    /// Builds the request URL; query values are percent-encoded strictly, so `+` becomes `%2B`
    /// (URLComponents leaves `+` alone, and servers read a bare `+` as a space).
    func url(for path: String, query: [URLQueryItem] = []) -> URL {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += path
        if !query.isEmpty {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            text += "?" + query.map { item in
                let value = item.value?.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
                return "\(item.name)=\(value)"
            }.joined(separator: "&")
        }
        return URL(string: text)!
    }

    private func get<T: Decodable>(_ path: String, query: [URLQueryItem] = [], as type: T.Type) async throws -> T {
        try await send("GET", path, query: query, body: nil, as: type)
    }

    private func send<T: Decodable>(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data?,
                                    as type: T.Type) async throws -> T {
        let label = "\(method) \(path)"
        var request = URLRequest(url: url(for: path, query: query), timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }

        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw transportError(error, label: label)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 200
        switch status {
        case 200..<300:
            break
        case 401:
            throw APIError(kind: .unauthorized, request: label, message: "\(label): the token was refused (HTTP 401)")
        case 404:
            throw APIError(kind: .notFound, request: label, message: "\(label): not found (HTTP 404)")
        case 400, 409, 422:
            throw APIError(kind: .rejected, request: label, message: "\(label): HTTP \(status)\(serverMessage(data))")
        default:
            throw APIError(kind: .http(status: status), request: label, message: "\(label): HTTP \(status)")
        }
        do {
            return try decoder.decode(type, from: data, resource: label)
        } catch {
            throw APIError(kind: .malformed, request: label, message: error.description)
        }
    }

    /// The `error` text of a JSON error body, if the server sent one.
    private func serverMessage(_ data: Data) -> String {
        struct Body: Decodable { let error: String }
        guard let body = try? JSONDecoder().decode(Body.self, from: data) else { return "" }
        return ": " + TextSanitizer.clean(String(body.error.prefix(200)))
    }

    /// "10", "0.3": a short timeout must not read as "within 0 s".
    private func seconds(_ interval: TimeInterval) -> String {
        interval == interval.rounded() ? String(Int(interval)) : String(format: "%.1f", interval)
    }

    private func transportError(_ error: Error, label: String) -> APIError {
        let hostPort = sourceName
        if let urlError = error as? URLError {
            switch urlError.code {
            case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .networkConnectionLost, .notConnectedToInternet:
                return APIError(kind: .cannotConnect, request: label, message: "\(label): cannot connect to \(hostPort)")
            case .timedOut:
                return APIError(kind: .timedOut, request: label,
                                message: "\(label): no answer from \(hostPort) within \(seconds(timeout)) s")
            case .cancelled:
                return APIError(kind: .cancelled, request: label, message: "\(label): cancelled")
            default:
                return APIError(kind: .transport, request: label, message: "\(label): \(urlError.localizedDescription)")
            }
        }
        if error is CancellationError {
            return APIError(kind: .cancelled, request: label, message: "\(label): cancelled")
        }
        return APIError(kind: .transport, request: label, message: "\(label): \(error.localizedDescription)")
    }
}
