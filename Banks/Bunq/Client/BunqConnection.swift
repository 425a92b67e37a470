import FeedModel
import Foundation
import HTTPTransport

/// bunq's API context and its requests (docs/banks.md, "bunq"): the three-step handshake once
/// per (machine, base URL, key), every header on every request, signed bodies, every answer's
/// signature verified, pacing, a 429 waited out once, and an expired session reopened once
/// (single-flight) with the request retried once.
///
/// The API key, the private key and the session and installation tokens never leave this type
/// except to bunq and to the context file (0600): not in a log line, an error or a description.
public final class BunqConnection: Sendable, CustomStringConvertible {
    public enum Auth: Sendable { case none, installation, session }

    public let transport: HTTPTransport
    private let apiKey: String
    private let file: BunqContextFile?
    private let state: Locked<BunqContext>
    private let keyPair: Locked<BunqKeyPair>
    public let pacer: BunqPacer
    /// Seconds on a monotonic clock (the pacer's).
    private let clock: @Sendable () -> Double
    private let now: @Sendable () -> Date
    private let sleep: @Sendable (Double) async -> Void
    private let gate = SessionGate()
    private let deviceDescription: String
    /// The last `X-Bunq-Warning`, cleaned (for the status bar).
    let lastWarning = Locked<String?>(nil)
    /// Whether bunq refused the key (a second refusal after reopening the session).
    let refused = Locked(false)
    /// Sessions opened by this connection (tests: one per expiry, never one per request).
    let sessionsOpened = Locked(0)

    public static let userAgent = "qapital-tui/1"
    public static let unknownGeolocation = "0 0 0 0 000"
    public static let defaultSessionSeconds = 3600

