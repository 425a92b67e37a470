@testable import DemoServer
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The fault-injecting proxy in front of the demo server, driven over raw sockets: keep-alive
/// towards the client, each fault as the client sees it, and whether the request reached the
/// server. Every request here but the first on its connection rides a reused connection, where
/// libcurl's silent resend happens. The raw client blocks, so it runs on a thread of its own
/// (`onOwnThread`): on one of the few cooperative threads it would starve the server it waits for.
@Suite struct FaultProxyTests {
    static let rules = "GET /savingsrules HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    /// A transfer into demo goal 4: the state-changing request whose copies count.
    static func transfer() -> String {
        let body = #"{"transferId": "\#(UUID().uuidString)", "amount": 1.58}"#
        return "POST /savingsgoals/4/transfers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
    }

    @Test func passKeepsOneClientConnectionForManyRequests() async throws {
        try await withDemoServer { server, _ in
            let proxy = try FaultProxy(upstreamPort: await server.port) { _ in .pass }
            defer { proxy.stop() }
            let port = proxy.port
            let (first, second) = await onOwnThread { () -> (WireClient.Answer?, WireClient.Answer?) in
                guard let client = try? WireClient(port: port) else { return (nil, nil) }
                client.send(Self.rules)
                let first = client.readAnswer()
                client.send(Self.transfer())
                return (first, client.readAnswer())
            }
            let answer = try #require(first)

            #expect(answer.status == 200 && answer.head.contains("\r\nConnection: keep-alive\r\n"))
            #expect(second?.status == 200 && second?.body.isEmpty == false)
            let seen = proxy.requests
            #expect(seen.map(\.request.connection) == [0, 0])
            #expect(seen.map(\.request.requestOnConnection) == [0, 1])
            #expect(seen.map(\.request.method) == ["GET", "POST"])
            #expect(seen.last?.request.header("content-type") == "application/json")
            #expect(seen.map(\.forwarded) == [true, true])
            #expect(seen.map(\.upstreamStatus) == [200, 200])
            #expect(await server.receivedRequests().map(\.target) == ["/savingsrules", "/savingsgoals/4/transfers"])
        }
    }

    static let breaking: [FaultProxy.Fault] = [.dropBeforeForwarding, .dropAfterRequest, .dropMidHead, .dropAfterHead,
                                                .truncateBody, .reset]

