import FeedModel
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP plumbing every HTTP source shares: one base URL, one bearer token, timeouts,
/// strict percent-encoding, and failures turned into one-line `APIError`s.
///
/// A source builds paths and decodes bodies; everything between is here, once.
public struct HTTPTransport: Sendable {
    public let baseURL: URL
    /// Sent as `Authorization: Bearer …` to `baseURL`'s origin only. Never logged or shown.
    var token: String? { credential.token }
    /// The token, shared by every copy of this transport: a sign-in replaces it for all of them.
    private let credential: Credential
    /// How long the server may stay silent (an idle timeout).
    public let timeout: TimeInterval
    /// How long one request may take in all, however steadily the server drips.
    public let deadline: TimeInterval
    /// The largest body read; a bigger one is refused while it arrives.
    public let maxBytes: Int
    /// Whether a token may go over plain http to a host that is not this machine (`--allow-insecure-http`).
    public let allowInsecureHTTP: Bool
    /// Reads the server's own error text out of an error body (each API has its envelope).
    private let serverMessage: @Sendable (Data) -> String?
    let fetcher: HTTPFetcher
    /// `--log-file`: every request, its status and time (never a token, body or query value).
    public let log: RequestLog?
    /// How the token goes out in `Authorization`.
    public let scheme: AuthScheme
    /// Whether a redirect (within the origin) is followed; when not, the 3xx answer is the answer.
    public let followsRedirects: Bool

    /// How the token is sent.
    public enum AuthScheme: Sendable {
        /// `Authorization: Bearer TOKEN`.
        case bearer
        /// HTTP basic authentication (RFC 7617): the token is `user:password`, sent base64-encoded.
        case basic
        /// `Authorization` as a source's signer makes it for each request (Enable Banking's JWT,
        /// minted or reused until near its end), with or without a token; bound to the origin and
        /// to the plain-http rule as a token is.
        case signed(any RequestSigner)
    }

    /// Headers that carry a secret wherever a source sets them: held to the plain-http rule.
    static let secretHeaders: Set<String> = ["authorization", "x-bunq-client-authentication", "x-bunq-client-signature", "cookie"]

    /// The largest API answer read: 64 MB.
    public static let defaultMaxBytes = PayloadDecoder.maxBytes

    public init(baseURL: URL, token: String?, timeout: TimeInterval = 10, deadline: TimeInterval = 30,
                maxBytes: Int = HTTPTransport.defaultMaxBytes, allowInsecureHTTP: Bool = false,
                serverMessage: @escaping @Sendable (Data) -> String? = HTTPTransport.errorField, log: RequestLog? = nil,
                classify: (@Sendable (Int, Data, String) -> APIError?)? = nil,
                refresh: (@Sendable (String?) async -> String?)? = nil, scheme: AuthScheme = .bearer, followsRedirects: Bool = true) {
        self.baseURL = baseURL
        self.scheme = scheme
        self.followsRedirects = followsRedirects
        self.allowInsecureHTTP = allowInsecureHTTP
        self.log = log
        // The source's hooks live with the token they are about, shared by every copy.
        self.credential = Credential(token: token.flatMap { $0.isEmpty ? nil : $0 }, classify: classify, refresh: refresh)
        self.timeout = timeout
        self.deadline = max(0.001, deadline)
        self.maxBytes = maxBytes
        self.serverMessage = serverMessage
        self.fetcher = HTTPFetcher(idleTimeout: timeout, maxConnectionsPerHost: 8)
    }

    /// Whether a token is set (the token itself stays inside).
    public var hasToken: Bool { token != nil }

    /// Whether the server refused the token now in use (401 or 403) since it was set.
    public var tokenRefused: Bool { credential.refused }

    /// Whether the last answer to the token now in use said the customer has yet to approve it in
    /// the bank's app (a `classify` reading with `awaitsApproval`); any answer of 2xx since clears it.
    public var awaitsApproval: Bool { credential.awaitsApproval }