    public init(transport: HTTPTransport, apiKey: String, file: BunqContextFile?, pacer: BunqPacer = BunqPacer(),
                clock: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime },
                now: @escaping @Sendable () -> Date = { Date() },
                sleep: @escaping @Sendable (Double) async -> Void = { seconds in
                    try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
                },
                deviceDescription: String = "qapital-tui on " + ProcessInfo.processInfo.hostName) throws(APIError) {
        self.transport = transport
        self.apiKey = apiKey
        self.file = file
        self.pacer = pacer
        self.clock = clock
        self.now = now
        self.sleep = sleep
        self.deviceDescription = TextSanitizer.clean(String(deviceDescription.prefix(100)))
        let digest = BunqContext.digest(apiKey: apiKey)
        let base = transport.baseURL.absoluteString
        if let kept = file?.load(), kept.keyDigest == digest, kept.baseURL == base, let pair = try? BunqKeyPair(privateKeyPEM: kept.privateKeyPEM) {
            state = Locked(kept)
            keyPair = Locked(pair)
        } else {
            let pair: BunqKeyPair
            do {
                pair = try BunqKeyPair.generate()
            } catch {
                throw APIError(kind: .transport, request: "bunq", message: "bunq: \(error.message)")
            }
            state = Locked(BunqContext(baseURL: base, keyDigest: digest, privateKeyPEM: pair.privateKeyPEM))
            keyPair = Locked(pair)
        }
    }

    public var description: String { "BunqConnection(\(transport.hostAndPort), secrets not shown)" }

    public var context: BunqContext { state.withLock { $0 } }
    public var userId: Int? { state.withLock { $0.userId } }
    public var userName: String? { state.withLock { $0.userName } }
    public var sessionCount: Int { sessionsOpened.withLock { $0 } }

    // MARK: - The context

    /// Installation, device registration and a session, each only if the kept context lacks it.
    public func prepare() async throws(APIError) {
        let kept = context
        if kept.installationToken == nil || kept.serverPublicKeyPEM == nil { try await install() }
        if context.deviceId == nil { try await registerDevice() }
        if context.sessionToken == nil || context.userId == nil || !sessionValid(context) {
            _ = try await renewSession(expired: context.sessionToken)
        }
    }

    private func sessionValid(_ context: BunqContext) -> Bool {
        guard context.sessionToken != nil, let expiry = context.sessionExpiry else { return false }
        return expiry.timeIntervalSince(now()) > 5
    }

    private func install() async throws(APIError) {
        let publicPEM = keyPair.withLock { $0.publicKeyPEM }
        let body = try BunqConnection.json(["client_public_key": publicPEM])
        let envelope = try await call("POST", "/installation", body: body, auth: .none)
        guard let token = envelope.token?.token, let serverKey = envelope.serverPublicKey,
              (try? BunqPublicKey(pem: serverKey)) != nil else {
            throw APIError(kind: .malformed, request: "POST /installation",
                           message: "POST /installation: bunq's answer has no installation token or server key")
        }
        update { context in
            context.installationToken = token
            context.serverPublicKeyPEM = serverKey
            context.deviceId = nil
            context.sessionToken = nil
            context.sessionExpiry = nil
        }
    }

    private func registerDevice() async throws(APIError) {
        let body = try BunqConnection.json(["description": deviceDescription, "secret": apiKey])
        let envelope = try await call("POST", "/device-server", body: body, auth: .installation)
        guard let id = envelope.ids.first else {
            throw APIError(kind: .malformed, request: "POST /device-server", message: "POST /device-server: bunq's answer has no id")
        }
        update { $0.deviceId = id }
    }

    /// Opens a new session (single-flight: callers that find one being opened wait for it) and
    /// answers its token. `expired` is the token a refusal came with: a newer one is answered as is.
    func renewSession(expired: String?) async throws(APIError) -> String {
        do {
            return try await gate.token(current: { [self] in
                let context = self.context
                guard let token = context.sessionToken, token != expired, sessionValid(context) else { return nil }
                return token
            }, open: { [self] () async throws(APIError) -> String in try await self.openSession() })
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(kind: .transport, request: "POST /session-server", message: "POST /session-server: \(error)")
        }
    }

    private func openSession() async throws(APIError) -> String {
        let body = try BunqConnection.json(["secret": apiKey])
        let envelope: Bunq.Envelope
        do {
            envelope = try await call("POST", "/session-server", body: body, signed: true, auth: .installation)
        } catch where error.kind == .unauthorized {
            // The installation is not known (any more) to this server: once more from the start.
            try await install()
            try await registerDevice()
            envelope = try await call("POST", "/session-server", body: body, signed: true, auth: .installation)
        }
        guard let token = envelope.token?.token, let user = envelope.user else {
            throw APIError(kind: .malformed, request: "POST /session-server",
                           message: "POST /session-server: bunq's answer has no session token or user")
        }
        let seconds = user.sessionTimeout.flatMap { $0 > 0 ? $0 : nil } ?? BunqConnection.defaultSessionSeconds
        update { context in
            context.sessionToken = token
            context.sessionExpiry = now().addingTimeInterval(Double(min(seconds, 30 * 86_400)))
            context.userId = user.id
            context.userName = TextSanitizer.clean(user.displayName ?? user.publicNickName ?? "")
        }
        sessionsOpened.withLock { $0 += 1 }
        return token
    }

    private func update(_ change: (inout BunqContext) -> Void) {
        let changed = state.withLock { context -> BunqContext in
            change(&context)
            return context
        }
        // Kept for the next run; a context that cannot be written costs a new session next time.
        try? file?.save(changed)
    }

    /// Forgets the session (tests: the next request opens one).
    func dropSession() { update { $0.sessionToken = nil } }

    // MARK: - Requests

    /// One request: paced, with every header, signed when asked, its answer verified. A 429 is
    /// waited out and tried once more; a session refused (401/403) is reopened once and the
    /// request tried once more. A 2xx answer that does not verify throws `unverified`.
    public func call(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil, signed: Bool = false,
                     auth: Auth = .session) async throws(APIError) -> Bunq.Envelope {
        let label = "\(method) \(BunqPacer.endpoint(path))"
        var retriedRate = false
        var reopened = false
        while true {
            let token: String?
            switch auth {
            case .none: token = nil
            case .installation: token = context.installationToken
            case .session:
                let context = self.context
                if let current = context.sessionToken, sessionValid(context) { token = current } else {
                    token = try await renewSession(expired: context.sessionToken)
                }
            }
            let wait = pacer.reserve(method: method, path: path, now: clock())
            if wait > 0 { await sleep(wait) }
            var headers = ["Cache-Control": "no-cache", "User-Agent": BunqConnection.userAgent,
                           "X-Bunq-Client-Request-Id": UUID().uuidString.lowercased(),
                           "X-Bunq-Geolocation": BunqConnection.unknownGeolocation, "X-Bunq-Language": "en_US",
                           "X-Bunq-Region": "nl_NL"]
            if let token { headers["X-Bunq-Client-Authentication"] = token }
            if signed, let body {
                do {
                    headers["X-Bunq-Client-Signature"] = try keyPair.withLock { pair throws(BunqCryptoError) in try pair.sign(body) }
                } catch {
                    throw APIError(kind: .transport, request: label, message: "\(label): not sent: \(error.message)")
                }
            }
            let answer = try await transport.answer(method, path, query: query, body: body, contentType: "application/json",
                                                    label: label, headers: headers)
            if let warning = answer.header("X-Bunq-Warning") {
                lastWarning.withLock { $0 = TextSanitizer.clean(String(warning.prefix(160))) }
            }
            if answer.isSuccess {
                if auth != .none {
                    guard let pem = self.context.serverPublicKeyPEM, let key = try? BunqPublicKey(pem: pem),
                          key.verifies(answer.header("X-Bunq-Server-Signature"), body: answer.body) else {
                        throw BunqConnection.unverified(label)
                    }
                }
                do {
                    let envelope = try JSONDecoder().decode(Bunq.Envelope.self, from: answer.body)
                    return envelope
                } catch {
                    throw APIError(kind: .malformed, request: label, message: "\(label): bunq's answer is not readable")
                }
            }
            let said = (try? JSONDecoder().decode(Bunq.ErrorBody.self, from: answer.body))?.text
            // For a bug report to bunq: its id of this answer (never a secret), and what it said.
            if let log = transport.log {
                let id = answer.header("X-Bunq-Client-Response-Id").map { TextSanitizer.clean(String($0.prefix(64))) } ?? "none"
                log.note("bunq: \(label) answered HTTP \(answer.status), response id \(id)\(said.map { ": " + $0 } ?? "")")
            }
            if answer.status == 429 {
                guard !retriedRate else {
                    throw APIError(kind: .http(status: 429), request: label,
                                   message: "\(label): bunq's rate limit: try again in a minute (HTTP 429)", status: 429)
                }
                retriedRate = true
                await sleep(BunqPacer.waitAfter429(text: said, path: path, retryAfter: answer.header("Retry-After")))
                continue
            }
            if auth == .session, answer.status == 401 || answer.status == 403, !reopened {
                reopened = true
                _ = try await renewSession(expired: token)
                continue
            }
            if answer.status == 401 || answer.status == 403, auth == .session { refused.withLock { $0 = true } }
            throw BunqConnection.error(status: answer.status, said: said, label: label)
        }
    }

    public static let unverifiedText = "bunq's answer could not be verified"

    static func unverified(_ label: String) -> APIError {
        APIError(kind: .malformed, request: label, message: "\(label): \(unverifiedText)")
    }

    /// Whether an error is an answer that did not verify (for a payment: the outcome is unknown).
    public static func isUnverified(_ error: APIError) -> Bool { error.kind == .malformed && error.message.hasSuffix(unverifiedText) }

    static func error(status: Int, said: String?, label: String) -> APIError {
        let words = said.map { ": " + $0 } ?? ""
        switch status {
        case 401, 403:
            return APIError(kind: .unauthorized, request: label, message: "\(label): bunq refused the key or session (HTTP \(status))\(words)",
                            status: status)
        case 404:
            return APIError(kind: .notFound, request: label, message: "\(label): not found (HTTP 404)", status: status)
        case 466:
            return APIError(kind: .rejected, request: label, message: "\(label): bunq wants a signed request (HTTP 466)", status: status)
        case 491:
            return APIError(kind: .http(status: status), request: label, message: "\(label): bunq is under maintenance (HTTP 491)",
                            status: status)
        case 400, 405, 409, 422, 490:
            return APIError(kind: .rejected, request: label, message: "\(label): HTTP \(status)\(words)", status: status)
        default:
            return APIError(kind: .http(status: status), request: label, message: "\(label): HTTP \(status)\(words)", status: status)
        }
    }

    static func json(_ value: [String: String]) throws(APIError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw APIError(kind: .transport, request: "bunq", message: "bunq: a request body could not be written")
        }
    }
}

/// One session opening at a time: callers that come while one is being opened wait for it.
actor SessionGate {
    private var opening: Task<String, any Error>?

    func token(current: @Sendable () -> String?, open: @escaping @Sendable () async throws(APIError) -> String) async throws -> String {
        if let opening { return try await opening.value }
        if let token = current() { return token }
        let task = Task<String, any Error> { try await open() }
        opening = task
        defer { opening = nil }
        return try await task.value
    }
}
