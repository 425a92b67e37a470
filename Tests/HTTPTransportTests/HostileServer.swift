import FeedModel
import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A raw HTTP/1.1 server on 127.0.0.1 that misbehaves on purpose: bodies without end, bytes
/// that drip, redirects. It runs on threads of its own (blocking sockets), never on the
/// cooperative pool, records what it received, and counts the body bytes it managed to send.
final class HostileServer: Sendable {
    enum Behavior: Sendable {
        /// `Transfer-Encoding: chunked`, 64 KB chunks as fast as loopback takes them, until the
        /// client goes away or `cap` bytes.
        case endlessChunked(cap: Int)
        /// Declares `Content-Length: length`, then sends nothing.
        case declaredLength(Int)
        /// `Content-Length: length`, then one byte every `interval` seconds.
        case drip(length: Int, interval: TimeInterval)
        /// `302 Found` to `location`.
        case redirect(location: String)
        /// `200` with this JSON body.
        case json(String)
        /// These bytes, whatever they are, then the connection closes.
        case raw(String)
    }

    /// One request as it arrived: its request line and header lines.
    struct Received: Sendable {
        let requestLine: String
        let headers: [String]

        func header(_ name: String) -> String? {
            headers.first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
    }

    let port: UInt16
    private let listener: Int32
    private let behavior: @Sendable (String) -> Behavior
    private let state = Locked<(received: [Received], bodyBytesSent: Int, stopped: Bool, clientLeft: Int)>(([], 0, false, 0))

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    var received: [Received] { state.withLock { $0.received } }
    var bodyBytesSent: Int { state.withLock { $0.bodyBytesSent } }
    /// Connections the client closed while the server was still sending.
    var clientsLeft: Int { state.withLock { $0.clientLeft } }
    /// The first byte of a body went out.
    let bodyStarted = TestSignal()
    /// A client closed a connection the server was still sending on.
    let clientLeft = TestSignal()

    /// `behavior` chooses the answer from the request path.
    init(_ behavior: @escaping @Sendable (String) -> Behavior) throws {
        self.behavior = behavior
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    /// Stops accepting; connections being served end at their next write.
    func stop() {
        state.withLock { $0.stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        while !stopped {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            Thread { [self] in serve(client) }.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var head = [UInt8]()
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)), head.count < 65_536 {
            guard recv(client, &byte, 1, 0) == 1 else { return }
            head.append(byte)
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard let requestLine = lines.first else { return }
        state.withLock { $0.received.append(Received(requestLine: requestLine, headers: Array(lines.dropFirst()))) }
        let path = requestLine.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        switch behavior(path) {
        case .endlessChunked(let cap):
            guard write(client, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n") else { return }
            let chunk = "10000\r\n" + String(repeating: "[", count: 65_536) + "\r\n"
            while !stopped && bodyBytesSent < cap {
                guard write(client, chunk) else {
                    state.withLock { $0.clientLeft += 1 }
                    clientLeft.fire()
                    return
                }
                state.withLock { $0.bodyBytesSent += 65_536 }
                bodyStarted.fire()
            }
        case .declaredLength(let length):
            _ = write(client, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n")
            var ignored: UInt8 = 0
            _ = recv(client, &ignored, 1, 0)  // until the client closes
        case .drip(let length, let interval):
            guard write(client, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n") else { return }
            for _ in 0..<length where !stopped {
                guard write(client, " ") else {
                    state.withLock { $0.clientLeft += 1 }
                    clientLeft.fire()
                    return
                }
                state.withLock { $0.bodyBytesSent += 1 }
                bodyStarted.fire()
                usleep(UInt32(interval * 1_000_000))
            }
        case .redirect(let location):
            _ = write(client, "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n")
        case .json(let body):
            _ = write(client, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        case .raw(let text):
            _ = write(client, text)
        }
    }

    /// The whole text, or false when the client went away.
    private func write(_ client: Int32, _ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            bytes = bytes.dropFirst(sent)
        }
        return true
    }
}
