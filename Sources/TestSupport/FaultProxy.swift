import FeedModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 proxy on 127.0.0.1 that breaks chosen answers on purpose, between a client under
/// test and a look-alike server (`DemoHTTPServer`) on `127.0.0.1:upstreamPort`.
///
/// It exists to catch a client that sends a state-changing request twice on its own: libcurl
/// resends a POST when a reused keep-alive connection dies before any answer. So towards the
/// client it keeps connections alive and reads many requests on each; every request goes to the
/// upstream on a fresh connection (`Connection: close`), its whole answer is read, and only then
/// does the request's `Fault` decide what the client gets. A request is recorded, with whether
/// it reached the upstream, before its client sees anything of its fate.
///
/// ```swift
/// let proxy = try FaultProxy(upstreamPort: port) { $0.method == "POST" ? .dropAfterRequest : .pass }
/// // … the client under test talks to proxy.url …
/// #expect(proxy.requests.filter { $0.request.method == "POST" && $0.forwarded }.count == 1)
/// ```
/// Blocking sockets on threads of their own, never the cooperative pool: one thread accepts, one
/// serves each client connection. `stop()` (or deinit) shuts every socket, which ends them.
public final class FaultProxy: Sendable {
    /// What the client gets for one request.
    public enum Fault: Sendable, Hashable {
        /// The whole answer; the client connection stays open if the client asked to keep it.
        case pass
        /// The client connection closes without forwarding: the request never reaches the upstream.
        case dropBeforeForwarding
        /// Forwarded; the client connection then closes without a byte of the answer.
        case dropAfterRequest
        /// Forwarded; the client gets the first half of the answer's head, then the close.
        case dropMidHead
        /// Forwarded; the client gets the answer's head (up to its blank line), then the close.
        case dropAfterHead
        /// Forwarded; the client gets the head and half the body, then the close (with an empty
        /// body this is `dropAfterHead`).
        case truncateBody
        /// Forwarded; the client connection is then closed with SO_LINGER 0: a TCP reset.
        case reset
        /// Forwarded; the whole answer after a wait, as `pass` delivers it.
        case delay(milliseconds: Int)
        /// Forwarded; the whole answer one byte per send, with a pause after each.
        case drip(microsecondsPerByte: Int)
    }

    /// One request as the proxy read it from a client.
    public struct Request: Sendable {
        /// 0-based over every request the proxy read, on any connection.
        public let index: Int
        /// 0-based index of the client connection it came on, in the order they were accepted.
        public let connection: Int
        /// 0-based over the requests of its connection.
        public let requestOnConnection: Int
        public let method: String
        /// Path and query, as sent.
        public let target: String
        /// In the order sent.
        public let headers: [(name: String, value: String)]
        public let body: Data

        /// The first value of the header `name` (case-insensitive), or nil.
        public func header(_ name: String) -> String? {
            let wanted = name.lowercased()
            return headers.first { $0.name.lowercased() == wanted }?.value
        }
    }

    /// A request, what was done to it and whether it reached the upstream.
    public struct Seen: Sendable {
        public let request: Request
        public let fault: Fault
        /// The whole request was written to an upstream connection, so the upstream may have acted on it.
        public let forwarded: Bool
        /// The status line's code of the upstream's answer; nil if it gave none.
        public let upstreamStatus: Int?
    }

    public let port: UInt16
    private let core: Core

    /// `http://127.0.0.1:PORT`, the base URL a client under test uses.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Every request read so far, in the order read.
    public var requests: [Seen] { core.seen }