    @Test(arguments: breaking)
    func aBreakingFaultOnAReusedConnection(fault: FaultProxy.Fault) async throws {
        try await withDemoServer { server, _ in
            let proxy = try FaultProxy(upstreamPort: await server.port) { $0.requestOnConnection == 0 ? .pass : fault }
            defer { proxy.stop() }
            let port = proxy.port
            let (first, bytes, end) = await onOwnThread { () -> (WireClient.Answer?, [UInt8], WireClient.End?) in
                guard let client = try? WireClient(port: port) else { return (nil, [], nil) }
                client.send(Self.rules)
                let first = client.readAnswer()
                client.send(Self.transfer())
                let end = client.readToEnd()
                return (first, client.received, end)
            }

            #expect(first?.status == 200)
            let forwarded = fault != .dropBeforeForwarding
            #expect(await onOwnThread { proxy.waitForRequests(2, timeout: 60) })
            #expect(proxy.requests.map(\.fault) == [.pass, fault])
            #expect(proxy.requests.map(\.forwarded) == [true, forwarded])
            #expect(await server.receivedRequests().filter { $0.method == "POST" }.count == (forwarded ? 1 : 0))

            let headEnd = WireClient.headEnd(bytes)
            switch fault {
            case .dropBeforeForwarding, .dropAfterRequest:
                #expect(end == .closed && bytes.isEmpty)
            case .dropMidHead:
                #expect(end == .closed && headEnd == nil)
                #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 2"))
            case .dropAfterHead:
                #expect(end == .closed && headEnd == bytes.count)
                #expect(WireClient.Answer(bytes: bytes, headEnd: bytes.count).length > 0)
            case .truncateBody:
                let answer = WireClient.Answer(bytes: bytes, headEnd: try #require(headEnd))
                #expect(end == .closed && !answer.body.isEmpty && answer.body.count < answer.length)
            case .reset:
                #expect(end == .reset && bytes.isEmpty)
            case .pass, .delay, .drip:
                Issue.record("not a breaking fault: \(fault)")
            }
        }
    }

    @Test func delayAndDripDeliverWhatPassDelivers() async throws {
        let faults: [FaultProxy.Fault] = [.pass, .delay(milliseconds: 100), .drip(microsecondsPerByte: 50)]
        try await withDemoServer { server, _ in
            let proxy = try FaultProxy(upstreamPort: await server.port) { faults[$0.requestOnConnection % faults.count] }
            defer { proxy.stop() }
            let port = proxy.port
            let answers = await onOwnThread { () -> [(bytes: [UInt8], elapsed: Duration)] in
                guard let client = try? WireClient(port: port) else { return [] }
                return faults.map { _ in
                    let start = ContinuousClock.now
                    client.send(Self.rules)
                    return (client.readAnswer()?.bytes ?? [], .now - start)
                }
            }
            try #require(answers.count == 3)

            #expect(!answers[0].bytes.isEmpty)
            #expect(answers[1].bytes == answers[0].bytes)
            #expect(answers[2].bytes == answers[0].bytes)
            #expect(answers[1].elapsed >= .milliseconds(100))
            #expect(answers[2].elapsed >= .microseconds(50 * answers[2].bytes.count))
            #expect(proxy.requests.map(\.request.connection) == [0, 0, 0])
        }
    }

    @Test func anUpstreamThatRefusesIsA502AndNotForwarded() async throws {
        let refusing = try RefusingPort()
        let proxy = try FaultProxy(upstreamPort: refusing.port) { _ in .pass }
        defer { proxy.stop() }
        let port = proxy.port
        let (answer, end) = await onOwnThread { () -> (WireClient.Answer?, WireClient.End?) in
            guard let client = try? WireClient(port: port) else { return (nil, nil) }
            client.send(Self.transfer())
            return (client.readAnswer(), client.readToEnd())
        }
        #expect(answer?.status == 502)
        #expect(end == .closed)
        #expect(proxy.requests.map(\.forwarded) == [false])
        #expect(proxy.requests.map(\.upstreamStatus) == [nil])
    }

    @Test func garbageIsRefusedAndNotRecorded() async throws {
        let refusing = try RefusingPort()
        let proxy = try FaultProxy(upstreamPort: refusing.port) { _ in .pass }
        defer { proxy.stop() }
        let port = proxy.port
        let (answer, end) = await onOwnThread { () -> (WireClient.Answer?, WireClient.End?) in
            guard let client = try? WireClient(port: port) else { return (nil, nil) }
            client.send("\u{1}\u{2} not http at all\r\n\r\n")
            return (client.readAnswer(), client.readToEnd())
        }
        #expect(answer?.status == 400)
        #expect(end == .closed)
        #expect(await onOwnThread { !proxy.waitForRequests(1, timeout: 0.05) })
        #expect(proxy.requests.isEmpty)
    }

    @Test func stopClosesAnOpenClientConnection() async throws {
        try await withDemoServer { server, _ in
            let proxy = try FaultProxy(upstreamPort: await server.port) { _ in .pass }
            let (answer, end) = await onOwnThread { () -> (WireClient.Answer?, WireClient.End?) in
                guard let client = try? WireClient(port: proxy.port) else { return (nil, nil) }
                client.send(Self.rules)
                let answer = client.readAnswer()
                proxy.stop()
                proxy.stop()
                return (answer, client.readToEnd())
            }
            #expect(answer?.status == 200)
            #expect(end == .closed)
        }
    }
}

/// A blocking client socket that keeps every byte it reads and says how the connection ended.
/// Each read waits at most 10 s (a safety net; nothing here waits for time to pass).
private final class WireClient {
    enum End: Equatable {
        case closed, reset, timedOut
    }

    /// One answer as it came off the wire.
    struct Answer {
        let bytes: [UInt8]
        let headEnd: Int

        var head: String { String(decoding: bytes[..<headEnd], as: UTF8.self) }
        var body: ArraySlice<UInt8> { bytes[headEnd...] }
        var status: Int { Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0 }
        /// Its `Content-Length`, 0 if it has none.
        var length: Int {
            let field = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            return Int(field?.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        }
    }

    private let fd: Int32
    private(set) var received: [UInt8] = []

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until a whole answer (head and `Content-Length` body) is in and takes it; nil if
    /// the connection ended first.
    func readAnswer() -> Answer? {
        while true {
            if let headEnd = WireClient.headEnd(received) {
                let answer = Answer(bytes: Array(received[..<headEnd]), headEnd: headEnd)
                let end = headEnd + answer.length
                if received.count >= end {
                    defer { received.removeFirst(end) }
                    return Answer(bytes: Array(received[..<end]), headEnd: headEnd)
                }
            }
            guard read() == nil else { return nil }
        }
    }

    /// Reads until the connection ends, keeping what arrives.
    func readToEnd() -> End {
        while true {
            if let end = read() { return end }
        }
    }

    /// One read; nil if bytes came, else how the connection ended.
    private func read() -> End? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += chunk[..<count]
                return nil
            }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case ECONNRESET: return .reset
            default: return .timedOut
            }
        }
    }

    /// The index just past the first blank line, or nil.
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }.map { $0 + 4 }
    }
}
