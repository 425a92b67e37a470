@testable import DemoServer
@testable import DemoData
@testable import StarlingClient
import FeedCache
import FeedModel
import Foundation
import HTTPTransport
import Testing
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import QapitalApp
@testable import qapital_tui
import TermUI

/// Runs `body` against `serve --api starling` on 127.0.0.1 and a free port, and always stops it.
func withStarlingServer(backend: DemoBackend = DemoBackend(now: fixedNow, options: .init(currency: .gbp)),
                        handler: (any ServeHandler)? = nil,
                        _ body: (DemoHTTPServer, URL) async throws -> Void) async throws {
    let server = if let handler {
        try DemoHTTPServer(handler: handler)
    } else {
        try DemoHTTPServer(handler: StarlingDemoAPI(backend: backend))
    }
    try await server.start()
    do {
        try await body(server, await server.baseURL)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

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
            let path = StarlingAPI.Path("/api/v2/feed/account/").uid(StarlingDemoAPI.accountUid).then("/category/")
                .uid(StarlingDemoAPI.defaultCategory).then("/transactions-between")
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
            let first = try await api.transfer(goalId: goal.id, transferId: id, amount: amount)
            let second = try await api.transfer(goalId: goal.id, transferId: id, amount: amount)
            #expect(first.balance == amount && second.balance == amount)
            let feed = try await api.activities(from: fixedNow.addingTimeInterval(-86_400), to: Date().addingTimeInterval(60))
            #expect(feed.activities.filter { $0.message.plainText.hasPrefix("Round-me-up!") }.count == 1)
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

/// `s` over HTTP: an add-money whose answer is lost, retried with the same transferUid, moves money once.
@Suite(.timeLimit(.minutes(1))) struct StarlingSaveRetryTests {
    actor LosingFirstAnswer: ServeHandler {
        let inner: StarlingDemoAPI
        var addMoneyPaths: [String] = []
        init(backend: DemoBackend) { inner = StarlingDemoAPI(backend: backend) }

        func handle(_ request: ServeRequest) async -> ServeResponse {
            guard request.path.contains("/add-money/") else { return await inner.handle(request) }
            addMoneyPaths.append(request.path)
            let response = await inner.handle(request)
            if addMoneyPaths.count == 1 { return .error(500, "lost on the way") }
            return response
        }
    }

    @Test func aSaveWhoseAnswerIsLostIsRetriedWithTheSameTransferUid() async throws {
        let backend = DemoBackend(now: fixedNow, options: .init(currency: .gbp))
        let handler = LosingFirstAnswer(backend: backend)
        try await withStarlingServer(handler: handler) { _, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken, now: { fixedNow })
            try await Self.saveTwice(api: api, handler: handler)
        }
    }

    @MainActor
    static func saveTwice(api: StarlingAPI, handler: LosingFirstAnswer) async throws {
        do {
            let probe = EventProbe<StoreEvent>()
            let goals = GoalStore(api: api, events: probe.sink)
            goals.load()
            await probe.wait { goals.status == .loaded }
            let store = RoundUpStore(api: api, goals: goals, accountCurrency: api.accountCurrency,
                                     calendar: Week.calendar(in: TimeZone(identifier: "Europe/London")!), now: { fixedNow },
                                     events: probe.sink)
            store.load()
            await probe.wait { store.status == .loaded }
            let amount = try #require(store.summary?.saveable)
            #expect(amount.minorUnits > 0)
            let target = try #require(goals.goals.first { $0.name == "Graduation" })
            try store.save(into: target)
            await probe.wait { store.transfer?.isSending == false }
            #expect(store.transfer?.failureMessage == "PUT /api/v2/account/…/savings-goals/…/add-money/…: HTTP 500")
            #expect(store.retryTransfer())
            await probe.wait { store.transfer?.isSending == false }
            #expect(store.transfer?.failureMessage == nil)
            #expect(goals.goal(id: target.id)?.balance == target.balance + amount)
            #expect(try await api.goals().first { $0.id == target.id }?.balance == target.balance + amount)
            let paths = await handler.addMoneyPaths
            #expect(paths.count == 2 && paths[0] == paths[1])
            #expect(paths[0].hasSuffix("/add-money/" + store.transfer!.id.uuidString.lowercased()))
        }
    }
}

/// The offline cache of a Starling account: one file per base URL and account, never the token.
@Suite(.timeLimit(.minutes(1))) struct StarlingCacheTests {
    @Test func theTokenIsInNoFileTheCacheWrites() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("starling-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withStarlingServer { _, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken)
            let opened = SQLiteCache.open(directory: directory, baseURL: url, token: api.primary.accountUid, accountCurrency: api.accountCurrency)
            let cache = try #require(opened.cache)
            let cached = CachingSavingsAPI(remote: api, cache: cache)
            let goals = try await cached.goals()
            for goal in goals.prefix(3) {
                _ = try await cached.feed(goalId: goal.id)
                if let image = goal.imageURL { _ = try? await cached.imageData(at: image) }
            }
            let now = Date()
            for week in 0..<4 {
                let to = now.addingTimeInterval(-Double(week) * ActivityPager.windowLength)
                _ = try await cached.activities(from: to.addingTimeInterval(-ActivityPager.windowLength), to: to)
            }
            _ = try await cached.user(id: 1)
            #expect(await cache.goals()?.value.count == goals.count)
            #expect(await cache.image(at: try #require(goals.first?.imageURL)) != nil)
        }
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(!files.isEmpty)
        let token = Data(StarlingDemoAPI.testToken.utf8)
        for file in files {
            #expect(!file.lastPathComponent.contains(StarlingDemoAPI.testToken))
            let bytes = try Data(contentsOf: file)
            #expect(bytes.range(of: token) == nil, "the token is in \(file.lastPathComponent)")
        }
        // Another account on the same server is another file.
        let url = URL(string: "http://127.0.0.1:1")!
        #expect(SQLiteCache.fileName(for: url, token: "account-a") != SQLiteCache.fileName(for: url, token: "account-b"))
    }
}

