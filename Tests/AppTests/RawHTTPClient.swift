import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP client on 127.0.0.1 for what URLSession never sends: huge headers, garbage,
/// bodies cut short, pipelined requests, connections held open. Non-blocking; every wait has a
/// deadline.
final class RawHTTPClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// One answer as read off the wire.
    struct Response {
        let status: Int
        let head: String
        let body: Data

        func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }

        var jsonError: String? {
            (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? String
        }
    }

    private let fd: Int32
    private var received: [UInt8] = []
    private(set) var peerClosed = false

    init(port: UInt16) throws {
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

    static func deadline(_ seconds: Double) -> ContinuousClock.Instant {
        .now + .milliseconds(Int64(seconds * 1000))
    }

    /// Sends `bytes` until all are sent, the peer stops taking them until `deadline`, or the
    /// connection breaks; returns how many were sent.
    @discardableResult
    func send(_ bytes: some Collection<UInt8>, deadline: ContinuousClock.Instant = deadline(10)) -> Int {
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

    func send(_ text: String, deadline: ContinuousClock.Instant = deadline(10)) {
        send(Array(text.utf8), deadline: deadline)
    }

    /// Reads until a whole answer (head and `Content-Length` body) has arrived; nil if the peer
    /// closed or the deadline passed first. Bytes after it stay for the next call.
    func readResponse(deadline: ContinuousClock.Instant = deadline(10)) -> Response? {
        while true {
            if let response = takeResponse() { return response }
            if peerClosed || !fill(until: deadline) { return nil }
        }
    }

    /// Reads (and keeps) until the peer closes; false if it has not by `deadline`.
    func waitUntilClosed(deadline: ContinuousClock.Instant = deadline(10)) -> Bool {
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

/// `qapital-tui serve` as a child process, with its stderr kept.
final class ServeProcess {
    let process = Process()
    let port: UInt16
    private let errors = Pipe()
    private var firstLines: String

    init(_ arguments: [String] = []) throws {
        process.executableURL = TerminalSession.binary
        process.arguments = ["serve", "--port", "0"] + arguments
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The first line names the address (bounded by the suite's time limit).
        var text = ""
        while !text.contains("\n") {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        firstLines = text
        guard let address = text.split(separator: " ").first(where: { $0.hasPrefix("http://127.0.0.1:") }),
              let port = UInt16(address.split(separator: ":").last ?? "") else {
            process.terminate()
            throw RawHTTPClient.Failure(description: "serve did not say where it listens: \(text)")
        }
        self.port = port
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    func client() throws -> RawHTTPClient {
        try RawHTTPClient(port: port)
    }

    /// Closes the reading end of serve's stderr, as `serve 2>&1 | head -1` does once `head` has its line.
    func closeStderr() {
        try? errors.fileHandleForReading.close()
    }

    /// Sends `signal` and waits for the exit, without reading stderr (closed by `closeStderr`).
    func stopWithoutReading(_ signal: Int32 = SIGTERM) -> Int32 {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Sends `signal` and waits for the exit; returns the status and everything written on stderr.
    func stop(_ signal: Int32 = SIGTERM) -> (status: Int32, stderr: String) {
        kill(process.processIdentifier, signal)
        let rest = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, firstLines + String(decoding: rest, as: UTF8.self))
    }
}

/// Runs blocking socket work on a thread of its own: the in-process server's handlers run on
/// the cooperative pool (two threads here), which a test blocked in `poll` would starve.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
