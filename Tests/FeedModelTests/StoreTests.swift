@testable import DemoData
import Foundation
import Testing
import TestSupport
@testable import FeedModel

/// A user answer for the fake: found, or the server's 404.
func users(_ known: [Int: Result<User, APIError>]) -> @Sendable (Int) throws -> User {
    { id in
        let label = "GET /users/\(id)"
        return try (known[id] ?? .failure(APIError(kind: .notFound, request: label, message: "\(label): not found (HTTP 404)"))).get()
    }
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct ActivityFeedTests {
    @Test func walksTheWholeDemoHistoryOnceEach() async {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let backend = DemoBackend(now: now)
        let dataset = await backend.dataset
        let probe = EventProbe<StoreEvent>()
        let feed = ActivityFeed(api: DemoSavingsAPI(backend: backend), now: { now }, events: probe.sink)
        feed.start()
        // On every change the cursor is at the end of what is loaded, as when scrolling down.
        #expect(await probe.wait {
            feed.viewportChanged(cursor: feed.activities.count, screenHeight: 30)
            return feed.phase == .atEnd
        })
        #expect(feed.activities == dataset.activities)
        #expect(!feed.isBusy || feed.phase == .atEnd)
        // 18 months and a long gap: more than 30 windows, each asked once.
        #expect(feed.pager.requestCount >= 30)
    }

    @Test func aFailureThenRetryThroughTheDriver() async {
        let api = FakeSavingsAPI()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let failing = Locked(true)
        api.script { script in
            script.activities = { from, to in
                if failing.withLock({ $0 }) {
                    throw APIError(kind: .http(status: 500), request: "GET /activities", message: "GET /activities: HTTP 500")
                }
                return ActivityPage(oldest: from, activities: [
                    Activity(message: MarkupText(parsing: "x"), amount: .zero(.usd), userId: 1, timestamp: to.addingTimeInterval(-60)),
                ])
            }
        }
        let probe = EventProbe<StoreEvent>()
        let feed = ActivityFeed(api: api, now: { now }, events: probe.sink)
        feed.start()
        #expect(await probe.wait { feed.phase == .failed("GET /activities: HTTP 500") })
        failing.withLock { $0 = false }
        feed.retry()
        #expect(await probe.wait { feed.phase == .atEnd })
        #expect(feed.activities.count == 1)
        #expect(api.activityCalls.count == 2)
    }

    @Test func anEmptyHistoryBackToYearOneIsWalkedAYearAtATimeAndPaced() async {
        let api = FakeSavingsAPI()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        api.script { script in
            script.activities = { _, _ in ActivityPage(oldest: Date(timeIntervalSince1970: -62_135_596_800), activities: []) }
        }
        // The pacer's clock stands still and its waits return at once: only the waits asked for count.
        let waits = Locked<[TimeInterval]>([])
        let probe = EventProbe<StoreEvent>()
        let feed = ActivityFeed(api: api, now: { now }, events: probe.sink, pacer: RequestPacer(burst: 32, perSecond: 20),
                                uptime: { 0 }, sleep: { delay in waits.withLock { $0.append(delay) } })
        feed.start()
        #expect(await probe.wait { feed.pager.isPaused && !feed.isBusy })
        #expect(feed.phase == .pausedAfterEmptyYear(before: now))
        #expect(api.activityCalls.count == 27)
        #expect(waits.withLock { $0 }.isEmpty)  // within the burst

        feed.keepLooking()
        #expect(await probe.wait { feed.pager.isPaused && !feed.isBusy })
        #expect(api.activityCalls.count == 54)
        // Past the burst of 32, each request waits 1/20 s longer than the one before.
        let sorted = waits.withLock { $0 }.sorted()
        #expect(sorted.count == 54 - 32)
        for (index, wait) in sorted.enumerated() {
            #expect(abs(wait - Double(index + 1) / 20) < 1e-9)
        }
    }
}