/// The whole app on `serve --api starling`: the account in the status bar, its balance after a save.
@Suite(.timeLimit(.minutes(1))) struct StarlingAppTests {
    @Test func theHeaderShowsTheAccountAndFollowsASave() async throws {
        try await withStarlingServer { _, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken, now: { fixedNow })
            try await Self.run(api)
        }
    }

    @MainActor
    static func run(_ api: StarlingAPI) async throws {
        let app = AppHarness(api: api, width: 120, height: 30, timeZone: TimeZone(identifier: "Europe/London")!,
                             currency: api.accountCurrency)
        var lines = await app.start()
        let before = try #require(lines.last)
        #expect(before.contains("Mikael · 60-83-71 12345678 · £"), "\(before)")
        let balance = try #require(app.core.stores.account.account?.effectiveBalance)
        lines = await app.press(.char("3"))
        let amount = try #require(app.core.roundUps.summary?.saveable)
        #expect(amount.minorUnits > 0)
        lines = await app.press(.char("s"), .enter, .char("y"))
        #expect(lines.contains { $0.contains("✓ Saved \(amount.formatted) into") }, "\(lines.joined(separator: "\n"))")
        let after = balance - amount
        #expect(app.core.stores.account.account?.effectiveBalance == after)
        #expect(lines.last?.contains("Mikael · 60-83-71 12345678 · \(after.formatted)") == true, "\(lines.last ?? "")")
    }
}

/// A token refused in the middle of a session: the sign-in form over the app; a new token for
/// the same account is used from then on and everything loads again.
@Suite(.timeLimit(.minutes(1))) struct StarlingSignInAgainTests {
    /// Starling with a token that can be revoked, and a second one that opens the same account.
    actor Revocable: ServeHandler {
        let inner: StarlingDemoAPI
        var revoked = false
        static let second = "second-token-for-the-same-account"
        init(backend: DemoBackend) { inner = StarlingDemoAPI(backend: backend) }

        func revoke() { revoked = true }

        func handle(_ request: ServeRequest) async -> ServeResponse {
            var request = request
            let given = request.headers["Authorization"]
            if given == "Bearer \(Self.second)" {
                request.headers.set("Authorization", "Bearer \(StarlingDemoAPI.testToken)")
            } else if revoked {
                return .error(401, "revoked")
            }
            return await inner.handle(request)
        }
    }

    @Test func aRefusedTokenOpensSignInAndANewOneCarriesOn() async throws {
        let handler = Revocable(backend: DemoBackend(now: fixedNow, options: .init(currency: .gbp)))
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("again-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: config) }
        try await withStarlingServer(handler: handler) { _, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken, now: { fixedNow })
            try await Self.run(api, handler: handler, config: config)
        }
    }

    @MainActor
    static func run(_ api: StarlingAPI, handler: Revocable, config: URL) async throws {
        let capability = AppOptions.signInCapability(api, environment: ["XDG_CONFIG_HOME": config.path])
        let app = AppHarness(api: api, width: 100, height: 30, capabilities: .init(signIn: capability), currency: .gbp)
        var lines = await app.start()
        #expect(lines.contains { $0.contains("Balloons") })
        #expect(!lines.joined().contains("Sign in to"))

        await handler.revoke()
        lines = await app.press(.char("r"))
        #expect(api.tokenRefused)
        #expect(lines.contains { $0.contains("Sign in to 127.0.0.1:") }, "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("The server refused the token in use") })

        _ = await app.type("wrong-one")
        lines = await app.press(.enter)
        #expect(lines.contains { $0.contains("✗ GET /api/v2/accounts: the token was refused (HTTP 401)") }, "\(lines.joined(separator: "\n"))")

        await app.press(.ctrl("u"))
        _ = await app.type(Revocable.second)
        lines = await app.press(.tab, .char(" "), .enter)
        #expect(!api.tokenRefused)
        #expect(!lines.joined().contains("Sign in to"))
        #expect(lines.contains { $0.contains("Signed in.") })
        #expect(lines.contains { $0.contains("Balloons") })
        #expect(!lines.joined().contains(Revocable.second) && !lines.joined().contains("wrong-one"))
        // Remembered (it was ticked) for this origin only.
        let remembered = RememberedTokens(fileURL: config.appendingPathComponent("qapital-tui/starling-tokens.json"))
        #expect(remembered.token(for: api.baseURL) == Revocable.second)
        // Further requests carry the new token.
        #expect(try await api.goals().count == 12)
    }
}