    /// Uses `token` from now on (a sign-in after a refusal), for every copy of this transport.
    public func replaceToken(_ token: String) {
        credential.replace(token.isEmpty ? nil : token)
    }

    /// The token, whether it was refused or waits for the customer's approval, behind a lock
    /// (requests run on many tasks).
    private final class Credential: Sendable {
        private let state: Locked<(token: String?, refused: Bool, awaitsApproval: Bool)>
        /// For a token that can be refreshed (an OAuth pair): given the token a 401 refused,
        /// answers a fresh one (nil: none). The request is then sent once more with it.
        let refresh: (@Sendable (String?) async -> String?)?
        /// A source's own reading of an error answer (status, body, label), before the shared one:
        /// Monzo's "approve this sign-in in the app" and its 90-day edge. Only an `.unauthorized`
        /// answer refuses the token.
        let classify: (@Sendable (Int, Data, String) -> APIError?)?

        init(token: String?, classify: (@Sendable (Int, Data, String) -> APIError?)?, refresh: (@Sendable (String?) async -> String?)?) {
            state = Locked((token, false, false))
            self.classify = classify
            self.refresh = refresh
        }

        var token: String? { state.withLock { $0.token } }
        var refused: Bool { state.withLock { $0.refused } }
        var awaitsApproval: Bool { state.withLock { $0.awaitsApproval } }

        func replace(_ token: String?) { state.withLock { $0 = (token, false, false) } }

        /// A refusal counts only for the token it was sent with (not for one replaced meanwhile).
        func refuse(_ sent: String?) { state.withLock { if $0.token == sent { $0.refused = true } } }

        /// The answer to `sent` said whether the customer has yet to approve it (only for the token in use).
        func approval(pending: Bool, _ sent: String?) { state.withLock { if $0.token == sent { $0.awaitsApproval = pending } } }
    }

    /// Checks a user-given base URL: http or https with a host. Throws a message when unusable.
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

    /// A token goes over plain http only to this machine, where nobody can listen in between;
    /// elsewhere it needs https, or the user's explicit `--allow-insecure-http`.
    public static func checkTokenTransport(baseURL: URL, allowInsecureHTTP: Bool) throws(InvalidBaseURL) {
        guard baseURL.scheme?.lowercased() == "http", !allowInsecureHTTP, !isLoopback(baseURL.host ?? "") else { return }
        throw InvalidBaseURL(message: "a token goes over plain http only to this machine (127.0.0.1, ::1, localhost), "
                             + "not to \(TextSanitizer.clean(baseURL.host ?? "")): use https, or --allow-insecure-http")
    }

    /// 127.0.0.0/8, ::1, localhost.
    public static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    public struct InvalidBaseURL: Error, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// `host:port`, what the status bar and messages call the server.
    public var hostAndPort: String {
        guard let host = baseURL.host else { return baseURL.absoluteString }
        return baseURL.port.map { "\(host):\($0)" } ?? host
    }

    /// Builds the request URL; query values are percent-encoded strictly, so `+` becomes `%2B`
    /// (URLComponents leaves `+` alone, and servers read a bare `+` as a space).
    public func url(for path: String, query: [URLQueryItem] = []) -> URL {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += path
        if !query.isEmpty {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            text += "?" + query.map { item in
                let value = item.value?.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
                let name = item.name.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
                return "\(name)=\(value)"
            }.joined(separator: "&")
        }
        return URL(string: text)!
    }