@Suite struct RequestPacerTests {
    @Test func aBurstThenAtMostTheRate() {
        var pacer = RequestPacer(burst: 8, perSecond: 10)
        let starts = (0..<40).map { _ in pacer.reserve(now: 100) }
        #expect(starts.prefix(8).allSatisfy { $0 == 0 })
        for (index, start) in starts.enumerated().dropFirst(8) {
            #expect(abs(start - Double(index - 7) / 10) < 1e-9)
        }
        // Requests asked for one at a time, slower than the rate, never wait.
        var slow = RequestPacer(burst: 1, perSecond: 10)
        #expect((0..<20).allSatisfy { slow.reserve(now: Double($0) * 0.2) == 0 })
    }

    @Test func anyStretchHoldsAtMostTheBurstPlusTheRate() {
        var pacer = RequestPacer(burst: 32, perSecond: 20)
        var generator = SystemRandomNumberGenerator()
        var now = 0.0
        var starts: [Double] = []
        for _ in 0..<2_000 {
            now += Double.random(in: 0...0.01, using: &generator)
            starts.append(now + pacer.reserve(now: now))
        }
        starts.sort()
        // Any span of w seconds holds at most 32 + 20·w starts.
        for (first, start) in starts.enumerated() {
            var last = first
            while last + 1 < starts.count, starts[last + 1] - start < 1 { last += 1 }
            #expect(last - first + 1 <= 32 + 20)
        }
        // After a long quiet time the whole burst is there again.
        let later = starts.last! + 60
        #expect((0..<32).allSatisfy { _ in pacer.reserve(now: later) == 0 })
        #expect(pacer.reserve(now: later) > 0)
    }
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct UserDirectoryTests {
    @Test func tenConcurrentLookupsShareOneRequest() async {
        let api = FakeSavingsAPI()
        api.script { $0.user = users([5: .success(User(id: 5, displayName: "George"))]) }
        api.hold()
        let directory = UserDirectory(api: api)
        #expect(directory.lookup(5) == .loading)
        let lookups = (0..<10).map { _ in Task { await directory.user(5) } }
        #expect(directory.displayName(for: 5) == "User #5")
        api.release()
        for lookup in lookups {
            #expect(await lookup.value == .found(User(id: 5, displayName: "George")))
        }
        #expect(api.userCalls == [5])
        #expect(directory.displayName(for: 5) == "George")
        _ = await directory.user(5)
        #expect(api.userCalls == [5])
    }

    @Test func aMissingUserIsRememberedAsUnknown() async {
        let api = FakeSavingsAPI()
        let directory = UserDirectory(api: api)
        #expect(await directory.user(42) == .unknown)
        #expect(directory.displayName(for: 42) == "User #42")
        #expect(directory.lookup(42) == .unknown)
        #expect(api.userCalls == [42])
    }

    @Test func aFailedLookupIsRetriedLaterNotNever() async {
        let api = FakeSavingsAPI()
        let clock = ManualClock()
        let error = APIError(kind: .http(status: 503), request: "GET /users/3", message: "GET /users/3: HTTP 503")
        api.script { $0.user = users([3: .failure(error)]) }
        let directory = UserDirectory(api: api, retryAfter: 30, now: { clock.now })
        #expect(await directory.user(3) == .failed("GET /users/3: HTTP 503"))
        #expect(directory.lookup(3) == .failed("GET /users/3: HTTP 503"))
        // Not the label of a user the server does not know (404: "User #3").
        #expect(directory.displayName(for: 3) == "User 3 (not loaded)")
        #expect(api.userCalls == [3])
        api.script { $0.user = users([3: .success(User(id: 3, displayName: "Johan"))]) }
        clock.advance(by: 31)
        #expect(await directory.user(3) == .found(User(id: 3, displayName: "Johan")))
        #expect(api.userCalls == [3, 3])
    }
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct GoalStoreTests {
    @Test func activeGoalsInServerOrderAndFeedsNewestFirstWithRules() async {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let backend = DemoBackend(now: now)
        let dataset = await backend.dataset
        let probe = EventProbe<StoreEvent>()
        let store = GoalStore(api: DemoSavingsAPI(backend: backend), events: probe.sink)
        store.load()
        #expect(store.status == .loading)
        #expect(await probe.wait { store.status == .loaded })
        #expect(store.goals.map(\.id) == dataset.goals.filter { $0.status == .active }.map(\.id))
        #expect(!store.goals.contains { $0.name == "Old laptop" })
        store.loadFeed(goalId: 1)
        #expect(await probe.wait { store.feed(for: 1).status == .loaded })
        #expect(probe.received.contains(.goalFeed(1)))
        let entries = store.feed(for: 1).entries
        #expect(!entries.isEmpty)
        #expect(entries.map(\.item.timestamp) == entries.map(\.item.timestamp).sorted(by: >))
        for entry in entries {
            #expect(entry.rule?.id == entry.item.savingsRuleId)
        }
        #expect(entries.contains { $0.rule?.kind == .roundup })
    }

    @Test func aFailedLoadSaysWhatFailed() async {
        let api = FakeSavingsAPI()
        api.script { $0.unreachable = [.goals] }
        let probe = EventProbe<StoreEvent>()
        let store = GoalStore(api: api, events: probe.sink)
        store.load()
        #expect(await probe.wait { store.status != .loading })
        #expect(store.status == .failed("GET /savingsgoals: cannot connect to 127.0.0.1:9"))
    }

    @Test func applyShowsATransferredBalanceAtOnce() async {
        let backend = DemoBackend(now: Date(timeIntervalSince1970: 1_800_000_000))
        let probe = EventProbe<StoreEvent>()
        let store = GoalStore(api: DemoSavingsAPI(backend: backend), events: probe.sink)
        store.load()
        #expect(await probe.wait { store.status == .loaded })
        let goal = try! await backend.transfer(goalId: 2, transferId: UUID(), amount: Money(minorUnits: 158, currency: .usd))
        store.apply(goal)
        #expect(store.goal(id: 2)?.balance.minorUnits == 5_158)
    }
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct ActivityRefreshTests {
    @Test func aRefreshKeepsWhatIsShownUntilTheNewFirstPageEvenIfItFails() async {
        let api = FakeSavingsAPI()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let failing = Locked(false)
        api.script { script in
            script.activities = { from, to in
                if failing.withLock({ $0 }) {
                    throw APIError(kind: .cannotConnect, request: "GET /activities", message: "GET /activities: cannot connect to x")
                }
                return ActivityPage(oldest: from, activities: [
                    Activity(message: MarkupText(parsing: "kept"), amount: .zero(.usd), userId: 1, timestamp: to.addingTimeInterval(-60)),
                ])
            }
        }
        let probe = EventProbe<StoreEvent>()
        let feed = ActivityFeed(api: api, now: { now }, events: probe.sink)
        feed.start()
        #expect(await probe.wait { feed.phase == .atEnd })
        let identity = feed.listIdentity
        failing.withLock { $0 = true }
        var seenDuringRefresh: [Int] = []
        feed.refresh()
        #expect(feed.activities.count == 1)  // shown at once, before any answer
        #expect(await probe.wait {
            seenDuringRefresh.append(feed.activities.count)
            if case .failed = feed.phase { return true } else { return false }
        })
        #expect(feed.activities.map(\.message.plainText) == ["kept"])
        #expect(!seenDuringRefresh.contains(0))
        #expect(feed.listIdentity > identity)
        failing.withLock { $0 = false }
        feed.retry()
        #expect(await probe.wait { feed.phase == .atEnd })
        #expect(feed.activities.count == 1)
    }

    @Test func retryAsksAgainEvenFarFromTheEnd() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var pager = ActivityPager()
        let first = pager.start(now: now)
        let many = (0..<100).map { Activity(message: MarkupText(parsing: "a"), amount: .zero(.usd), userId: 1,
                                            timestamp: now.addingTimeInterval(-Double($0 + 1) * 600)) }
        _ = pager.receive(first[0], .success(ActivityPage(oldest: now.addingTimeInterval(-400 * 86_400), activities: many)))
        let second = pager.viewportChanged(cursor: 95, screenHeight: 30)
        #expect(second.map(\.window.index) == [1])
        _ = pager.receive(second[0], .failure(APIError(kind: .http(status: 500), request: "GET /activities", message: "HTTP 500")))
        // Back at the top, far from the end, the user presses r.
        #expect(pager.viewportChanged(cursor: 0, screenHeight: 30).isEmpty)
        #expect(pager.retry().map(\.window.index) == [1])
        #expect(pager.phase == .loading(firstPage: false))
    }
}
