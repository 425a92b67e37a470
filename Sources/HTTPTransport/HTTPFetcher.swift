import CCurl
import FeedModel
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP(S) requests through libcurl, called directly, with what URLSession on Linux could not give:
///
/// - The body is read with a limit while it arrives (`maxBytes`), and at the limit the client
///   hangs up: the write callback refuses the byte past it, libcurl ends the transfer and closes
///   the connection, so nothing past the limit is read (a hostile server cannot make the client
///   read and drop it). With corelibs-foundation's URLSession, libcurl ran ahead of the delegate
///   queue that saw the limit, and an unthrottled server got 20 to 100 MB past it out per
///   request (docs/security.md).
/// - A total deadline ends a request that drips; the idle timeout ends one that goes silent
///   (nothing received for `idleTimeout`, connecting included).
/// - Cancelling never deadlocks and answers at once: the Swift task's cancellation handler only
///   sets a flag and wakes the transfer's thread (`curl_multi_wakeup`), which ends the transfer.
///   (URLSession's cancellation on Linux deadlocked: swift-corelibs-foundation #5412.)
/// - Redirects are followed here, not by libcurl, per `RedirectPolicy`: a token never goes to
///   another origin, https never becomes http, at most `maxRedirects` hops.
///
/// Each request runs on a thread of the fetcher's own (never the Swift cooperative pool), at
/// most `maxConnectionsPerHost` at once; the rest wait their turn. A thread keeps its libcurl
/// handles (and their open connections) for the next request, and leaves them to the next
/// thread when nothing waits. Only http and https are spoken; TLS certificates are verified.
/// Nothing is cached, on disk or otherwise, and no cookie is kept.
final class HTTPFetcher: Sendable {
    /// What a redirect may do.
    enum RedirectPolicy: Sendable {
        /// API requests: only within the origin (scheme, host and port) the request went to.
        case sameOrigin
        /// Pictures (sent without a token): anywhere, but never from https to http.
        case noDowngrade
        /// None followed: the 3xx answer is the answer (a one-time claim that must not be sent twice).
        case never
    }

    struct Limits: Sendable {
        /// Bodies larger than this are refused while they arrive.
        var maxBytes: Int
        /// The whole request, from start to the last byte.
        var deadline: TimeInterval
        var redirects: RedirectPolicy
    }

    /// Why a request ended without an answer.
    enum Failure: Error, Sendable {
        case tooLarge(limit: Int)
        case deadline(TimeInterval)
        /// A redirect the policy refused: to this origin ("http://host:port").
        case redirectRefused(to: String)
        case cancelled
        case transport(any Error)
        /// A request that changes state failed after its bytes began to leave (the connection
        /// was made and the request handed to it): the server may have received and acted on it.
        indirect case mayHaveArrived(Failure)
    }

    /// Whether `method` may change state on the server: such a request goes out at most once
    /// per call, on a connection of its own (`perform`), and a failure after it left says so.
    static func changesState(_ method: String) -> Bool {
        !["GET", "HEAD", "OPTIONS"].contains(method.uppercased())
    }

    /// Redirects one request follows at most.
    static let maxRedirects = 5
    /// The status lines and headers of one answer, at most (each line is at most 100 KB in libcurl).
    static let maxHeaderBytes = 256 * 1024

    private let idleTimeout: TimeInterval
    private let pool: Pool

    /// Body bytes this fetcher has read, over all its requests: every byte libcurl handed over,
    /// the refused ones included.
    var bytesRead: Int { pool.bytesRead }

    /// `idleTimeout`: how long the connection may stay silent. `maxConnectionsPerHost`: requests
    /// at once (one connection each); more wait their turn.
    init(idleTimeout: TimeInterval, maxConnectionsPerHost: Int) {
        _ = HTTPFetcher.globalInit
        self.idleTimeout = idleTimeout
        pool = Pool(threads: max(1, maxConnectionsPerHost))
    }

