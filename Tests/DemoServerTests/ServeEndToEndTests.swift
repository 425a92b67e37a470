@testable import QapitalClient
@testable import DemoData
@testable import DemoServer
import FeedModel
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TestSupport

/// The demo API through real HTTP on loopback: the server in process, the app's HTTP client.
@Suite struct ServeEndToEndTests {
    static let twoWeeks: TimeInterval = 14 * 86_400

    @Test(arguments: [0, 60])
    func walkingActivitiesThroughTheServerSeesEveryActivityOnce(emptyRecentDays: Int) async throws {
        let backend = DemoBackend(now: fixedNow, options: .init(emptyRecentDays: emptyRecentDays))
        let dataset = await backend.dataset
        try await withDemoServer(backend: backend) { server, api in
            let walked = try await walkActivities(api, from: fixedNow)
            let oldest = try #require(walked.oldest, "the walk never reached oldest")
            #expect(oldest == dataset.oldestActivity)

            // Every activity exactly once, in order, equal to the dataset's.
            #expect(walked.activities.count == dataset.activities.count)
            #expect(walked.activities == dataset.activities)

            // What the server received: the offset's `+` as %2B, and windows exact and contiguous.
            let received = await server.receivedRequests()
            #expect(received.count == walked.windows.count)
            var seen: [SeenWindow] = []
            for request in received {
                #expect(request.method == "GET")
                #expect(request.status == 200)
                let query = try #require(request.target.split(separator: "?", maxSplits: 1).last.map(String.init))
                #expect(request.target.hasPrefix("/activities?from="))
                #expect(query.contains("%2B00%3A00"))
                #expect(!query.contains("+"), "a bare + would arrive as a space: \(query)")
                let window = try DemoAPIHandler.window(query)
                seen.append(SeenWindow(from: window.from, to: window.to))
            }
            #expect(seen == walked.windows)
            for (newer, older) in zip(seen, seen.dropFirst()) {
                #expect(older.to == newer.from, "windows must be contiguous")
            }
            for window in seen {
                #expect(window.to.timeIntervalSince(window.from) == ServeEndToEndTests.twoWeeks)
                #expect(window.to > oldest, "requested a window wholly past oldest")
            }
            #expect(try #require(seen.last).from <= oldest)
        }
    }

    @Test func goalsFeedRulesUsersAndTransactionsEqualTheBackends() async throws {
        let backend = DemoBackend(now: fixedNow)
        let dataset = await backend.dataset
        try await withDemoServer(backend: backend) { _, api in
            // Picture URLs come back on the server's own address.
            let base = "http://\(api.baseURL.host!):\(api.baseURL.port!)"
            #expect(try await api.goals() == dataset.goals.map { DemoAPIHandler.served($0, base: base) })
            #expect(try await api.rules() == dataset.rules)
            for goal in dataset.goals {
                #expect(try await api.feed(goalId: goal.id) == dataset.feeds[goal.id])
            }
            for user in dataset.users {
                #expect(try await api.user(id: user.id) == DemoAPIHandler.served(user, base: base))
            }
            let from = fixedNow.addingTimeInterval(-60 * 86_400)
            let transactions = try await api.transactions(from: from, to: fixedNow.addingTimeInterval(1))
            #expect(transactions == dataset.transactions)
            #expect(transactions.contains { $0.amount.currency != .usd }, "some carry their own currency")
        }
    }

    @Test func unknownUserAndGoalAreNotFound() async throws {
        try await withDemoServer { _, api in
            await #expect(throws: APIError.self) { try await api.user(id: 999) }
            do {
                _ = try await api.user(id: 999)
            } catch let error as APIError {
                #expect(error.kind == .notFound)
                #expect(error.message == "GET /users/999: not found (HTTP 404)")
            }
            do {
                _ = try await api.feed(goalId: 404)
                Issue.record("expected a 404")
            } catch let error as APIError {
                #expect(error.kind == .notFound)
            }
        }
    }

    @Test func amountsAreExactJSONNumbers() async throws {
        let backend = DemoBackend(now: fixedNow)
        let goals = await backend.goals()
        try await withDemoServer(backend: backend) { server, _ in
            let url = await server.baseURL.appendingPathComponent("savingsgoals")
            let (data, _) = try await URLSession.shared.data(from: url)
            let text = String(decoding: data, as: UTF8.self)
            for goal in goals {
                #expect(text.contains(#""currentBalance":\#(goal.balance.jsonNumberString)"#), "\(goal.name)")
                #expect(text.contains(#""targetAmount":\#(goal.target?.jsonNumberString ?? "null")"#), "\(goal.name)")
            }
            #expect(text.contains(#""currentBalance":1250.5"#))
            #expect(text.contains(#""currentBalance":845.25"#))
        }
    }

    @Test func createdGoalIsServedAfterwards() async throws {
        try await withDemoServer { _, api in
            let target = Money(minorUnits: 50_050, currency: .usd)
            let created = try await api.createGoal(name: "  New bike ", target: target)
            #expect(created.name == "New bike")
            #expect(created.target == target)
            #expect(created.balance == .zero(.usd))
            let goals = try await api.goals()
            #expect(goals.last == created)
            #expect(try await api.feed(goalId: created.id).isEmpty)

            let untargeted = try await api.createGoal(name: "Rainy day", target: nil)
            #expect(untargeted.target == nil)

            do {
                _ = try await api.createGoal(name: "   ", target: nil)
                Issue.record("expected a 400")
            } catch let error as APIError {
                #expect(error.kind == .rejected)
                #expect(error.message == "POST /savingsgoals: HTTP 400: a name is required")
            }
        }
    }
}
