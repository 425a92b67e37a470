@testable import QapitalClient
@testable import DemoServer
@testable import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport
@testable import QapitalApp

/// What goes wrong over HTTP reaches the client as one readable `APIError`, and the next
/// request works again.
@Suite struct ServeFaultTests {
    static func apiError(_ work: () async throws -> Void) async -> APIError? {
        do {
            try await work()
            return nil
        } catch let error as APIError {
            return error
        } catch {
            Issue.record("not an APIError: \(error)")
            return nil
        }
    }

    @Test func aFailedRequestIsRetriedAndTheEarlierPageIsKept() async throws {
        let backend = DemoBackend(now: fixedNow)
        let to = fixedNow
        let from = to.addingTimeInterval(-14 * 86_400)
        let older = from.addingTimeInterval(-14 * 86_400)
        let expectedFirst = try await backend.activities(from: from, to: to)
        let expectedSecond = try await backend.activities(from: older, to: from)
        try await withDemoServer(backend: backend, options: .init(failEvery: 2)) { server, api in
            let first = try await api.activities(from: from, to: to)
            let failure = await ServeFaultTests.apiError { _ = try await api.activities(from: older, to: from) }
            #expect(failure?.kind == .http(status: 500))
            #expect(failure?.message == "GET /activities: HTTP 500")
            let retried = try await api.activities(from: older, to: from)

            #expect(first.activities == expectedFirst.activities)
            #expect(retried.activities == expectedSecond.activities)
            #expect(await server.receivedRequests().map(\.status) == [200, 500, 200])
        }
    }

    @Test func failEveryThirdRequest() async throws {
        try await withDemoServer(options: .init(failEvery: 3)) { server, api in
            for _ in 0..<6 { _ = try? await api.rules() }
            #expect(await server.receivedRequests().map(\.status) == [200, 200, 500, 200, 200, 500])
        }
    }

    @Test func malformedJSONIsNamed() async throws {
        try await withServer(handler: CannedHandler(body: "<html><body>502 Bad Gateway</body></html>")) { _, api in
            let error = await ServeFaultTests.apiError { _ = try await api.goals() }
            #expect(error?.kind == .malformed)
            #expect(error?.message.hasPrefix("GET /savingsgoals: malformed JSON") == true, "\(String(describing: error))")
        }
        let wrongType = #"{"savingsGoals": [{"id": 1, "name": "A", "currentBalance": "lots"}]}"#
        try await withServer(handler: CannedHandler(body: wrongType)) { _, api in
            // A record of the wrong type is skipped and named; the answer itself is not refused.
            let goals = try await api.goals()
            #expect(goals.isEmpty)
            let notes = api.skippedRecords?.drain() ?? []
            #expect(notes.count == 1 && notes[0].contains("savingsGoals[0].currentBalance: expected a number (id 1)"), "\(notes)")
        }
        try await withServer(handler: CannedHandler(body: #"{"oldest": "2016-05-23T00:00:00+00:00", "activi"#)) { _, api in
            let error = await ServeFaultTests.apiError { _ = try await api.activities(from: fixedNow, to: fixedNow) }
            #expect(error?.kind == .malformed)
        }
    }

    @Test func aGoalThatCannotBeMoneyIsSkippedAndNamedInTheStatusBar() async throws {
        let goals = #"{"savingsGoals":[{"id":1,"name":"Bike","currentBalance":5,"targetAmount":10},"#
            + #"{"id":2,"name":"Yacht","currentBalance":1,"targetAmount":1e308},{"id":3,"name":"Trip","currentBalance":7}]}"#
        let oldest = Timestamp.queryString(fixedNow.addingTimeInterval(-86_400))
        let handler = RoutedHandler(routes: [
            ("/savingsgoals/", #"{"feed":[]}"#), ("/savingsgoals", goals), ("/savingsrules", #"{"savingsRules":[]}"#),
            ("/activities", #"{"oldest":"\#(oldest)","activities":[]}"#),
        ])
        try await withServer(handler: handler) { _, api in
            try await ServeFaultTests.showSkippedGoal(api: api)
        }
    }

    @MainActor
    static func showSkippedGoal(api: QapitalHTTPAPI) async throws {
        let app = AppHarness(api: api, width: 160, height: 20, capabilities: AppCore.Capabilities(skippedRecords: api.skippedRecords))
        let lines = await app.start()
        #expect(lines.contains { $0.contains("Bike") })
        #expect(lines.contains { $0.contains("Trip") })
        #expect(!lines.contains { $0.contains("Yacht") })
        let status = try #require(lines.last)
        #expect(status.contains("GET /savingsgoals: skipped 1 bad record (savingsGoals[1].targetAmount: the amount 1e308 cannot be represented (id 2))"),
                "\(status)")
        #expect(!lines.joined().contains("not valid JSON"))
    }

    /// Two requests together, the first failing while the second finishes, as `GoalStore.load`
    /// does: leaving the scope cancels the second just as its answer arrives. With
    /// `URLSession.data(for:)` on Linux that deadlocked now and then (swift-corelibs-foundation
    /// #5412); this ran into it within a few hundred rounds.
    @Test(.timeLimit(.minutes(1))) func cancellingRequestsAsTheyFinishNeverHangs() async throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        try await withServer(handler: CannedHandler(contentType: "application/json", body: deep)) { _, api in
            for _ in 0..<400 {
                async let goals = api.goals()
                async let _ = api.rules()
                _ = try? await goals
            }
        }
    }

    @Test func jsonSentAsTextHTMLIsAccepted() async throws {
        let body = #"{"savingsGoals": [{"id": 7, "name": "Balloons", "userId": 1, "currentBalance": 400, "targetAmount": 1500.5}]}"#
        try await withServer(handler: CannedHandler(contentType: "text/html", body: body)) { _, api in
            let goals = try await api.goals()
            #expect(goals.map(\.id) == [7])
            #expect(goals.first?.target == Money(minorUnits: 150_050, currency: .usd))
        }
    }

    @Test func anAnswerSlowerThanTheClientTimeoutTimesOut() async throws {
        // The server would answer after 30 s; the client gives up after 0.3 s, and stopping the
        // server cancels the sleeping request at once.
        try await withDemoServer(options: .init(latency: .seconds(30)), clientTimeout: 0.3) { server, api in
            let started = ContinuousClock.now
            let error = await ServeFaultTests.apiError { _ = try await api.goals() }
            #expect(error?.kind == .timedOut)
            let port = await server.port
            #expect(error?.message == "GET /savingsgoals: no answer from 127.0.0.1:\(port) within 0.3 s")
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }

    @Test func aRefusedPortSaysCannotConnect() async throws {
        // A port that was just bound and released: nothing listens there now.
        let server = try DemoHTTPServer(backend: DemoBackend(now: fixedNow))
        try await server.start()
        let url = await server.baseURL
        let port = await server.port
        await server.stop()

        let api = QapitalHTTPAPI(baseURL: url, timeout: 5)
        let error = await ServeFaultTests.apiError { _ = try await api.goals() }
        #expect(error?.kind == .cannotConnect)
        #expect(error?.message == "GET /savingsgoals: cannot connect to 127.0.0.1:\(port)")
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
