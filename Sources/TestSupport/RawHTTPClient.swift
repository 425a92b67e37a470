import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP client on 127.0.0.1 for what URLSession never sends: huge headers, garbage,
/// bodies cut short, pipelined requests, connections held open. Non-blocking; every wait has a
/// deadline.
public final class RawHTTPClient {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// One answer as read off the wire.
    public struct Response {
        public let status: Int
        public let head: String
        public let body: Data

        public func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }

        public var jsonError: String? {
            (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? String
        }
    }

    private let fd: Int32
    private var received: [UInt8] = []
    public private(set) var peerClosed = false

    public init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw Failure(description: "connect: \(String(cString: strerror(code)))")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(fd)
    }

    public static func deadline(_ seconds: Double) -> ContinuousClock.Instant {
        .now + .milliseconds(Int64(seconds * 1000))
    }

    /// Sends `bytes` until all are sent, the peer stops taking them until `deadline`, or the
    /// connection breaks; returns how many were sent.
    @discardableResult
    public func send(_ bytes: some Collection<UInt8>, deadline: ContinuousClock.Instant = deadline(10)) -> Int {
        let bytes = Array(bytes)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sent += count
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                guard wait(for: Int16(POLLOUT), until: deadline) else { return sent }
            } else {
                return sent
            }
        }
        return sent
    }

    public func send(_ text: String, deadline: ContinuousClock.Instant = deadline(10)) {
        send(Array(text.utf8), deadline: deadline)
    }

    /// Reads until a whole answer (head and `Content-Length` body) has arrived; nil if the peer
    /// closed or the deadline passed first. Bytes after it stay for the next call.
    public func readResponse(deadline: ContinuousClock.Instant = deadline(10)) -> Response? {
        while true {
            if let response = takeResponse() { return response }
            if peerClosed || !fill(until: deadline) { return nil }
        }
    }

    /// Reads (and keeps) until the peer closes; false if it has not by `deadline`.
    public func waitUntilClosed(deadline: ContinuousClock.Instant = deadline(10)) -> Bool {
        while !peerClosed {
            if !fill(until: deadline) { return peerClosed }
        }
        return true
    }

    private func takeResponse() -> Response? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard received.count >= 4,
              let headEnd = (0...(received.count - 4)).first(where: { Array(received[$0..<($0 + 4)]) == separator }) else { return nil }
        let head = String(decoding: received[..<headEnd], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        var response = Response(status: status, head: head, body: Data())
        let length = Int(response.header("Content-Length") ?? "0") ?? 0
        let bodyStart = headEnd + 4
        guard received.count - bodyStart >= length else { return nil }
        response = Response(status: status, head: head, body: Data(received[bodyStart..<(bodyStart + length)]))
        received.removeFirst(bodyStart + length)
        // 1xx answers (100 Continue) are not the answer.
        return status < 200 ? takeResponse() : response
    }

    /// One read; false when nothing came before `deadline`.
    private func fill(until deadline: ContinuousClock.Instant) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += chunk[..<count]
                return true
            }
            if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                peerClosed = true
                return true
            }
            guard wait(for: Int16(POLLIN), until: deadline) else { return false }
        }
    }

    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        let left = deadline - .now
        guard left > .zero else { return false }
        var entry = pollfd(fd: fd, events: events, revents: 0)
        let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
        return poll(&entry, 1, milliseconds) > 0
    }
}