    /// Listens on 127.0.0.1 and a free port; `script` chooses each request's fault. It runs on
    /// the request's connection thread, before anything is forwarded.
    public init(upstreamPort: UInt16, script: @escaping @Sendable (Request) -> Fault) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = FaultProxy.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard bound == 0, named == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        port = UInt16(bigEndian: address.sin_port)
        // The threads hold the core, not the proxy, so dropping the proxy still reaches deinit.
        let core = Core(listener: fd, upstreamPort: upstreamPort, script: script)
        self.core = core
        Thread { core.acceptLoop() }.start()
    }

    deinit { core.stop() }

    /// Stops accepting and shuts every open socket, client and upstream (idempotent). Threads
    /// serving them end on their own.
    public func stop() { core.stop() }

    /// Waits until at least `count` requests have been recorded; false if `timeout` (a safety
    /// net, not a way to synchronise) passed first. It blocks its thread: from async code, call
    /// it through `onOwnThread`, or a wait starves the server the proxy is waiting on.
    @discardableResult
    public func waitForRequests(_ count: Int, timeout: TimeInterval = 60) -> Bool {
        waitUntil(timeout: timeout) { $0.count >= count }
    }

    /// Waits until `condition` holds for the requests recorded so far; false if `timeout`
    /// passed first. Checked again each time a request is recorded, never by polling.
    public func waitUntil(timeout: TimeInterval = 60, _ condition: ([Seen]) -> Bool) -> Bool {
        core.waitUntil(deadline: Date(timeIntervalSinceNow: timeout), condition)
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return address
    }
}

// MARK: - The threads

extension FaultProxy {
    /// What the threads share: the listener, the script, the open sockets and the records.
    private final class Core: Sendable {
        private struct State {
            var stopped = false
            /// Sockets open now. Each is closed by its owner thread under the lock, and `stop()`
            /// shuts them under the same lock, so it never touches a number reused since.
            var sockets: Set<Int32> = []
            var connections = 0
            var requestsRead = 0
            var seen: [Seen] = []
        }

        private let listener: Int32
        private let upstreamPort: UInt16
        private let script: @Sendable (Request) -> Fault
        private let state = Locked(State())
        /// Signalled after each request is recorded (the records themselves are in `state`).
        private let recorded = NSCondition()

        init(listener: Int32, upstreamPort: UInt16, script: @escaping @Sendable (Request) -> Fault) {
            self.listener = listener
            self.upstreamPort = upstreamPort
            self.script = script
        }

        var seen: [Seen] {
            state.withLock { $0.seen }.sorted { $0.request.index < $1.request.index }
        }

        func stop() {
            state.withLock { state in
                guard !state.stopped else { return }
                state.stopped = true
                // Shut, not closed: the accept loop closes the listener once accept fails.
                shutdown(listener, Int32(SHUT_RDWR))
                for socket in state.sockets { shutdown(socket, Int32(SHUT_RDWR)) }
            }
        }

        func waitUntil(deadline: Date, _ condition: ([Seen]) -> Bool) -> Bool {
            recorded.lock()
            defer { recorded.unlock() }
            while !condition(seen) {
                if !recorded.wait(until: deadline) { return condition(seen) }
            }
            return true
        }