    /// `curl_global_init`, once per process, before any handle exists.
    private static let globalInit: Void = { _ = qc_global_init() }()

    /// Sends `request` and returns the whole body of whatever status came back.
    func fetch(_ request: URLRequest, limits: Limits) async throws(Failure) -> (Data, HTTPURLResponse) {
        let transfer = Transfer(request: request, limits: limits, idleTimeout: idleTimeout)
        let outcome: Result<(Data, HTTPURLResponse), Failure> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if transfer.begin(continuation) { pool.submit(transfer) }
            }
        } onCancel: {
            transfer.cancel()
        }
        return try outcome.get()
    }

    /// Whether a redirect from `origin` to `target` may be followed under `policy`.
    static func allows(redirect policy: RedirectPolicy, from origin: Origin, to target: Origin) -> Bool {
        switch policy {
        case .sameOrigin: target == origin
        case .noDowngrade: !(origin.scheme == "https" && target.scheme != "https")
        case .never: false
        }
    }

    /// A request's origin: what a token is bound to.
    struct Origin: Equatable, Sendable, CustomStringConvertible {
        let scheme: String
        let host: String
        let port: Int

        init(_ url: URL?) {
            scheme = url?.scheme?.lowercased() ?? ""
            host = url?.host?.lowercased() ?? ""
            port = url?.port ?? (scheme == "https" ? 443 : 80)
        }

        var description: String { "\(scheme)://\(host):\(port)" }
    }

    // MARK: - One request

    typealias Outcome = Result<(Data, HTTPURLResponse), Failure>

    /// A request between the Swift task that awaits it and the thread that carries it out.
    /// Whoever takes the continuation resumes it, once: the answer, or a cancellation at once.
    private final class Transfer: Sendable {
        let request: URLRequest
        let limits: Limits
        let idleTimeout: TimeInterval
        let started = ContinuousClock.now

        private struct State {
            var continuation: CheckedContinuation<Outcome, Never>?
            var cancelled = false
            /// The multi handle while the transfer runs, to wake it when cancelled.
            var running: Handles?
        }
        private let state = Locked(State())

        init(request: URLRequest, limits: Limits, idleTimeout: TimeInterval) {
            self.request = request
            self.limits = limits
            self.idleTimeout = idleTimeout
        }

        /// Keeps `continuation`; false (and resumed as cancelled) when the task was cancelled first.
        func begin(_ continuation: CheckedContinuation<Outcome, Never>) -> Bool {
            let cancelled = state.withLock { state in
                if !state.cancelled { state.continuation = continuation }
                return state.cancelled
            }
            if cancelled { continuation.resume(returning: .failure(.cancelled)) }
            return !cancelled
        }

        /// The Swift task was cancelled: answers now, and wakes the thread to end the transfer.
        func cancel() {
            let continuation = state.withLock { state in
                state.cancelled = true
                // Under the lock: the handles are not given up while it is woken.
                if let running = state.running { curl_multi_wakeup(running.multi) }
                return state.continuation.take()
            }
            continuation?.resume(returning: .failure(.cancelled))
        }

        var isCancelled: Bool { state.withLock { $0.cancelled } }

        func running(on handles: Handles?) {
            state.withLock { $0.running = handles }
        }

        func finish(_ outcome: Outcome) {
            state.withLock { $0.continuation.take() }?.resume(returning: outcome)
        }
    }

    // MARK: - Threads and handles

    /// The requests waiting, the threads running them, and the handles no thread holds.
    private final class Pool: Sendable {
        private struct State {
            var waiting: [Transfer] = []
            var threads = 0
            var idle: [Handles] = []
            var bytesRead = 0
        }
        private let state = Locked(State())
        private let maxThreads: Int

        init(threads: Int) { maxThreads = threads }

        var bytesRead: Int { state.withLock { $0.bytesRead } }

        func submit(_ transfer: Transfer) {
            let startThread = state.withLock { state in
                state.waiting.append(transfer)
                guard state.threads < maxThreads else { return false }
                state.threads += 1
                return true
            }
            if startThread { Thread { self.work() }.start() }
        }

        /// One thread: runs waiting requests until none is left.
        private func work() {
            var handles = state.withLock { $0.idle.popLast() } ?? Handles()
            while let transfer = next(leaving: handles) {
                if transfer.isCancelled { continue }
                if handles == nil { handles = Handles() }
                guard let current = handles else {
                    transfer.finish(.failure(.transport(HTTPFetcher.error(.unknown, "libcurl could not start a transfer"))))
                    continue
                }
                let (outcome, read) = current.run(transfer)
                state.withLock { $0.bytesRead += read }
                transfer.finish(outcome)
            }
        }

        /// The next request, or nil (the thread ends, its handles kept for the next one).
        private func next(leaving handles: Handles?) -> Transfer? {
            state.withLock { state in
                if !state.waiting.isEmpty { return state.waiting.removeFirst() }
                state.threads -= 1
                if let handles, state.idle.count < maxThreads { state.idle.append(handles) }
                return nil
            }
        }
    }

    /// A libcurl easy handle and the multi handle it runs in (which keeps its connections open
    /// between requests). Used by one thread at a time; `curl_multi_wakeup` may come from any.
    private final class Handles: @unchecked Sendable {
        let easy: UnsafeMutableRawPointer
        let multi: UnsafeMutableRawPointer

        init?() {
            guard let easy = curl_easy_init() else { return nil }
            guard let multi = curl_multi_init() else {
                curl_easy_cleanup(easy)
                return nil
            }
            self.easy = easy
            self.multi = multi
        }

        deinit {
            curl_multi_cleanup(multi)
            curl_easy_cleanup(easy)
        }

        /// The request, its redirects followed per policy; and the body bytes read on the way.
        func run(_ transfer: Transfer) -> (Outcome, Int) {
            let request = transfer.request
            guard var url = request.url else { return (.failure(.transport(URLError(.badURL))), 0) }
            let origin = Origin(url)
            var method = request.httpMethod ?? "GET"
            var body = request.httpBody
            var headers = request.allHTTPHeaderFields ?? [:]
            var read = 0
            var hops = 0
            while true {
                let exchange = Exchange(maxBytes: transfer.limits.maxBytes)
                let status = perform(transfer, url: url, method: method, headers: headers, body: body, exchange: exchange)
                read += exchange.bytesRead
                let code: Int
                switch status {
                case .failure(let failure): return (.failure(failure), read)
                case .success(let status): code = status
                }
                if transfer.limits.redirects != .never, [301, 302, 303, 307, 308].contains(code), let location = exchange.header("Location") {
                    hops += 1
                    guard hops <= HTTPFetcher.maxRedirects else {
                        return (.failure(.transport(HTTPFetcher.error(.httpTooManyRedirects,
                                                                      "more than \(HTTPFetcher.maxRedirects) redirects"))), read)
                    }
                    guard let target = URL(string: location, relativeTo: url)?.absoluteURL,
                          ["http", "https"].contains(target.scheme?.lowercased() ?? ""), !(target.host ?? "").isEmpty else {
                        return (.failure(.transport(HTTPFetcher.error(.badServerResponse, "a redirect to an unusable location"))), read)
                    }
                    let targetOrigin = Origin(target)
                    guard HTTPFetcher.allows(redirect: transfer.limits.redirects, from: origin, to: targetOrigin) else {
                        return (.failure(.redirectRefused(to: targetOrigin.description)), read)
                    }
                    if targetOrigin != origin {
                        headers = headers.filter { $0.key.lowercased() != "authorization" }
                    }
                    if (code == 303 && method != "HEAD") || ((code == 301 || code == 302) && method == "POST") {
                        method = "GET"
                        body = nil
                        headers = headers.filter { $0.key.lowercased() != "content-type" }
                    }
                    url = target
                    continue
                }
                guard let response = HTTPURLResponse(url: url, statusCode: code, httpVersion: exchange.version,
                                                     headerFields: exchange.headerFields) else {
                    return (.failure(.transport(URLError(.badServerResponse))), read)
                }
                return (.success((exchange.body, response)), read)
            }
        }

        /// One exchange, no redirect followed: the status, or why there is none.
        private func perform(_ transfer: Transfer, url: URL, method: String, headers: [String: String], body: Data?,
                             exchange: Exchange) -> Result<Int, Failure> {
            curl_easy_reset(easy)
            var list: UnsafeMutablePointer<curl_slist>?
            defer { curl_slist_free_all(list) }
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
                // A line break would start a header of the server's choosing.
                guard !name.isEmpty, !"\(name)\(value)".contains(where: { $0.isNewline || $0 == "\0" }), !name.contains(":") else {
                    return .failure(.transport(HTTPFetcher.error(.badURL, "a request header holds a line break")))
                }
                // "Name;" sends an empty header ("Name:" would remove it).
                list = curl_slist_append(list, value.isEmpty ? "\(name);" : "\(name): \(value)")
            }
            // No "Expect: 100-continue" round trip for a body.
            list = curl_slist_append(list, "Expect:")
            let sendsBody = body != nil || method == "POST"
            if sendsBody, !headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
                list = curl_slist_append(list, "Content-Type:")
            }

            let context = Unmanaged.passUnretained(exchange).toOpaque()
            var set = [
                qc_setopt_string(easy, CURLOPT_URL, url.absoluteString),
                qc_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"),
                qc_setopt_long(easy, CURLOPT_NOSIGNAL, 1),
                qc_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0),
                qc_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, HTTPFetcher.milliseconds(transfer.idleTimeout)),
                // The total deadline is `drive`'s: libcurl's own (CURLOPT_TIMEOUT_MS) would count from
                // this hop, and could end it a millisecond before, as an idle timeout.
                // gzip and deflate; the limit counts the bytes as decoded.
                qc_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""),
                qc_setopt_string(easy, CURLOPT_USERAGENT, "qapital-tui"),
                qc_setopt_slist(easy, CURLOPT_HTTPHEADER, list),
                qc_setopt_pointer(easy, CURLOPT_WRITEDATA, context),
                qc_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                    guard let data, let context else { return 0 }
                    let length = size * count
                    let accepted = Unmanaged<Exchange>.fromOpaque(context).takeUnretainedValue().receive(body: data, length)
                    return accepted ? length : 0
                },
                qc_setopt_pointer(easy, CURLOPT_HEADERDATA, context),
                qc_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
                    guard let data, let context else { return 0 }
                    let length = size * count
                    let accepted = Unmanaged<Exchange>.fromOpaque(context).takeUnretainedValue().receive(header: data, length)
                    return accepted ? length : 0
                },
            ]
            // No proxy for this machine, nor for a token over plain http (`bypassesProxy`): "" turns
            // off the one libcurl would take from the environment.
            if HTTPFetcher.bypassesProxy(url: url, headers: headers) { set.append(qc_setopt_string(easy, CURLOPT_PROXY, "")) }
            if HTTPFetcher.changesState(method) {
                // libcurl sends a request again, on its own, when a reused connection dies before
                // any answer ("Connection died, retrying a fresh connect"): for a payment that is
                // a second payment. On a fresh connection it never does; closed after, the next
                // request does not inherit it either. Only the caller decides to send again.
                set.append(qc_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1))
                set.append(qc_setopt_long(easy, CURLOPT_FORBID_REUSE, 1))
            }
            switch method {
            case "GET" where body == nil: set.append(qc_setopt_long(easy, CURLOPT_HTTPGET, 1))
            case "HEAD": set.append(qc_setopt_long(easy, CURLOPT_NOBODY, 1))
            default:
                if method != "POST" { set.append(qc_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method)) }
                if sendsBody {
                    let bytes = body ?? Data()
                    set.append(qc_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)))
                    // Copied by libcurl (empty bytes have no address: an empty string stands in).
                    set.append(bytes.withUnsafeBytes { qc_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)) })
                }
            }
            if let refused = set.first(where: { $0 != CURLE_OK }) {
                return .failure(.transport(HTTPFetcher.error(refused)))
            }

            guard curl_multi_add_handle(multi, easy) == CURLM_OK else {
                return .failure(.transport(HTTPFetcher.error(.unknown, "libcurl could not start a transfer")))
            }
            transfer.running(on: self)
            defer {
                transfer.running(on: nil)
                // Mid-answer, this closes the connection: the client hangs up.
                curl_multi_remove_handle(multi, easy)
            }
            let result = withExtendedLifetime(exchange) { drive(transfer, exchange: exchange) }
            if case .failure(let failure) = result, HTTPFetcher.changesState(method), requestLeft() {
                return .failure(.mayHaveArrived(failure))
            }
            return result
        }

        /// Whether the last exchange got as far as sending: libcurl stamps the pre-transfer time
        /// once the connection is made and the request is about to go out. Before it (no host,
        /// no connection, a TLS handshake that failed), nothing of the request left this machine.
        private func requestLeft() -> Bool {
            var microseconds: curl_off_t = 0
            guard qc_getinfo_off(easy, CURLINFO_PRETRANSFER_TIME_T, &microseconds) == CURLE_OK else { return true }
            return microseconds > 0
        }

        /// Runs the added transfer until it ends, is cancelled, goes silent or meets the deadline.
        private func drive(_ transfer: Transfer, exchange: Exchange) -> Result<Int, Failure> {
            let deadline = transfer.started + .milliseconds(HTTPFetcher.milliseconds(transfer.limits.deadline))
            let idle = Duration.milliseconds(HTTPFetcher.milliseconds(transfer.idleTimeout))
            var running: Int32 = 1
            while true {
                guard curl_multi_perform(multi, &running) == CURLM_OK else {
                    return .failure(.transport(HTTPFetcher.error(.unknown, "libcurl failed")))
                }
                if running == 0 { break }
                if transfer.isCancelled { return .failure(.cancelled) }
                let now = ContinuousClock.now
                if now >= deadline { return .failure(.deadline(transfer.limits.deadline)) }
                let silentUntil = exchange.lastReceived + idle
                if now >= silentUntil { return .failure(.transport(URLError(.timedOut))) }
                let wait = (min(deadline, silentUntil) - now) / .milliseconds(1)
                _ = curl_multi_poll(multi, nil, 0, Int32(max(1, min(1_000, wait.rounded(.up)))), nil)
            }
            var code = CURLE_OK
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                if message.pointee.msg == CURLMSG_DONE { code = message.pointee.data.result }
            }
            // The callbacks' own refusals come back as write errors.
            if let failure = exchange.failure { return .failure(failure) }
            if transfer.isCancelled { return .failure(.cancelled) }
            guard code == CURLE_OK else {
                if code == CURLE_OPERATION_TIMEDOUT, ContinuousClock.now >= deadline {
                    return .failure(.deadline(transfer.limits.deadline))
                }
                return .failure(.transport(HTTPFetcher.error(code)))
            }
            var status = 0
            guard qc_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK, (100..<1000).contains(status) else {
                return .failure(.transport(URLError(.badServerResponse)))
            }
            guard exchange.headComplete else {
                return .failure(.transport(HTTPFetcher.error(.networkConnectionLost, "the answer ended inside its head")))
            }
            return .success(status)
        }
    }

    /// What one exchange received, filled by libcurl's callbacks on the transfer's thread.
    private final class Exchange {
        let maxBytes: Int
        var body = Data()
        var bytesRead = 0
        var headerBytes = 0
        var status = 0
        var version = "HTTP/1.1"
        var headers: [(name: String, value: String)] = []
        /// The blank line that ends a final answer's head arrived: an answer cut inside its head
        /// is no answer (libcurl takes a status line and a close for a whole one).
        var headComplete = false
        var lastReceived = ContinuousClock.now
        /// Set when a callback refused what arrived.
        var failure: Failure?

        init(maxBytes: Int) { self.maxBytes = maxBytes }

        /// Body bytes; false (the transfer ends, the connection closes) past the limit.
        func receive(body data: UnsafeMutablePointer<CChar>, _ length: Int) -> Bool {
            lastReceived = .now
            bytesRead += length
            guard body.count + length <= maxBytes else {
                failure = .tooLarge(limit: maxBytes)
                return false
            }
            data.withMemoryRebound(to: UInt8.self, capacity: length) { body.append($0, count: length) }
            return true
        }

        /// One header line (status line and the blank line included); false to refuse the answer.
        func receive(header data: UnsafeMutablePointer<CChar>, _ length: Int) -> Bool {
            lastReceived = .now
            headerBytes += length
            guard headerBytes <= HTTPFetcher.maxHeaderBytes else {
                failure = .transport(HTTPFetcher.error(.badServerResponse,
                                                       "the answer's headers are larger than \(HTTPFetcher.maxHeaderBytes / 1024) KB"))
                return false
            }
            var bytes = UnsafeBufferPointer(start: data, count: length).map { UInt8(bitPattern: $0) }
            while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
            let line = String(decoding: bytes, as: UTF8.self)
            if line.hasPrefix("HTTP/") {
                // A new answer (after a 1xx): its headers start afresh.
                let parts = line.split(separator: " ", maxSplits: 2)
                version = String(parts[0])
                status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
                headers = []
            } else if line.isEmpty {
                if status >= 200 { headComplete = true }
                // The headers are complete: a declared length past the limit is refused before the body.
                if status >= 200, let length = header("Content-Length")?.trimmingCharacters(in: .whitespaces),
                   Int(length).map({ $0 > maxBytes }) ?? (!length.isEmpty && length.allSatisfy { $0.isASCII && $0.isNumber }) {
                    failure = .tooLarge(limit: maxBytes)
                    return false
                }
            } else if let colon = line.firstIndex(of: ":") {
                headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
            return true
        }

        func header(_ name: String) -> String? {
            headers.last { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        var headerFields: [String: String] {
            headers.reduce(into: [:]) { fields, header in
                fields[header.name] = fields[header.name].map { $0 + ", " + header.value } ?? header.value
            }
        }
    }

    // MARK: - Errors

    private static func milliseconds(_ interval: TimeInterval) -> Int {
        Int((max(0.001, interval) * 1_000).rounded(.up))
    }

    /// A URLError with a message of ours (libcurl's own text may name the server's certificate).
    static func error(_ code: URLError.Code, _ description: String) -> URLError {
        URLError(code, userInfo: [NSLocalizedDescriptionKey: description])
    }

    /// libcurl's result as the URLError HTTPTransport turns into a message.
    private static func error(_ code: CURLcode) -> URLError {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return error(.cannotFindHost, "cannot find the host")
        case CURLE_COULDNT_CONNECT:
            return error(.cannotConnectToHost, "cannot connect")
        case CURLE_OPERATION_TIMEDOUT:
            return error(.timedOut, "timed out")
        case CURLE_PEER_FAILED_VERIFICATION:
            return error(.serverCertificateUntrusted, "the server's TLS certificate is not trusted")
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CLIENTCERT:
            return error(.secureConnectionFailed, "the TLS connection failed")
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE:
            return error(.networkConnectionLost, "the connection was lost")
        // An answer without a status line is HTTP/0.9 to libcurl, refused as an unsupported protocol
        // (only http and https URLs reach it).
        case CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_BAD_CONTENT_ENCODING,
             CURLE_HTTP3:
            return error(.badServerResponse, "the answer is not valid HTTP")
        case CURLE_URL_MALFORMAT:
            return error(.badURL, "a malformed URL")
        case CURLE_ABORTED_BY_CALLBACK:
            return error(.cancelled, "cancelled")
        default:
            return error(.unknown, String(cString: curl_easy_strerror(code)))
        }
    }
}
