@testable import DemoServer
import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport

extension BlockingTests {
    /// The server's stop and memory, in process.
    @Suite(.timeLimit(.minutes(1))) struct ServeLimitsInProcessTests {
        @Test func aRequestStillUnderWayWhenTheGraceEndsGets503() async throws {
            let server = try DemoHTTPServer(backend: DemoBackend(now: fixedNow), options: .init(latency: .seconds(30)))
            try await server.start()
            let client = try RawHTTPClient(port: await server.port)
            client.send("GET /savingsrules HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            // Wait until the server has the request (a condition with a deadline, not a sleep).
            let deadline = RawHTTPClient.deadline(10)
            while server.requestsUnderWay == 0 && ContinuousClock.now < deadline {
                await Task.yield()
            }
            #expect(server.requestsUnderWay == 1)
            let report = await server.stop(grace: .milliseconds(200))
            #expect(report == .init(finished: 0, cutOff: 1))
            let response = try #require(client.readResponse())
            #expect(response.status == 503)
            #expect(response.jsonError == "the server is stopping")
            #expect(client.waitUntilClosed())
        }

        /// Issue 37.9: `serve` kept about 0.9 KB for every connection it had served (each handler
        /// and its context kept each other). Two thousand connections, one request each: the
        /// handlers of those that closed are gone.
        @Test func closedConnectionsAreNotKept() async throws {
            let server = try DemoHTTPServer(backend: DemoBackend(now: fixedNow))
            try await server.start()
            let port = await server.port
            let before = HTTPConnection.alive.withLockedValue { $0 }
            for number in 1...2_000 {
                let client = try RawHTTPClient(port: port)
                client.send("GET /savingsrules?n=\(number) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                #expect(client.readResponse()?.status == 200)
                #expect(client.waitUntilClosed())
            }
            // The server ends its side as it sees each close: wait for that (a condition with a deadline).
            let deadline = RawHTTPClient.deadline(10)
            while server.openConnections > 0 && ContinuousClock.now < deadline { await Task.yield() }
            #expect(server.openConnections == 0)
            // Other suites' servers may hold a few of their own at the same time; never thousands.
            let alive = HTTPConnection.alive.withLockedValue { $0 }
            #expect(alive - before < 100, "\(alive - before) handlers kept after 2,000 closed connections")
            await server.stop()
        }

        @Test func memoryStaysFlatTheLedgerKeepsOnlyTheLastRequests() async throws {
            let server = try DemoHTTPServer(backend: DemoBackend(now: fixedNow))
            try await server.start()
            let client = try RawHTTPClient(port: await server.port)
            let total = RequestLedger.capacity * 2 + 10
            for number in 1...total {
                client.send("GET /users/1?n=\(number) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                #expect(client.readResponse()?.status == 200)
            }
            let ledger = server.requestLedger
            #expect(ledger.answered == total)
            #expect(ledger.storedCount == RequestLedger.capacity)
            #expect(await server.receivedRequests().last?.target == "/users/1?n=\(total)")
            #expect(server.openConnections == 1)
            await server.stop()
            #expect(server.openConnections == 0)
        }
    }
}