        func acceptLoop() {
            defer { close(listener) }
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return
                }
                let connection: Int? = state.withLock { state in
                    guard !state.stopped else { return nil }
                    state.sockets.insert(client)
                    defer { state.connections += 1 }
                    return state.connections
                }
                guard let connection else {
                    close(client)
                    return
                }
                Thread { [self] in serve(client, connection: connection) }.start()
            }
        }

        // MARK: Client connections

        /// Reads requests off one client connection until it ends or a fault ends it.
        private func serve(_ client: Int32, connection: Int) {
            // Each dripped byte goes out on its own.
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            var reader = ClientReader(fd: client)
            var ending = Ending.graceful
            for requestOnConnection in 0... {
                let outcome = reader.next()
                guard case .request(let wire) = outcome else {
                    if case .refused(let status, let reason) = outcome {
                        Core.send(client, ProxyAnswer.refusal(status: status, reason: reason)[...])
                    }
                    break
                }
                let index = state.withLock { state in
                    defer { state.requestsRead += 1 }
                    return state.requestsRead
                }
                let request = Request(index: index, connection: connection, requestOnConnection: requestOnConnection,
                                      method: wire.method, target: wire.target, headers: wire.headers, body: Data(wire.body))
                let fault = script(request)
                guard fault != .dropBeforeForwarding else {
                    record(Seen(request: request, fault: fault, forwarded: false, upstreamStatus: nil))
                    break
                }
                let (forwarded, answer) = exchange(wire.forwardBytes())
                let delivery = ProxyAnswer.delivery(of: answer, keepAlive: wire.keepAlive, method: wire.method)
                record(Seen(request: request, fault: fault, forwarded: forwarded, upstreamStatus: delivery.upstreamStatus))
                guard deliver(delivery, fault: fault, to: client) else {
                    if fault == .reset { ending = .reset }
                    break
                }
            }
            release(client, ending)
        }

        /// Gives the client what `fault` says of `delivery`; true if its connection stays open.
        private func deliver(_ delivery: ProxyAnswer, fault: Fault, to client: Int32) -> Bool {
            let bytes = delivery.bytes[...]
            let head = bytes.prefix(delivery.headCount)
            switch fault {
            case .pass:
                return Core.send(client, bytes) && delivery.keepOpen
            case .delay(let milliseconds):
                Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
                return Core.send(client, bytes) && delivery.keepOpen
            case .drip(let microseconds):
                for index in bytes.indices {
                    guard Core.send(client, bytes[index...index]) else { return false }
                    if microseconds > 0 { usleep(useconds_t(microseconds)) }
                }
                return delivery.keepOpen
            case .dropBeforeForwarding, .dropAfterRequest, .reset:
                return false
            case .dropMidHead:
                Core.send(client, head.prefix(max(1, head.count / 2)))
                return false
            case .dropAfterHead:
                Core.send(client, head)
                return false
            case .truncateBody:
                Core.send(client, bytes.prefix(head.count + (bytes.count - head.count) / 2))
                return false
            }
        }

        private func record(_ seen: Seen) {
            state.withLock { $0.seen.append(seen) }
            recorded.lock()
            recorded.broadcast()
            recorded.unlock()
        }

        // MARK: The upstream

        /// Sends `request` on a fresh connection to the upstream and reads its answer to the end:
        /// whether the whole request went out, and what came back (empty if nothing did).
        private func exchange(_ request: [UInt8]) -> (forwarded: Bool, answer: [UInt8]) {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return (false, []) }
            guard adopt(fd) else {
                close(fd)
                return (false, [])
            }
            defer { release(fd, .plain) }
            // A safety net for an upstream that never closes; stop() ends the wait sooner.
            var timeout = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = FaultProxy.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0, Core.send(fd, request[...]) else { return (false, []) }
            // No half-close after the request: a server may take it as the client leaving.
            var answer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count > 0 {
                    answer += chunk[..<count]
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    return (true, answer)
                }
            }
        }

        // MARK: Sockets

        private enum Ending {
            /// FIN after what was sent; unread input is drained first so the close stays a FIN.
            case graceful
            /// SO_LINGER 0: the close is a reset.
            case reset
            case plain
        }

        /// Registers a socket this proxy opened; false (and not registered) once stopped.
        private func adopt(_ fd: Int32) -> Bool {
            state.withLock { state in
                guard !state.stopped else { return false }
                state.sockets.insert(fd)
                return true
            }
        }

        private func release(_ fd: Int32, _ ending: Ending) {
            switch ending {
            case .graceful:
                shutdown(fd, Int32(SHUT_WR))
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                var chunk = [UInt8](repeating: 0, count: 4096)
                while chunk.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) > 0 {}
            case .reset:
                var option = linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
            case .plain:
                break
            }
            state.withLock { state in
                state.sockets.remove(fd)
                close(fd)
            }
        }

        /// Sends all of `bytes`; false if the connection broke first.
        @discardableResult
        static func send(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
            var sent = bytes.startIndex
            while sent < bytes.endIndex {
                let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count > 0 {
                    sent += count
                } else if !(count < 0 && errno == EINTR) {
                    return false
                }
            }
            return true
        }
    }
}

// MARK: - The wire

