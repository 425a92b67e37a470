import DemoData
import FeedModel
import FlyingFox
import Foundation

/// The demo API over real HTTP (FlyingFox): `qapital-tui serve`, and the end-to-end tests.
///
/// ```swift
/// let server = try DemoHTTPServer(backend: DemoBackend(), port: 0)
/// try await server.start()                 // returns once the socket listens
/// let api = QapitalHTTPAPI(baseURL: await server.baseURL)
/// await server.stop()                      // at once, in-flight requests cancelled
/// ```
/// Every request is counted, optionally delayed (`latency`) or failed (`failEvery`), recorded
/// as received (`receivedRequests()`) and, with `logRequests`, logged as one line on stderr.
public actor DemoHTTPServer {
    public struct Options: Sendable {
        /// Added before every answer.
        public var latency: Duration = .zero
        /// Answer every Nth request (1-based: the Nth, 2Nth, …) with HTTP 500; 0 never.
        public var failEvery: Int = 0
        /// One line per request on stderr: method, path and query as received, status, ms.
        public var logRequests: Bool = false

        public init(latency: Duration = .zero, failEvery: Int = 0, logRequests: Bool = false) {
            self.latency = latency
            self.failEvery = failEvery
            self.logRequests = logRequests
        }
    }

    /// A request as the server saw it, before any percent-decoding.
    struct ReceivedRequest: Sendable, Equatable {
        var method: String
        /// Path and query as they arrived, e.g. `/activities?from=2016-10-04T00:00:00%2B00:00&to=…`.
        var target: String
        var status: Int
    }

    public struct StartError: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    let host: String
    private let requestedPort: UInt16
    private let server: HTTPServer
    private let ledger: RequestLedger
    private var runTask: Task<Void, any Error>?
    /// The port bound by `start()`; the requested one before.
    private(set) var port: UInt16

    /// Serves `backend` on `host` (an IP address or `localhost`) and `port` (0: any free port).
    public init(backend: DemoBackend, host: String = "127.0.0.1", port: UInt16 = 0, options: Options = Options()) throws {
        try self.init(handler: DemoAPIHandler(backend: backend), host: host, port: port, options: options)
    }

    /// Serves any handler (see `ServeHandler`) behind the same counting, latency, faults and log
    /// (tests use it to serve deliberately broken answers).
    public init(handler: some ServeHandler, host: String = "127.0.0.1", port: UInt16 = 0, options: Options = Options()) throws {
        let ledger = RequestLedger()
        let wrapped = FlyingFoxAdapter(inner: Middleware(inner: handler, options: options, ledger: ledger))
        // FlyingFox cancels a handler after `timeout` seconds; leave room for the latency.
        let timeout = 15 + Double(options.latency.components.seconds)
        let name = host == "localhost" ? "127.0.0.1" : host
        do {
            if name.contains(":") {
                server = HTTPServer(address: try .inet6(ip6: name, port: port), timeout: timeout,
                                    pool: NoDelaySocketPool(base: HTTPServer.defaultPool()), logger: .disabled, handler: wrapped)
            } else {
                server = HTTPServer(address: try .inet(ip4: name, port: port), timeout: timeout,
                                    pool: NoDelaySocketPool(base: HTTPServer.defaultPool()), logger: .disabled, handler: wrapped)
            }
        } catch {
            throw StartError(description: "--host: not an IP address: \(TextSanitizer.clean(host)) (try 127.0.0.1 or ::1)")
        }
        self.host = name
        self.requestedPort = port
        self.port = port
        self.ledger = ledger
    }

    /// `http://127.0.0.1:PORT` (IPv6 hosts in brackets).
    public var baseURL: URL {
        URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)")!
    }

    /// Starts listening; returns once the socket is bound, or throws why it could not be.
    public func start() async throws {
        guard runTask == nil else { return }
        let server = self.server
        let task = Task { try await server.run() }
        runTask = task

        // Whichever comes first: listening, or `run()` ending (a bind error ends it at once).
        let (events, continuation) = AsyncStream.makeStream(of: Result<Void, any Error>.self)
        let listening = Task {
            do {
                try await server.waitUntilListening(timeout: 10)
                continuation.yield(.success(()))
            } catch {
                continuation.yield(.failure(error))
            }
        }
        Task {
            let result = await task.result
            continuation.yield(result.flatMap { .failure(StartError(description: "the server stopped before listening")) })
        }
        var outcome: Result<Void, any Error> = .failure(StartError(description: "the server did not start"))
        for await event in events {
            outcome = event
            break
        }
        continuation.finish()
        listening.cancel()

        switch outcome {
        case .success:
            switch await server.listeningAddress {
            case .ip4(_, let bound), .ip6(_, let bound): port = bound
            default: break
            }
        case .failure(let error):
            task.cancel()
            runTask = nil
            // FlyingSocks says "SocketError. Bind(98): Address already in use": keep the last part.
            let reason = (error as? any LocalizedError)?.errorDescription ?? "\(error)"
            let short = reason.range(of: "): ").map { String(reason[$0.upperBound...]) } ?? reason
            throw StartError(description: "cannot listen on \(host):\(requestedPort): \(short)")
        }
    }

    /// Stops at once: closes the socket and cancels requests in flight. Safe to call twice.
    public func stop() async {
        guard let task = runTask else { return }
        await server.stop(timeout: 0)
        _ = await task.result
    }

    /// Returns when the server has stopped, by `stop()` or by an error.
    public func waitUntilStopped() async {
        _ = await runTask?.result
    }

    /// `GET /activities?from=…%2B00:00&to=… 200 3ms`; control characters in the target removed.
    static func logLine(method: String, target: String, status: Int, elapsed: Duration) -> String {
        let ms = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        return "\(method) \(TextSanitizer.clean(target)) \(status) \(ms)ms"
    }

    /// The last requests answered (at most `RequestLedger.capacity`), in the order answered.
    func receivedRequests() async -> [ReceivedRequest] {
        await ledger.entries
    }

    /// How many requests were answered in all.
    func answeredCount() async -> Int {
        await ledger.answered
    }
}

