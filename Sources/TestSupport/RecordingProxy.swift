import FeedModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A stand-in for an HTTP proxy on 127.0.0.1: it keeps the head of every request that reaches
/// it (what a proxy in the middle would read) and answers 502, so a client that went through it
/// fails. Blocking sockets on threads of its own, never the cooperative pool.
public final class RecordingProxy: Sendable {
    public let port: UInt16
    private let listener: Int32
    private let state = Locked<(heads: [String], stopped: Bool)>(([], false))

    /// `http://127.0.0.1:PORT`, for `http_proxy` and its kin.
    public var url: String { "http://127.0.0.1:\(port)" }
    /// The request heads received, in order (each up to its blank line, or what came before the client left).
    public var heads: [String] { state.withLock { $0.heads } }

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard bound == 0, named == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

    /// Stops accepting (idempotent).
    public func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while !state.withLock({ $0.stopped }) {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            Thread { [self] in serve(client) }.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var head = [UInt8]()
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)), head.count < 65_536, recv(client, &byte, 1, 0) == 1 {
            head.append(byte)
        }
        // Kept before answering: once the client has its answer, the head is here.
        state.withLock { $0.heads.append(String(decoding: head, as: UTF8.self)) }
        let answer = Array("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
