@testable import DemoServer
@testable import DemoData
@testable import StarlingClient
import FeedCache
import FeedModel
import Foundation
@testable import StarlingSource
import HTTPTransport
import Testing
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import QapitalApp
@testable import qapital_tui
import TermUI
import UpClient

/// `s` over HTTP: an add-money whose answer is lost (and the saver's check at once too),
/// retried with the same transferUid, moves money once.
@Suite(.timeLimit(.minutes(1))) struct StarlingSaveRetryTests {
    actor LosingFirstAnswer: ServeHandler {
        let inner: StarlingDemoAPI
        var addMoneyPaths: [String] = []
        init(backend: DemoBackend) { inner = StarlingDemoAPI(backend: backend) }

        func handle(_ request: ServeRequest) async -> ServeResponse {
            guard request.path.contains("/add-money/") else { return await inner.handle(request) }
            addMoneyPaths.append(request.path)
            let response = await inner.handle(request)
            if addMoneyPaths.count <= 2 { return .error(500, "lost on the way") }
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
            store.showPreviousWeek()  // a week is saved once it is over
            await probe.wait { store.status == .loaded }
            let amount = try #require(store.summary?.saveable)
            #expect(amount.minorUnits > 0)
            let target = try #require(goals.goals.first { $0.name == "Graduation" })
            try store.save(into: target)
            await probe.wait { store.transfer?.isSending == false }
            #expect(store.transfer?.phase == .mayHaveMoved("PUT /api/v2/account/…/savings-goals/…/add-money/…: HTTP 500: lost on the way"
                                                           + " (and the check at once: the same)"))
            #expect(store.retryTransfer())
            await probe.wait { store.transfer?.isSending == false }
            #expect(store.transfer?.failureMessage == nil)
            #expect(goals.goal(id: target.id)?.balance == target.balance + amount)
            #expect(try await api.goals().first { $0.id == target.id }?.balance == target.balance + amount)
            let paths = await handler.addMoneyPaths
            #expect(paths.count == 3 && Set(paths).count == 1)
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
        lines = await app.press(.char("3"), .char("["))  // last week: a week is saved once it is over
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
        let capability = AppOptions.signInCapability(api, source: StarlingAPI.source, environment: ["XDG_CONFIG_HOME": config.path])
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
        #expect(remembered.token(for: StarlingAPI.source, at: api.baseURL) == Revocable.second)
        #expect(remembered.token(for: UpAPI.source, at: api.baseURL) == nil)
        // Further requests carry the new token.
        #expect(try await api.goals().count == 12)
    }
}

/// Issue 27, item 6: on Starling "saved per week" is money moved into goals, never the salary;
/// declined and reversed payments are dimmed and in no sum; the demo account is one ledger.
@Suite(.timeLimit(.minutes(1))) struct StarlingSavedPerWeekTests {
    @Test func savedPerWeekIsMoneyMovedIntoGoalsAndDeclinedRowsAreDimmed() async throws {
        let backend = DemoBackend(now: fixedNow, options: .init(currency: .gbp))
        let dataset = await backend.dataset
        try await withStarlingServer(backend: backend) { _, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken, now: { fixedNow })
            // The account feed: every saving into a goal left the account; the salary is not a saving.
            let page = try await api.activities(from: fixedNow.addingTimeInterval(-56 * 86_400), to: fixedNow.addingTimeInterval(1))
            let moved = page.activities.filter { $0.kind == .moveToGoal }
            let savings = dataset.feeds.values.joined().filter { $0.timestamp >= fixedNow.addingTimeInterval(-56 * 86_400) && $0.timestamp < fixedNow }
            #expect(moved.count == savings.count && !moved.isEmpty)
            #expect(moved.reduce(Int64(0)) { $0 + ($1.saved?.minorUnits ?? 0) } == savings.reduce(Int64(0)) { $0 + $1.amount.minorUnits })
            let salary = try #require(page.activities.first { $0.message.plainText.hasPrefix("Salary") })
            #expect(salary.saved == nil && salary.amount.minorUnits > 0)
            let voided = page.activities.filter(\.isVoid)
            #expect(!voided.isEmpty && voided.allSatisfy { $0.saved == nil })
            #expect(voided.allSatisfy { activity in ["declined", "reversed"].contains { activity.message.plainText.contains($0) } })

            // The week's figure is what went into goals this week, nothing else.
            let calendar = Week.calendar(in: TimeZone(identifier: "Europe/London")!)
            let week = Week(containing: fixedNow, calendar: calendar)
            let thisWeek = savings.filter { week.contains($0.timestamp) }.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
            let lines = try await Self.activityTab(api)
            let header = try #require(lines.first { $0.contains("per week") })
            #expect(header.hasPrefix(" Saved into goals per week "), "\(header)")
            #expect(header.hasSuffix("this week \(Money(minorUnits: thisWeek, currency: .gbp).formatted)"), "\(header)")
        }
    }

    /// docs/roundups.md and docs/starling.md: £1,000 on the day before the oldest entry, plus
    /// everything since that went through, every saving into a goal included.
    @Test func theDemoAccountsBalanceIsItsOpeningPlusItsLedger() async throws {
        let backend = DemoBackend(now: fixedNow, options: .init(currency: .gbp))
        let dataset = await backend.dataset
        try await withStarlingServer(backend: backend) { _, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken, now: { fixedNow })
            let page = try await api.activities(from: .distantPast, to: fixedNow.addingTimeInterval(86_400))
            let through = page.activities.filter { !$0.isVoid }.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
            let balance = try #require(try await api.account()?.effectiveBalance)
            #expect(balance.minorUnits == 100_000 + through)
            let saved = page.activities.compactMap { $0.kind == .moveToGoal ? $0.saved?.minorUnits : nil }.reduce(0, +)
            #expect(saved == dataset.goals.reduce(Int64(0)) { $0 + $1.balance.minorUnits })
            #expect(page.activities.contains { $0.message.plainText == "Saved into Dog" })
        }
    }

    /// The Activity tab at 120×40, and whether each declined or reversed row on it is dimmed.
    @MainActor
    static func activityTab(_ api: StarlingAPI) async throws -> [String] {
        let app = AppHarness(api: api, width: 120, height: 40, timeZone: TimeZone(identifier: "Europe/London")!,
                             currency: api.accountCurrency)
        _ = await app.start()
        let lines = await app.press(.char("2"))
        var checked = 0
        for (y, line) in lines.enumerated() where line.contains("· declined") || line.contains("· reversed") {
            let x = try #require(line.firstIndex(of: "−").map { line.distance(from: line.startIndex, to: $0) })
            #expect(app.terminal.attributes(atX: x, y: y).contains(.dim), "\(line)")
            checked += 1
        }
        for (y, line) in lines.enumerated() where line.contains("Tesco") && !line.contains("·") {
            #expect(!app.terminal.attributes(atX: 20, y: y).contains(.dim), "\(line)")
        }
        #expect(checked > 0, "no declined or reversed row on screen")
        return lines.map { String($0.reversed().drop { $0 == " " }.reversed()) }
    }
}
