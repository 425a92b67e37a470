@testable import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport
@testable import QapitalApp

/// The status bar says "showing cached data" only when something kept is on screen.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct OfflineStatusTests {
    /// A server that is never there.
    struct Unreachable: SavingsAPI {
        var sourceName: String { "http://127.0.0.1:9" }
        func fail<T>() throws -> T { throw APIError(kind: .cannotConnect, request: "GET /", message: "cannot connect to 127.0.0.1:9") }
        func goals() async throws -> [Goal] { try fail() }
        func feed(goalId: GoalID) async throws -> [FeedItem] { try fail() }
        func rules() async throws -> [SavingsRule] { try fail() }
        func user(id: Int) async throws -> User { try fail() }
        func activities(from: Date, to: Date) async throws -> ActivityPage { try fail() }
        func transactions(from: Date, to: Date) async throws -> [Transaction] { try fail() }
        func createGoal(name: String, target: Money?) async throws -> Goal { try fail() }
        func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal { try fail() }
    }

    /// Keeps goals only (nil for the rest), in memory; with `full`, keeps nothing and says so once.
    final class GoalsOnlyCache: OfflineCache {
        let kept: Locked<[Goal]?>
        let problem: Locked<String?>
        init(_ goals: [Goal]?, full: Bool = false) {
            kept = Locked(goals)
            problem = Locked(full ? "cache: the disk is full; new data is not kept" : nil)
        }
        func takeWriteProblem() -> String? { problem.withLock { note in defer { note = nil }; return note } }
        func goals() async -> Cached<[Goal]>? { kept.withLock { $0 }.map { Cached($0, fetchedAt: fixedNow) } }
        func saveGoals(_ goals: [Goal], at date: Date) async { kept.withLock { $0 = goals } }
        func rules() async -> Cached<[SavingsRule]>? { nil }
        func saveRules(_ rules: [SavingsRule], at date: Date) async {}
        func user(id: Int) async -> Cached<User>? { nil }
        func saveUser(_ user: User, at date: Date) async {}
        func feed(goalId: GoalID) async -> Cached<[FeedItem]>? { nil }
        func saveFeed(_ items: [FeedItem], goalId: GoalID, at date: Date) async {}
        func activities(from: Date, to: Date, allowPartial: Bool) async -> Cached<ActivityPage>? { nil }
        func saveActivities(_ page: ActivityPage, from: Date, to: Date, at date: Date) async {}
        func image(at url: URL) async -> Cached<Data>? { nil }
        func saveImage(_ data: Data, at url: URL, fetchedAt date: Date) async {}
    }

    /// What the command hands the app with a cache (as AppCommand.withOfflineCache does).
    static func capabilities(_ api: CachingSavingsAPI, _ cache: GoalsOnlyCache) -> AppCore.Capabilities {
        AppCore.Capabilities(cache: cache, connectivity: api.connectivity, refreshCache: { api.refresh() })
    }

    static func statusBar(cache: GoalsOnlyCache) async -> String {
        let api = CachingSavingsAPI(remote: Unreachable(), cache: cache, now: { fixedNow })
        let app = AppHarness(api: api, capabilities: Self.capabilities(api, cache))
        return await app.start().last ?? ""
    }

    @Test func offlineWithAnEmptyCacheSaysOfflineOnly() async {
        let bar = await Self.statusBar(cache: GoalsOnlyCache(nil))
        #expect(bar.contains("offline"))
        #expect(!bar.contains("showing cached data"), "\(bar)")
    }

    @Test func offlineWithKeptGoalsSaysShowingCachedData() async {
        let goals = await DemoBackend(now: fixedNow).goals()
        let bar = await Self.statusBar(cache: GoalsOnlyCache(goals))
        #expect(bar.contains("offline — showing cached data"), "\(bar)")
    }

    @Test func anOfflineIdleAppSleepsUntilItsNextReconnectAndDrawsNothing() async throws {
        let clock = Locked(fixedNow)
        let cache = GoalsOnlyCache(nil)
        let api = CachingSavingsAPI(remote: Unreachable(), cache: cache, now: { fixedNow })
        let app = AppHarness(api: api, capabilities: Self.capabilities(api, cache), clock: { clock.withLock { $0 } })
        let goals = await app.start()
        // The Goals tab says the failure in its body, so the bar only says offline (issue 50, item 11).
        #expect(goals.dropLast().contains { $0.contains("✗") && $0.contains("press r to retry") } && goals.last?.contains("✗") == false, "\(goals)")
        // Achievements has no body for it: there the bar says it.
        let bar = await app.press(.char("4")).last ?? ""
        #expect(bar.contains("offline") && bar.contains("✗"), "\(bar)")
        // The failure stays in the bar for its lifetime: the one wake-up before that.
        let expiry = try #require(app.core.nextTick)
        #expect(expiry.timeIntervalSince(fixedNow) > 1)
        clock.withLock { $0 = expiry }
        #expect(app.tick().last?.contains("✗") == false)
        // Then nothing is due for at least ten seconds: the next reconnect attempt.
        let next = try #require(app.core.nextTick)
        #expect(next.timeIntervalSince(expiry) >= 10, "next wake after \(next.timeIntervalSince(expiry)) s")
        // And the loop, left to itself for a second, draws no frame (it drew ten a second before).
        let frames = app.terminal.presentCount
        await app.runner.run(until: { false }, timeout: .seconds(1))
        #expect(app.terminal.presentCount == frames)
        #expect(api.connectivity.isOffline)
    }

    @Test func reconnectAttemptsBackOffAndStartOverOnline() {
        var policy = ReconnectPolicy()
        let start = fixedNow
        let first = policy.shouldTry(offline: true, busy: false, now: start)
        #expect(!first, "the failure that took the app offline was the attempt")
        #expect(policy.nextAttempt(offline: true, busy: false, now: start) == start.addingTimeInterval(20))
        var attempts: [TimeInterval] = []
        var time = start
        while attempts.count < 7 {
            time = policy.nextAttempt(offline: true, busy: false, now: time)!
            let tried = policy.shouldTry(offline: true, busy: false, now: time)
            #expect(tried)
            attempts.append(time.timeIntervalSince(start))
        }
        #expect(attempts == [20, 60, 140, 300, 600, 900, 1200])
        #expect(policy.nextAttempt(offline: true, busy: true, now: time) == nil, "never while a load is in flight")
        let online = policy.shouldTry(offline: false, busy: false, now: time)
        #expect(!online)
        #expect(policy.nextAttempt(offline: false, busy: false, now: time) == nil)
        let offlineAgain = policy.shouldTry(offline: true, busy: false, now: time)
        #expect(!offlineAgain)
        #expect(policy.nextAttempt(offline: true, busy: false, now: time) == time.addingTimeInterval(20), "back online, it starts over")
    }

    @Test func aFullDiskIsSaidOnceInTheStatusBar() async {
        let cache = GoalsOnlyCache(nil, full: true)
        let api = CachingSavingsAPI(remote: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), cache: cache, now: { fixedNow })
        let app = AppHarness(api: api, capabilities: Self.capabilities(api, cache))
        _ = await app.start()
        #expect(app.core.nextTick != nil, "a note waits for the next tick")
        let bar = app.tick().last ?? ""
        #expect(bar.contains("cache: the disk is full"), "\(bar)")
        #expect(api.connectivity.takeCacheNote() == nil, "said once")
    }
}