/// A request read off a client connection, and what the proxy makes of it.
private struct WireRequest {
    var method: String
    var target: String
    var version: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    /// HTTP/1.1 keeps a connection unless told `close`; HTTP/1.0 only if told `keep-alive`.
    var keepAlive: Bool {
        let tokens = headers.filter { $0.name.lowercased() == "connection" }
            .flatMap { $0.value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        return version == "HTTP/1.0" ? tokens.contains("keep-alive") : !tokens.contains("close")
    }

    /// The request for a fresh upstream connection: `Connection: close`, and no `Expect`
    /// (the proxy already has the whole body).
    func forwardBytes() -> [UInt8] {
        let dropped: Set<String> = ["connection", "keep-alive", "proxy-connection", "expect"]
        var head = "\(method) \(target) \(version)\r\n"
        for field in headers where !dropped.contains(field.name.lowercased()) {
            head += "\(field.name): \(field.value)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + body
    }
}

/// Reads one request after another off a client connection (head, then a `Content-Length` body).
private struct ClientReader {
    enum Outcome {
        case request(WireRequest)
        /// The client left (or the socket was shut), maybe mid-request.
        case ended
        /// Not a request this proxy forwards: answered with `status` and closed.
        case refused(status: Int, reason: String)
    }

    static let maxHead = 64 * 1024
    static let maxBody = 16 * 1024 * 1024

    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
    }

    mutating func next() -> Outcome {
        var headEnd: Int?
        while headEnd == nil {
            // Blank lines before a request are allowed (RFC 9112 §2.2).
            let blank = buffer.prefix { $0 == 13 || $0 == 10 }.count
            if blank > 0 { buffer.removeFirst(blank) }
            headEnd = ClientReader.end(ofHeadIn: buffer[...])
            if headEnd == nil {
                if buffer.count > ClientReader.maxHead { return .refused(status: 431, reason: "the request head is too large") }
                guard fill() else { return .ended }
            }
        }
        guard let headEnd, var request = ClientReader.parseHead(buffer[..<(headEnd - 4)]) else {
            return .refused(status: 400, reason: "not an HTTP/1.x request head")
        }
        let values = request.headers.filter { $0.name.lowercased() == "content-length" }.map(\.value)
        guard !request.headers.contains(where: { $0.name.lowercased() == "transfer-encoding" }) else {
            return .refused(status: 501, reason: "request bodies by Transfer-Encoding are not supported")
        }
        guard Set(values).count <= 1, let length = values.isEmpty ? 0 : Int(values[0]), length >= 0 else {
            return .refused(status: 400, reason: "a bad Content-Length")
        }
        guard length <= ClientReader.maxBody else { return .refused(status: 413, reason: "the request body is too large") }
        let expectsContinue = request.headers.contains { $0.name.lowercased() == "expect" && $0.value.lowercased() == "100-continue" }
        if expectsContinue, length > 0, buffer.count < headEnd + length {
            // Said before the body arrives, for a client that waits for it before sending one.
            _ = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        while buffer.count < headEnd + length {
            guard fill() else { return .ended }
        }
        request.body = Array(buffer[headEnd..<(headEnd + length)])
        buffer.removeFirst(headEnd + length)
        return .request(request)
    }

    /// One read into the buffer; false when the connection ended.
    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += chunk[..<count]
                return true
            }
            if count == 0 || errno != EINTR { return false }
        }
    }

    /// The index just past the head's blank line, or nil if it has not all arrived.
    static func end(ofHeadIn bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for start in bytes.startIndex...(bytes.endIndex - 4)
        where bytes[start] == 13 && bytes[start + 1] == 10 && bytes[start + 2] == 13 && bytes[start + 3] == 10 {
            return start + 4
        }
        return nil
    }

    /// The request line and header fields (without the blank line), or nil if they are not HTTP/1.x.
    static func parseHead(_ bytes: ArraySlice<UInt8>) -> WireRequest? {
        let lines = ProxyAnswer.lines(bytes)
        let parts = lines.first?.split(separator: " ", omittingEmptySubsequences: false) ?? []
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isLetter && $0.isUppercase }), !parts[1].isEmpty,
              parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = String(line[..<colon])
            guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\t" }) else { return nil }
            headers.append((name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return WireRequest(method: String(parts[0]), target: String(parts[1]), version: String(parts[2]), headers: headers, body: [])
    }
}

