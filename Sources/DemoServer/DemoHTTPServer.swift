import DemoData
import FeedModel
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// The demo API over real HTTP (SwiftNIO): `qapital-tui serve`, and the end-to-end tests.
///
/// ```swift
/// let server = try DemoHTTPServer(backend: DemoBackend(), port: 0)
/// try await server.start()                 // returns once the socket listens
/// let api = QapitalHTTPAPI(baseURL: await server.baseURL)
/// await server.stop(grace: .seconds(5))    // requests under way finish first (then 503)
/// ```
/// Requests are read within `ServeLimits` (see `HTTPConnection`); every one that reaches the
/// handler is counted, optionally delayed (`latency`) or failed (`failEvery`), recorded in a
/// bounded ledger (`receivedRequests()`) and, with `logRequests`, logged as one line on stderr.
public actor DemoHTTPServer {
    public struct Options: Sendable {
        /// Added before every answer.
        public var latency: Duration = .zero
        /// Answer every Nth request (1-based: the Nth, 2Nth, …) with HTTP 500; 0 never.
        public var failEvery: Int = 0
        /// One line per request on stderr: method, path and query as received, status, ms.
        public var logRequests: Bool = false
        /// Sizes, timeouts and the connection cap.
        public var limits = ServeLimits()

        public init(latency: Duration = .zero, failEvery: Int = 0, logRequests: Bool = false, limits: ServeLimits = ServeLimits()) {
            self.latency = latency
            self.failEvery = failEvery
            self.logRequests = logRequests
            self.limits = limits
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

    /// What `stop(grace:)` did.
    public struct StopReport: Sendable, Equatable {
        /// Requests answered by their handler after the stop began (under way, or read and waiting).
        public var finished: Int
        /// Requests still under way at the end of the grace period, answered 503.
        public var cutOff: Int
    }

    let host: String
    private let requestedPort: UInt16
    private let address: SocketAddress
    private let handler: any ServeHandler
    private let options: Options
    private let ledger: RequestLedger
    private let stats = ServerStats()
    private let connections: ConnectionRegistry
    private var channel: (any Channel)?
    private var stopped = false
    /// The port bound by `start()`; the requested one before.
    private(set) var port: UInt16

    /// Serves `backend` on `host` (an IP address or `localhost`) and `port` (0: any free port).
    public init(backend: DemoBackend, host: String = "127.0.0.1", port: UInt16 = 0, options: Options = Options()) throws {
        try self.init(handler: DemoAPIHandler(backend: backend), host: host, port: port, options: options)
    }

    /// Serves any handler (see `ServeHandler`) behind the same limits, counting, latency,
    /// faults and log (tests use it to serve deliberately broken answers).
    public init(handler: some ServeHandler, host: String = "127.0.0.1", port: UInt16 = 0, options: Options = Options()) throws {
        let name = host == "localhost" ? "127.0.0.1" : host
        do {
            address = try SocketAddress(ipAddress: name, port: Int(port))
        } catch {
            throw StartError(description: "--host: not an IP address: \(TextSanitizer.clean(host)) (try 127.0.0.1 or ::1)")
        }
        let ledger = RequestLedger()
        self.handler = Middleware(inner: handler, options: options, ledger: ledger)
        self.options = options
        self.ledger = ledger
        self.connections = ConnectionRegistry(limit: options.limits.maxConnections)
        self.host = name
        self.requestedPort = port
        self.port = port
    }

    /// `http://127.0.0.1:PORT` (IPv6 hosts in brackets).
    public var baseURL: URL {
        URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)")!
    }

    /// Starts listening; returns once the socket is bound, or throws why it could not be.
    public func start() async throws {
        guard channel == nil, !stopped else { return }
        let handler = self.handler
        let limits = options.limits
        let connections = self.connections
        let stats = self.stats
        let log: (@Sendable (String) -> Void)? = options.logRequests ? DemoHTTPServer.writeLogLine : nil
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 512)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { channel in
                let admitted = connections.admit(channel)
                if admitted {
                    channel.closeFuture.whenComplete { _ in connections.remove(channel) }
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        HTTPConnection(handler: handler, limits: limits, log: log, stats: stats, rejected: !admitted))
                }
            }
        do {
            let bound = try await bootstrap.bind(to: address).get()
            channel = bound
            port = UInt16(bound.localAddress?.port ?? Int(requestedPort))
        } catch {
            let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
            throw StartError(description: "cannot listen on \(host):\(requestedPort): \(reason)")
        }
    }

    /// Stops at once: closes the socket and every connection; requests under way get 503.
    /// Safe to call twice.
    public func stop() async {
        await stop(grace: .zero)
    }

    /// Stops accepting (the listening socket is closed), closes idle connections, lets requests
    /// under way finish for up to `grace` (their answers say `Connection: close`), then answers
    /// the rest 503 and closes everything.
    @discardableResult
    public func stop(grace: Duration) async -> StopReport {
        guard let channel, !stopped else { return StopReport(finished: 0, cutOff: 0) }
        stopped = true
        stats.beginStopping()
        connections.stopAdmitting()
        try? await channel.close()
        let open = connections.all()
        for connection in open {
            connection.pipeline.fireUserInboundEventTriggered(ConnectionEvent.stopGracefully)
        }
        let loop = channel.eventLoop
        let deadline = loop.scheduleTask(in: .nanoseconds(HTTPConnection.nanoseconds(grace))) {
            for connection in open {
                connection.pipeline.fireUserInboundEventTriggered(ConnectionEvent.stopNow)
            }
        }
        try? await EventLoopFuture.andAllComplete(open.map(\.closeFuture), on: loop).get()
        deadline.cancel()
        let cutOff = stats.cutOffCount
        return StopReport(finished: stats.finishedWhileStopping, cutOff: cutOff)
    }

    /// Returns when the server has stopped listening, by `stop()` or by an error.
    public func waitUntilStopped() async {
        guard let channel else { return }
        try? await channel.closeFuture.get()
    }

    @Sendable static func writeLogLine(_ line: String) {
        StandardStream.error.line(line)
    }

    /// `GET /activities?from=…%2B00:00&to=… 200 3ms`; control characters in the target removed.
    static func logLine(method: String, target: String, status: Int, elapsed: Duration) -> String {
        let ms = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        return "\(method) \(TextSanitizer.clean(target)) \(status) \(ms)ms"
    }

    /// The last requests answered (at most `RequestLedger.capacity`), in the order answered.
    func receivedRequests() -> [ReceivedRequest] {
        ledger.entries
    }

    /// The request ledger, for tests of its bound.
    nonisolated var requestLedger: RequestLedger { ledger }

    /// Connections open now.
    nonisolated var openConnections: Int { connections.count }

    /// Requests being handled now.
    nonisolated var requestsUnderWay: Int { stats.inFlight }
}

