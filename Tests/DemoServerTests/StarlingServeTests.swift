@testable import DemoServer
@testable import DemoData
@testable import StarlingClient
import FeedModel
import Foundation
@testable import StarlingSource
import HTTPTransport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TestSupport

/// The Starling client against `serve --api starling` over loopback: everything a screen asks for.
@Suite(.timeLimit(.minutes(1))) struct StarlingServeTests {
    static let token = StarlingDemoAPI.testToken

    @Test func accountGoalsPhotosAndFeeds() async throws {
        try await withStarlingServer { _, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: Self.token)
            #expect(api.accountCurrency == .gbp)
            #expect(api.primary.accountUid == StarlingDemoAPI.accountUid)
            let account = try #require(try await api.account())
            #expect(account.sortCode == "60-83-71" && account.accountNumber == "12345678")
            #expect(account.holder == "Mikael")
            #expect(account.summary.hasPrefix("Mikael · 60-83-71 12345678 · £"))

            let goals = try await api.goals()
            #expect(goals.count == 12)
            let balloons = try #require(goals.first { $0.name == "Balloons" })
            #expect(balloons.id == "5a7e0000-0000-4000-8000-000000000001")
            #expect(balloons.balance.currency == .gbp && balloons.ownerId == 1)
            #expect(goals.contains { $0.status != .active })
            let photo = try await api.imageData(at: try #require(balloons.imageURL))
            #expect(photo.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            let crib = try #require(goals.first { $0.name == "A New Crib" })
            await #expect(throws: APIError.self) { _ = try await api.imageData(at: try #require(crib.imageURL)) }

            let feed = try await api.feed(goalId: balloons.id)
            #expect(!feed.isEmpty)
            #expect(feed.allSatisfy { $0.amount.currency == .gbp })
            #expect(zip(feed, feed.dropFirst()).allSatisfy { $0.timestamp >= $1.timestamp })

            let page = try await api.activities(from: fixedNow.addingTimeInterval(-14 * 86_400), to: fixedNow)
            #expect(page.oldest == api.createdAt)
            #expect(!page.activities.isEmpty)
            #expect(page.activities.contains { $0.amount.isNegative } && page.activities.contains { !$0.amount.isNegative })
            #expect(try await api.user(id: 1).displayName == "Mikael")
        }
    }

    @Test func roundUpsFollowTheRule() async throws {
        let backend = DemoBackend(now: fixedNow, options: .init(currency: .gbp))
        try await withStarlingServer(backend: backend) { _, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: Self.token)
            let from = fixedNow.addingTimeInterval(-56 * 86_400)
            let transactions = try await api.transactions(from: from, to: fixedNow.addingTimeInterval(1))
            let summary = RoundUp.Summary(transactions: transactions, accountCurrency: .gbp)
            // The same rule worked out from the served JSON itself.
            let path = StarlingAPI.Path("/api/v2/feed/account/").id(StarlingDemoAPI.accountUid).then("/category/")
                .id(StarlingDemoAPI.defaultCategory).then("/transactions-between")
            var raw = URLRequest(url: api.url(for: path, query: [
                URLQueryItem(name: "minTransactionTimestamp", value: StarlingAPI.timestamp(from)),
                URLQueryItem(name: "maxTransactionTimestamp", value: StarlingAPI.timestamp(fixedNow.addingTimeInterval(1))),
            ]))
            raw.setValue("Bearer \(Self.token)", forHTTPHeaderField: "Authorization")
            let (data, _) = try await URLSession.shared.data(for: raw)
            let items = try PayloadDecoder().decode(Starling.FeedItems.self, from: data, resource: "feed").feedItems ?? []
            let eligible = items.filter { $0.direction == "OUT" && $0.source == "MASTER_CARD" && ["SETTLED", "PENDING"].contains($0.status) }
            #expect(eligible.count < items.count)
            #expect(items.contains { $0.status == "DECLINED" || $0.status == "REVERSED" })
            #expect(items.contains { $0.sourceAmount?.currency == "EUR" })
            #expect(summary.lines.count == eligible.count)
            #expect(summary.saveable.minorUnits == eligible.map { (100 - $0.amount.minorUnits % 100) % 100 }.reduce(0, +))
            #expect(summary.otherTotals.isEmpty)
        }
    }

    @Test func createGoalAndAddMoneyIdempotently() async throws {
        try await withStarlingServer { _, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: Self.token)
            let goal = try await api.createGoal(name: "Round-me-up!", target: Money(minorUnits: 1000, currency: .gbp))
            #expect(goal.name == "Round-me-up!" && goal.balance == .zero(.gbp))
            #expect(try await api.goals().contains { $0.id == goal.id })
            let id = UUID()
            let amount = Money(minorUnits: 50, currency: .gbp)
            let first = try await api.transfer(goalId: goal.id, transferId: id, amount: amount, attempt: .init(week: "2026-W47", resent: false))
            let second = try await api.transfer(goalId: goal.id, transferId: id, amount: amount, attempt: .init(week: "2026-W47", resent: false))
            #expect(first.balance == amount && second.balance == amount)
            let feed = try await api.activities(from: fixedNow.addingTimeInterval(-86_400), to: Date().addingTimeInterval(60))
            #expect(feed.activities.filter { $0.message.plainText.hasPrefix("Saved into Round-me-up!") && $0.kind == .moveToGoal }.count == 1)
            do {
                _ = try await api.createGoal(name: "  ", target: nil)
                Issue.record("created a goal without a name")
            } catch let error as APIError {
                #expect(error.message == "PUT /api/v2/account/…/savings-goals: HTTP 400: a name is required")
            }
        }
    }

    @Test func aRefusedTokenIsUnauthorizedAndNeverQuoted() async throws {
        try await withStarlingServer { server, url in
            for token in ["wrong-token-value-123", ""] {
                do {
                    _ = try await StarlingAPI.connect(baseURL: url, token: token)
                    Issue.record("connected with \(token)")
                } catch let error as APIError {
                    #expect(error.kind == .unauthorized)
                    #expect(error.message == "GET /api/v2/accounts: the token was refused (HTTP 401)")
                    #expect(token.isEmpty || !error.message.contains(token))
                }
            }
            #expect(await server.receivedRequests().map(\.status) == [401, 401])
            do {
                _ = try await StarlingAPI.connect(baseURL: url, token: "abc\r\nX-Evil: 1")
                Issue.record("sent a token with a line break")
            } catch let error as APIError {
                #expect(error.kind == .unauthorized)
                #expect(error.message == "GET /api/v2/accounts: not sent: the token has spaces or characters a token cannot have")
            }
            #expect(await server.receivedRequests().count == 2)
        }
    }

    @Test func timestampsAreStrict() async throws {
        try await withStarlingServer { _, url in
            let base = "\(url.absoluteString)/api/v2/feed/account/\(StarlingDemoAPI.accountUid)/category/\(StarlingDemoAPI.defaultCategory)/transactions-between"
            for (query, expected) in [
                ("minTransactionTimestamp=2026-11-08T00%3A00%3A00Z&maxTransactionTimestamp=2026-11-22T00%3A00%3A00.000Z",
                 "minTransactionTimestamp: not a timestamp: \"2026-11-08T00:00:00Z\" (expected e.g. 2026-11-08T00:00:00.000Z, UTC with milliseconds)"),
                ("maxTransactionTimestamp=2026-11-22T00%3A00%3A00.000Z",
                 "minTransactionTimestamp is missing (expected e.g. minTransactionTimestamp=2026-11-08T00%3A00%3A00.000Z)"),
                ("minTransactionTimestamp=2026-11-23T00%3A00%3A00.000Z&maxTransactionTimestamp=2026-11-22T00%3A00%3A00.000Z",
                 "minTransactionTimestamp is after maxTransactionTimestamp"),
            ] {
                var request = URLRequest(url: URL(string: base + "?" + query)!)
                request.setValue("Bearer \(Self.token)", forHTTPHeaderField: "Authorization")
                let (data, response) = try await URLSession.shared.data(for: request)
                #expect((response as? HTTPURLResponse)?.statusCode == 400)
                #expect(Starling.serverMessage(data) == expected)
            }
        }
    }

    /// The activity feed walks two-week windows back to the account's createdAt, then stops.
    @Test func theActivityFeedWalksBackToCreatedAt() async throws {
        try await withStarlingServer { server, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: Self.token, now: { fixedNow })
            try await Self.walk(api: api, server: server)
        }
    }

    @MainActor
    static func walk(api: StarlingAPI, server: DemoHTTPServer) async throws {
        do {
            let probe = EventProbe<StoreEvent>()
            let feed = ActivityFeed(api: api, now: { fixedNow }, events: probe.sink)
            feed.start()
            await probe.wait(until: {
                feed.viewportChanged(cursor: feed.activities.count, screenHeight: 40)
                return feed.phase == .atEnd
            })
            #expect(feed.pager.oldest == api.createdAt)
            #expect(!feed.activities.isEmpty)
            let windows = await server.receivedRequests().compactMap { request -> String? in
                request.target.contains("transactions-between") ? request.target : nil
            }
            let expected = Int((fixedNow.timeIntervalSince(api.createdAt) / ActivityPager.windowLength).rounded(.up))
            #expect(windows.count == expected)
            #expect(windows.allSatisfy { $0.contains("T") && $0.contains(".000Z") && $0.contains("%3A") })
        }
    }
}
