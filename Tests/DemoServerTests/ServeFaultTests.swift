@testable import DemoServer
import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport

/// The server's faults on purpose (`failEvery`), its start on a busy port, and its errors as JSON
/// (what the client makes of faults: QapitalClientTests' `ServeFaultTests`).
@Suite struct ServeFaultTests {
    @Test func failEveryThirdRequest() async throws {
        try await withDemoServer(options: .init(failEvery: 3)) { server, api in
            for _ in 0..<6 { _ = try? await api.rules() }
            #expect(await server.receivedRequests().map(\.status) == [200, 200, 500, 200, 200, 500])
        }
    }

    @Test func aBusyPortIsAStartError() async throws {
        try await withDemoServer { server, _ in
            let second = try DemoHTTPServer(backend: DemoBackend(now: fixedNow), port: await server.port)
            do {
                try await second.start()
                Issue.record("a second server started on a busy port")
                await second.stop()
            } catch let error as DemoHTTPServer.StartError {
                #expect(error.description == "cannot listen on 127.0.0.1:\(await server.port): Address already in use")
            }
        }
    }

    @Test func errorsAreJSON() async throws {
        try await withDemoServer { server, _ in
            let base = await server.baseURL.absoluteString
            let plus = try await rawRequest("GET", base + "/activities?from=2016-10-04T00:00:00+00:00&to=2016-10-18T00:00:00%2B00:00")
            #expect(plus.status == 400)
            #expect((plus.json?["error"] as? String)?.contains("a + must be sent as %2B") == true)
            #expect(plus.contentType?.hasPrefix("application/json") == true)

            let missing = try await rawRequest("GET", base + "/transactions?from=2016-10-04T00:00:00%2B00:00")
            #expect(missing.status == 400)
            #expect((missing.json?["error"] as? String)?.hasPrefix("to is missing") == true)

            let reversed = try await rawRequest("GET", base + "/activities?from=2016-10-18T00:00:00Z&to=2016-10-04T00:00:00Z")
            #expect(reversed.status == 400)
            #expect(reversed.json?["error"] as? String == "from is after to")

            let unknown = try await rawRequest("GET", base + "/nothing/here")
            #expect(unknown.status == 404)
            #expect(unknown.json?["error"] as? String == "no such endpoint: /nothing/here")

            let method = try await rawRequest("DELETE", base + "/savingsgoals")
            #expect(method.status == 405)
            #expect(method.json?["error"] != nil)

            let notJSON = try await rawRequest("POST", base + "/savingsgoals/1/transfers", body: "amount=5")
            #expect(notJSON.status == 400)
            #expect(notJSON.json?["error"] as? String == "the body is not JSON")

            let tooPrecise = try await rawRequest("POST", base + "/savingsgoals/1/transfers",
                                                  body: #"{"transferId": "\#(UUID().uuidString)", "amount": 1.005}"#)
            #expect(tooPrecise.status == 400)

            let noId = try await rawRequest("POST", base + "/savingsgoals/1/transfers", body: #"{"amount": 1}"#)
            #expect(noId.status == 400)
            #expect(noId.json?["error"] as? String == "transferId: missing")
        }
    }
}