/// Counts requests (the counter decides which one `--fail-every` fails) and keeps the last
/// `capacity` of them for tests, so memory stays flat however long `serve` runs.
final class RequestLedger: Sendable {
    static let capacity = 256

    private struct State {
        var ring: [DemoHTTPServer.ReceivedRequest] = []
        var next = 0
        var count = 0
        var answered = 0
    }

    private let state = NIOLockedValueBox(State())

    func nextNumber() -> Int {
        state.withLockedValue {
            $0.count += 1
            return $0.count
        }
    }

    func record(_ entry: DemoHTTPServer.ReceivedRequest) {
        state.withLockedValue {
            $0.answered += 1
            if $0.ring.count < Self.capacity {
                $0.ring.append(entry)
            } else {
                $0.ring[$0.next] = entry
            }
            $0.next = ($0.next + 1) % Self.capacity
        }
    }

    /// Oldest first.
    var entries: [DemoHTTPServer.ReceivedRequest] {
        state.withLockedValue { $0.ring.count < Self.capacity ? $0.ring : Array($0.ring[$0.next...] + $0.ring[..<$0.next]) }
    }

    /// How many requests were answered in all.
    var answered: Int { state.withLockedValue { $0.answered } }

    /// What the ledger holds, at most `capacity` whatever was answered: for the flat-memory test.
    var storedCount: Int { state.withLockedValue { $0.ring.count } }
}

/// The open connections, up to a cap; the server tells them when it stops.
final class ConnectionRegistry: Sendable {
    private struct State {
        var open: [ObjectIdentifier: any Channel] = [:]
        var admitting = true
    }

    private let limit: Int
    private let state = NIOLockedValueBox(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts `channel` in, unless the cap is reached or the server is stopping.
    func admit(_ channel: any Channel) -> Bool {
        state.withLockedValue {
            guard $0.admitting, $0.open.count < limit else { return false }
            $0.open[ObjectIdentifier(channel)] = channel
            return true
        }
    }

    func remove(_ channel: any Channel) {
        _ = state.withLockedValue { $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func stopAdmitting() {
        state.withLockedValue { $0.admitting = false }
    }

    func all() -> [any Channel] {
        state.withLockedValue { Array($0.open.values) }
    }

    var count: Int { state.withLockedValue { $0.open.count } }
}

/// What every request goes through before and after the API itself.
private struct Middleware<Inner: ServeHandler>: ServeHandler {
    let inner: Inner
    let options: DemoHTTPServer.Options
    let ledger: RequestLedger

    func handle(_ request: ServeRequest) async -> ServeResponse {
        let clock = ContinuousClock()
        let started = clock.now
        let number = ledger.nextNumber()
        if options.latency > .zero {
            try? await Task.sleep(for: options.latency)
        }
        let response: ServeResponse
        if options.failEvery > 0 && number % options.failEvery == 0 {
            response = .error(500, "injected failure: request \(number) (--fail-every \(options.failEvery))")
        } else {
            response = await inner.handle(request)
        }
        ledger.record(.init(method: request.method, target: request.target, status: response.status))
        if options.logRequests {
            let line = DemoHTTPServer.logLine(method: request.method, target: request.target,
                                              status: response.status, elapsed: clock.now - started)
            StandardStream.error.line(line)
        }
        return response
    }
}
