import DemoServer
import FeedModel
import Foundation
import HTTPTransport
import Testing
import TestSupport

/// Issue 46: the transport never sends a request twice on its own. libcurl resends a request
/// when a reused keep-alive connection dies before any answer; these tests make exactly that
/// happen (a GET leaves a kept-alive connection, then the connection dies under the next request
/// after the server read it) and count the copies that arrive.
@Suite(.timeLimit(.minutes(2))) struct TransportOnceTests {
    static let changing = ["POST", "PUT", "PATCH", "DELETE"]
    static let breaking: [FaultProxy.Fault] = [.dropBeforeForwarding, .dropAfterRequest, .dropMidHead, .dropAfterHead, .truncateBody, .reset]

    /// Through a proxy whose script breaks every request of `method`: a GET, the request, a GET.
    static func exchange(_ method: String, fault: FaultProxy.Fault) async throws -> (error: APIError?, proxy: [FaultProxy.Seen]) {
        let server = try DemoHTTPServer(handler: CannedHandler(contentType: "application/json", body: "{\"ok\":true}"))
        try await server.start()
        let proxy = try FaultProxy(upstreamPort: UInt16(await server.baseURL.port ?? 0)) { $0.method == method ? fault : .pass }
        defer { proxy.stop() }
        let transport = HTTPTransport(baseURL: URL(string: proxy.url)!, token: nil)
        var lost: APIError?
        do {
            _ = try await transport.send("GET", "/first")
            do {
                _ = try await transport.send(method, "/change", body: Data("{\"amount\":1}".utf8))
            } catch {
                lost = error
            }
            // The pool still works after the broken connection.
            _ = try await transport.send("GET", "/after")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        return (lost, proxy.requests)
    }

    @Test(arguments: changing) func aStateChangingRequestOnADyingConnectionArrivesOnce(method: String) async throws {
        for fault in Self.breaking {
            let (error, seen) = try await Self.exchange(method, fault: fault)
            let copies = seen.filter { $0.request.method == method }
            #expect(copies.count == 1, "\(method) under \(fault): \(copies.count) copies arrived")
            // It left: the error says it may have reached the server, never "cannot connect".
            let lost = try #require(error, "\(method) under \(fault) answered")
            #expect(lost.mayHaveArrived, "\(method) under \(fault): \(lost.message)")
            #expect(lost.kind != .cannotConnect)
            #expect(lost.message.hasSuffix("the request was sent and may have reached the server"), "\(lost.message)")
            #expect(seen.map(\.request.target) == ["/first", "/change", "/after"])
        }
    }

    /// A request that never left (nothing listens) says so, and is not "may have reached".
    @Test func aRequestThatNeverLeftIsNotSaidToHaveArrived() async throws {
        let refusing = try RefusingPort()
        let transport = HTTPTransport(baseURL: URL(string: "http://127.0.0.1:\(refusing.port)")!, token: nil)
        do {
            _ = try await transport.send("POST", "/change", body: Data("{}".utf8))
            Issue.record("a refused connection answered")
        } catch {
            #expect(error.kind == .cannotConnect)
            #expect(!error.mayHaveArrived)
        }
    }
}