    /// `application/x-www-form-urlencoded`: names and values percent-encoded strictly (a space
    /// as `%20`, `+` as `%2B`), in the order given.
    public static func formBody(_ fields: [(String, String)]) -> Data {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        func encode(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }
        return Data(fields.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&").utf8)
    }

    public static let formType = "application/x-www-form-urlencoded"

    /// One answer of any HTTP status: its body, status and header fields (for an API whose
    /// headers say something, such as Up's `X-RateLimit-Remaining`).
    public struct Answer: Sendable {
        public let status: Int
        public let body: Data
        public let headers: [String: String]
        /// The token the request went with (a refusal counts for it alone); never shown.
        let sent: String?

        public init(status: Int, body: Data, headers: [String: String] = [:]) {
            self.init(status: status, body: body, headers: headers, sent: nil)
        }

        init(status: Int, body: Data, headers: [String: String], sent: String?) {
            self.status = status
            self.body = body
            self.headers = headers
            self.sent = sent
        }

        /// The value of header `name`, matched without regard to case.
        public func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        public var isSuccess: Bool { (200..<300).contains(status) }
    }

    /// Sends one request and returns the body of a 2xx answer; anything else throws an
    /// `APIError` whose message starts with `label` ("GET /activities: HTTP 500").
    public func send(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil,
                     contentType: String = "application/json", label: String? = nil) async throws(APIError) -> Data {
        let label = label ?? "\(method) \(path)"
        let answer = try await answer(method, path, query: query, body: body, contentType: contentType, label: label)
        guard answer.isSuccess else { throw error(for: answer, label: label) }
        return answer.body
    }

    /// Sends one request and returns its answer whatever the status; only a request that got
    /// no answer throws. `error(for:label:)` turns a non-2xx answer into the usual error.
    /// `headers`: fields of the API's own, sent as given (never logged). `loggedPath`: the path as
    /// `--log-file` writes it, for a path that holds a secret (a session's id); nil: the path.
    public func answer(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil,
                       contentType: String = "application/json", label: String? = nil,
                       headers: [String: String] = [:], loggedPath: String? = nil) async throws(APIError) -> Answer {
        let label = label ?? "\(method) \(path)"
        return try await refreshing(method, url(for: path, query: query), logged: (loggedPath ?? path, query), body: body,
                                    contentType: contentType, label: label, headers: headers)
    }

    /// A URL the server handed out (a JSON:API `links.next`), requested as given: only on this
    /// transport's origin and under its base path, so the token never goes anywhere else.
    public func answer(_ method: String, absolute url: URL, body: Data? = nil, label: String) async throws(APIError) -> Answer {
        guard let path = relativePath(of: url) else {
            throw APIError(kind: .rejected, request: label,
                           message: "\(label): the server's link leads away from \(hostAndPort); not followed")
        }
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return try await refreshing(method, url, logged: (path, query), body: body, contentType: "application/json", label: label)
    }

    /// The path of `url` under the base URL, when `url` has the base URL's origin and path; else nil.
    public func relativePath(of url: URL) -> String? {
        func origin(_ url: URL) -> String {
            let scheme = url.scheme?.lowercased() ?? ""
            let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
            return "\(scheme)://\((url.host ?? "").lowercased()):\(port)"
        }
        guard origin(url) == origin(baseURL), url.user == nil, url.password == nil, url.fragment == nil else { return nil }
        var basePath = baseURL.path
        while basePath.hasSuffix("/") { basePath.removeLast() }
        let path = url.path
        guard path == basePath || path.hasPrefix(basePath + "/") else { return nil }
        let rest = String(path.dropFirst(basePath.count))
        // No way back out of the base path.
        guard !rest.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else { return nil }
        return rest.isEmpty ? "/" : rest
    }

    /// The error for a non-2xx answer: the source's own reading first (`classify`), else the
    /// shared one; a 401 or 403 (or what the source reads as `.unauthorized`) also marks the
    /// token it was sent with as refused, unless the reading says the token awaits the customer's
    /// approval in the bank's app (it is kept, and `awaitsApproval` says so).
    public func error(for answer: Answer, label: String) -> APIError {
        if let classified = credential.classify?(answer.status, answer.body, label) {
            if classified.awaitsApproval {
                credential.approval(pending: true, answer.sent)
            } else if classified.kind == .unauthorized {
                credential.refuse(answer.sent)
            }
            return classified
        }
        if answer.status == 401 || answer.status == 403 { credential.refuse(answer.sent) }
        return HTTPTransport.statusError(answer.status, label: label, serverMessage: serverMessage(answer.body))
    }

    /// One request; a 401 with a token that can be refreshed (`refresh`) gets one fresh token
    /// and the request once more.
    private func refreshing(_ method: String, _ url: URL, logged: (path: String, query: [URLQueryItem]), body: Data?,
                            contentType: String, label: String, headers: [String: String] = [:]) async throws(APIError) -> Answer {
        var answer = try await exchange(method, url, logged: logged, body: body, contentType: contentType, label: label,
                                        headers: headers)
        if answer.status == 401, let refresh = credential.refresh, let fresh = await refresh(answer.sent), fresh != answer.sent {
            // The token expired (or was refreshed elsewhere in this run): once more with the fresh one.
            credential.replace(fresh)
            answer = try await exchange(method, url, logged: logged, body: body, contentType: contentType, label: label,
                                        headers: headers)
        }
        // An answer the token was good for: whatever approval was awaited has been given.
        if answer.isSuccess { credential.approval(pending: false, answer.sent) }
        return answer
    }

    /// One request and its answer, whatever the status, with the token it was sent with.
    private func exchange(_ method: String, _ url: URL, logged: (path: String, query: [URLQueryItem]), body: Data?,
                          contentType: String, label: String, headers: [String: String] = [:]) async throws(APIError) -> Answer {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let sent = token
        let signer: (any RequestSigner)? = if case .signed(let signer) = scheme { signer } else { nil }
        // A secret in a header a source adds (its own signature, a session token) is a secret too.
        let secretHeader = headers.keys.contains { HTTPTransport.secretHeaders.contains($0.lowercased()) }
        if sent != nil || signer != nil || secretHeader {
            // Checked here too: a token set later (a sign-in) must not go out over plain http either.
            do {
                try HTTPTransport.checkTokenTransport(baseURL: baseURL, allowInsecureHTTP: allowInsecureHTTP)
            } catch {
                throw APIError(kind: .rejected, request: label, message: "\(label): not sent: \(error.message)")
            }
        }
        switch scheme {
        case .bearer: if let sent { request.setValue("Bearer \(sent)", forHTTPHeaderField: "Authorization") }
        case .basic: if let sent { request.setValue("Basic " + Data(sent.utf8).base64EncodedString(), forHTTPHeaderField: "Authorization") }
        case .signed(let signer):
            do {
                request.setValue(try signer.authorization(token: sent), forHTTPHeaderField: "Authorization")
            } catch {
                throw APIError(kind: .rejected, request: label, message: "\(label): not sent: \(TextSanitizer.clean(String(describing: error)))")
            }
        }
        if let body {
            request.httpBody = body
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }

        let data: Data
        let response: HTTPURLResponse
        let started = ContinuousClock.now
        func milliseconds() -> Int { Int((ContinuousClock.now - started) / .milliseconds(1)) }
        do {
            (data, response) = try await fetcher.fetch(request, limits: .init(maxBytes: maxBytes, deadline: deadline,
                                                                                   redirects: followsRedirects ? .sameOrigin : .never))
        } catch {
            let problem = failure(error, label: label)
            log?.request(method, logged.path, query: logged.query, status: nil, milliseconds: milliseconds(), failure: problem.message)
            throw problem
        }
        let status = response.statusCode
        log?.request(method, logged.path, query: logged.query, status: status, milliseconds: milliseconds())
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return Answer(status: status, body: data, headers: headers, sent: sent)
    }

    /// The error for a non-2xx status: 401/403 refuse the token, 404 is not found, 400/409/422
    /// refuse the request, anything else is the status; each but 401/403/404 with the server's
    /// words after it (`GET /activities: HTTP 500: injected failure: …`).
    public static func statusError(_ status: Int, label: String, serverMessage: String?) -> APIError {
        let said = serverMessage.map { ": " + TextSanitizer.clean(String($0.prefix(200))) } ?? ""
        switch status {
        case 401, 403:
            return APIError(kind: .unauthorized, request: label, message: "\(label): the token was refused (HTTP \(status))",
                            status: status)
        case 404:
            return APIError(kind: .notFound, request: label, message: "\(label): not found (HTTP 404)", status: status)
        case 400, 409, 422:
            return APIError(kind: .rejected, request: label, message: "\(label): HTTP \(status)\(said)", status: status)
        default:
            return APIError(kind: .http(status: status), request: label, message: "\(label): HTTP \(status)\(said)", status: status)
        }
    }

    /// The `error` text of a JSON error body (`{"error": "…"}`), if the server sent one.
    public static let errorField: @Sendable (Data) -> String? = { data in
        struct Body: Decodable { let error: String }
        return (try? JSONDecoder().decode(Body.self, from: data))?.error
    }

    /// "10", "0.3": a short timeout must not read as "within 0 s".
    private func seconds(_ interval: TimeInterval) -> String {
        interval == interval.rounded() ? String(Int(interval)) : String(format: "%.1f", interval)
    }

    private func failure(_ failure: HTTPFetcher.Failure, label: String) -> APIError {
        switch failure {
        case .tooLarge(let limit):
            return APIError(kind: .malformed, request: label,
                            message: "\(label): the answer is larger than \(HTTPTransport.megabytes(limit)) MB; not read")
        case .deadline(let seconds):
            return APIError(kind: .timedOut, request: label,
                            message: "\(label): \(hostAndPort) did not finish answering within \(self.seconds(seconds)) s")
        case .redirectRefused(let target):
            // The token is bound to the origin it was given for: a redirect elsewhere is not followed.
            return APIError(kind: .rejected, request: label,
                            message: "\(label): redirected to another origin (\(TextSanitizer.clean(target))); not followed")
        case .cancelled:
            return APIError(kind: .cancelled, request: label, message: "\(label): cancelled")
        case .transport(let error):
            return transportError(error, label: label)
        case .mayHaveArrived(let inner):
            return lostAnswer(self.failure(inner, label: label), inner: inner, label: label)
        }
    }

    /// A request that changes state left, and no whole answer came back: never "cannot
    /// connect" (it did connect), and always "it may have reached the server".
    private func lostAnswer(_ error: APIError, inner: HTTPFetcher.Failure, label: String) -> APIError {
        let why: String
        switch inner {
        case .deadline(let seconds): why = "\(hostAndPort) did not finish answering within \(self.seconds(seconds)) s"
        case .cancelled: why = "cancelled after it was sent"
        case .tooLarge: why = String(error.message.dropFirst(label.count + 2))
        case .transport(let underlying as URLError) where underlying.code == .timedOut:
            why = "no answer from \(hostAndPort) within \(seconds(timeout)) s"
        case .transport(let underlying as URLError) where [.networkConnectionLost, .cannotConnectToHost].contains(underlying.code):
            why = "the connection to \(hostAndPort) broke before the answer"
        default: why = String(error.message.dropFirst(label.count + 2))
        }
        return APIError(kind: error.kind == .cannotConnect ? .transport : error.kind, request: label,
                        message: "\(label): \(why); the request was sent and may have reached the server",
                        status: error.status, mayHaveArrived: true)
    }

    static func megabytes(_ bytes: Int) -> String {
        bytes % 1_048_576 == 0 ? String(bytes / 1_048_576) : String(format: "%.1f", Double(bytes) / 1_048_576)
    }

    private func transportError(_ error: Error, label: String) -> APIError {
        let hostPort = hostAndPort
        if let urlError = error as? URLError {
            switch urlError.code {
            case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet:
                return APIError(kind: .cannotConnect, request: label, message: "\(label): cannot connect to \(hostPort)")
            case .networkConnectionLost:
                // It did connect: the connection broke before the whole answer (a read; a request
                // that changes state says more, `lostAnswer`).
                return APIError(kind: .transport, request: label, message: "\(label): the connection to \(hostPort) broke before the whole answer")
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

/// What a source gives a transport to sign its requests (`AuthScheme.signed`): the whole
/// `Authorization` value for the next request, made from the token if there is one. A signer
/// that cannot sign throws, and nothing is sent; what it throws is said without its secret.
public protocol RequestSigner: Sendable {
    func authorization(token: String?) throws -> String
}