/// Counts requests (the counter decides which one `--fail-every` fails) and keeps the last
/// `capacity` of them for tests, so memory stays flat however long `serve` runs.
actor RequestLedger {
    static let capacity = 256

    private var ring: [DemoHTTPServer.ReceivedRequest] = []
    private var next = 0
    private var count = 0
    private(set) var answered = 0

    func nextNumber() -> Int {
        count += 1
        return count
    }

    func record(_ entry: DemoHTTPServer.ReceivedRequest) {
        answered += 1
        if ring.count < Self.capacity {
            ring.append(entry)
        } else {
            ring[next] = entry
        }
        next = (next + 1) % Self.capacity
    }

    /// Oldest first.
    var entries: [DemoHTTPServer.ReceivedRequest] {
        ring.count < Self.capacity ? ring : Array(ring[next...] + ring[..<next])
    }

    /// What the ledger holds at most, whatever was answered: for the flat-memory test.
    var storedCount: Int { ring.count }
}

/// What every request goes through before and after the API itself.
private struct Middleware<Inner: ServeHandler>: ServeHandler {
    let inner: Inner
    let options: DemoHTTPServer.Options
    let ledger: RequestLedger

    func handle(_ request: ServeRequest) async -> ServeResponse {
        let clock = ContinuousClock()
        let started = clock.now
        let number = await ledger.nextNumber()
        if options.latency > .zero {
            try? await Task.sleep(for: options.latency)
        }
        let response: ServeResponse
        if options.failEvery > 0 && number % options.failEvery == 0 {
            response = .error(500, "injected failure: request \(number) (--fail-every \(options.failEvery))")
        } else {
            response = await inner.handle(request)
        }
        await ledger.record(.init(method: request.method, target: request.target, status: response.status))
        if options.logRequests {
            let line = DemoHTTPServer.logLine(method: request.method, target: request.target,
                                              status: response.status, elapsed: clock.now - started)
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        return response
    }
}

/// FlyingFox's requests and responses as the seam's.
private struct FlyingFoxAdapter<Inner: ServeHandler>: HTTPHandler {
    let inner: Inner

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body = try await request.bodyData
        var headers = ServeHeaders()
        for field in request.headers { headers.add(field.key.rawValue, field.value) }
        let answer = await inner.handle(ServeRequest(method: request.method.rawValue, target: request.target.rawValue,
                                                     headers: headers, body: body))
        var fields = HTTPHeaders()
        for field in answer.headers { fields.addValue(field.value, for: HTTPHeader(field.name)) }
        return HTTPResponse(statusCode: HTTPStatusCode(answer.status, phrase: ServeResponse.reason(answer.status)),
                            headers: fields, body: answer.body)
    }
}
