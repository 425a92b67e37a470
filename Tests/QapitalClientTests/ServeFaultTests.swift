@testable import QapitalClient
@testable import DemoServer
@testable import DemoData
import FeedModel
import Foundation
import HTTPTransport
import Testing
import TestSupport

/// What goes wrong over HTTP reaches the client as one readable `APIError`, and the next
/// request works again (the server's own error answers: DemoServerTests' `ServeFaultTests`).
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
            // docs/api.md: the server's words follow the status.
            #expect(failure?.message == "GET /activities: HTTP 500: injected failure: request 2 (--fail-every 2)")
            let retried = try await api.activities(from: older, to: from)

            #expect(first.activities == expectedFirst.activities)
            #expect(retried.activities == expectedSecond.activities)
            #expect(await server.receivedRequests().map(\.status) == [200, 500, 200])
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
        // The server would answer after an hour; the client gives up after 0.3 s, and stopping the
        // server cancels the sleeping request at once. Nothing but the client's timeout ends the
        // request within the suite's time limit, so no bound on the time is needed (on a loaded
        // CI machine the give-up itself once took 10.7 s, against a bound that allowed 25).
        try await withDemoServer(options: .init(latency: .seconds(3_600)), clientTimeout: 0.3) { server, api in
            let error = await ServeFaultTests.apiError { _ = try await api.goals() }
            #expect(error?.kind == .timedOut)
            let port = await server.port
            #expect(error?.message == "GET /savingsgoals: no answer from 127.0.0.1:\(port) within 0.3 s")
        }
    }

    @Test func aRefusedPortSaysCannotConnect() async throws {
        // A port bound but not listening, held for the test: nothing answers there.
        let refusing = try RefusingPort()
        let port = refusing.port
        let api = QapitalHTTPAPI(baseURL: URL(string: "http://127.0.0.1:\(port)")!, timeout: 5)
        let error = await ServeFaultTests.apiError { _ = try await api.goals() }
        #expect(error?.kind == .cannotConnect)
        #expect(error?.message == "GET /savingsgoals: cannot connect to 127.0.0.1:\(port)")
        withExtendedLifetime(refusing) {}
    }
}