/// The upstream's answer as the client would get it whole: its head rewritten for the client's
/// connection, and where the head ends, so a fault can cut it anywhere.
private struct ProxyAnswer {
    var bytes: [UInt8]
    var headCount: Int
    /// The client connection can carry another request after this answer.
    var keepOpen: Bool
    var upstreamStatus: Int?

    /// `answer` for a client that asked `keepAlive`: its `Connection` fields replaced by the
    /// client's, and a `Content-Length` added to an answer that ended by the close, so a
    /// keep-alive client can tell where it ends. An answer that cannot be framed is delivered
    /// as it came, and the connection closes after it; no answer at all becomes a 502.
    static func delivery(of answer: [UInt8], keepAlive: Bool, method: String) -> ProxyAnswer {
        guard !answer.isEmpty else {
            let bytes = refusal(status: 502, reason: "the upstream gave no answer")
            return ProxyAnswer(bytes: bytes, headCount: ClientReader.end(ofHeadIn: bytes[...]) ?? bytes.count, keepOpen: false)
        }
        guard let headEnd = ClientReader.end(ofHeadIn: answer[...]) else {
            return ProxyAnswer(bytes: answer, headCount: answer.count, keepOpen: false)
        }
        let lines = lines(answer[..<(headEnd - 4)])
        let parts = lines[0].split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            return ProxyAnswer(bytes: answer, headCount: headEnd, keepOpen: false)
        }
        let body = answer[headEnd...]
        let fields = lines.dropFirst().map { line -> (name: String, line: String) in
            (String(line.prefix { $0 != ":" }).lowercased(), line)
        }
        let lengths = fields.filter { $0.name == "content-length" }.map { Int($0.line.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces)) }
        let chunked = fields.contains { $0.name == "transfer-encoding" }
        let bodiless = method == "HEAD" || status == 204 || status == 304
        var added: [String] = []
        let framed: Bool
        if status < 200 {
            framed = false  // an interim answer the proxy did not expect: pass it on and close
        } else if chunked || (bodiless && body.isEmpty) {
            framed = true
        } else if lengths.isEmpty {
            added.append("Content-Length: \(body.count)")
            framed = true
        } else {
            framed = lengths.count == 1 && lengths[0] == body.count
        }
        let keepOpen = keepAlive && framed
        added.append(keepOpen ? "Connection: keep-alive" : "Connection: close")
        let kept = fields.filter { !["connection", "keep-alive", "proxy-connection"].contains($0.name) }.map(\.line)
        let head = Array(([lines[0]] + kept + added).map { $0 + "\r\n" }.joined().utf8) + [13, 10]
        return ProxyAnswer(bytes: head + body, headCount: head.count, keepOpen: keepOpen, upstreamStatus: status)
    }

    /// A whole answer from the proxy itself, after which it closes.
    static func refusal(status: Int, reason: String) -> [UInt8] {
        let text = [400: "Bad Request", 413: "Content Too Large", 431: "Request Header Fields Too Large",
                    501: "Not Implemented", 502: "Bad Gateway"][status] ?? "Error"
        let body = "fault proxy: \(reason)\n"
        return Array("HTTP/1.1 \(status) \(text)\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8)
    }

    /// The lines of a head, split at each CRLF.
    static func lines(_ bytes: ArraySlice<UInt8>) -> [String] {
        var lines: [String] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 13, index + 1 < bytes.endIndex, bytes[index + 1] == 10 {
                lines.append(String(decoding: bytes[start..<index], as: UTF8.self))
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        lines.append(String(decoding: bytes[start..<bytes.endIndex], as: UTF8.self))
        return lines
    }
}
