@testable import QapitalClient
@testable import DemoServer
@testable import DemoData
import FeedModel
import Foundation
import QapitalApp
import Testing
import TestSupport
@testable import FeedCache

/// The demo API, counting requests; `unreachable` and `hold` as the tests need.
func countingAPI(now: Date) -> FakeSavingsAPI {
    FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: now)), sourceName: "counting")
}

/// Endpoints whose failure to connect the cache answers for.
let serverEndpoints: Set<FakeSavingsAPI.Endpoint> = [.goals, .feed, .rules, .user, .activities]

@MainActor
@Suite(.timeLimit(.minutes(1))) struct OfflineTests {
    @Test func aSecondStartDrawsFromTheCacheBeforeAnyRequestReturns() async throws {
        let directory = temporaryDirectory()
        let first = CachingSavingsAPI(remote: countingAPI(now: now), cache: try openCache(directory), now: { now })
        let expected = try await first.goals()
        _ = try await first.rules()

        let remote = countingAPI(now: now)
        remote.hold(serverEndpoints)
        let api = CachingSavingsAPI(remote: remote, cache: try openCache(directory), now: { now })
        let probe = EventProbe<StoreEvent>()
        let store = GoalStore(api: api, cache: api.cache, events: probe.sink)
        store.load()
        #expect(await probe.wait { !store.goals.isEmpty })
        #expect(store.goals == expected.filter { $0.status == .active })
        #expect(store.cachedAt == now)
        #expect(store.status == .loading)
        #expect(remote.count(.goals) == 1)  // asked, and not answered yet
        remote.release()
        #expect(await probe.wait { store.status == .loaded })
        #expect(store.cachedAt == nil)
    }

    @Test func withTheServerGoneCachedDataIsServedAndTheStateSaysOffline() async throws {
        let remote = countingAPI(now: now)
        let api = CachingSavingsAPI(remote: remote, cache: try openCache(temporaryDirectory()), now: { now })
        let goals = try await api.goals()
        let feed = try await api.feed(goalId: 1)
        #expect(!api.connectivity.isOffline)
        remote.script { $0.unreachable = serverEndpoints }
        #expect(try await api.goals() == goals)
        #expect(try await api.feed(goalId: 1).count == feed.count)
        #expect(api.connectivity.isOffline)
        #expect(api.connectivity.showsCachedData)
        await #expect(throws: APIError.self) { try await api.feed(goalId: 2) }  // never fetched
        remote.script { $0.unreachable = [] }
        _ = try await api.goals()
        #expect(!api.connectivity.isOffline)
        #expect(!api.connectivity.showsCachedData)
    }

    @Test func offlineWithNothingKeptIsNotShowingCachedData() async throws {
        // A cache that starts empty (as after a damaged file was moved aside): offline, yes;
        // showing cached data, no, until something kept is answered.
        let remote = countingAPI(now: now)
        remote.script { $0.unreachable = serverEndpoints }
        let api = CachingSavingsAPI(remote: remote, cache: try openCache(temporaryDirectory()), now: { now })
        await #expect(throws: APIError.self) { try await api.goals() }
        #expect(api.connectivity.isOffline)
        #expect(!api.connectivity.showsCachedData)

        remote.script { $0.unreachable = [] }
        let goals = try await api.goals()
        remote.script { $0.unreachable = serverEndpoints }
        await #expect(throws: APIError.self) { try await api.rules() }  // never kept
        #expect(!api.connectivity.showsCachedData)
        #expect(try await api.goals() == goals)
        #expect(api.connectivity.showsCachedData)
    }

    @Test func usersAreTrustedForADayWithoutARequest() async throws {
        let remote = countingAPI(now: now)
        let clock = ManualClock(now)
        let api = CachingSavingsAPI(remote: remote, cache: try openCache(temporaryDirectory()), now: { clock.now })
        #expect(try await api.user(id: 3).displayName == "Johan")
        clock.advance(by: 23 * 3600)
        #expect(try await api.user(id: 3).displayName == "Johan")
        #expect(remote.count(.user) == 1)
        clock.advance(by: 2 * 3600)
        _ = try await api.user(id: 3)
        #expect(remote.count(.user) == 2)
    }

    @Test func olderWindowsComeFromTheCacheUntilRefresh() async throws {
        let remote = countingAPI(now: now)
        let api = CachingSavingsAPI(remote: remote, cache: try openCache(temporaryDirectory()), now: { now })
        let window = ActivityPager.windowLength
        let recent = (from: now.addingTimeInterval(-window), to: now)
        let older = (from: now.addingTimeInterval(-3 * window), to: now.addingTimeInterval(-2 * window))
        let first = try await api.activities(from: older.from, to: older.to)
        _ = try await api.activities(from: recent.from, to: recent.to)
        #expect(remote.count(.activities) == 2)
        #expect(try await api.activities(from: older.from, to: older.to).activities == first.activities)
        _ = try await api.activities(from: recent.from, to: recent.to)
        #expect(remote.count(.activities) == 3)  // the newest two weeks are always asked for
        api.refresh()
        _ = try await api.activities(from: older.from, to: older.to)
        #expect(remote.count(.activities) == 4)
    }

    /// Against `serve` on loopback: browse, stop the server, start again from the cache.
    @Test func afterTheServerStopsWhatWasSeenIsStillThere() async throws {
        let directory = temporaryDirectory()
        let server = try DemoHTTPServer(backend: DemoBackend(now: now))
        try await server.start()
        let url = await server.baseURL
        let online = CachingSavingsAPI(remote: QapitalHTTPAPI(baseURL: url, timeout: serverAnswerTimeout), cache: try openCache(directory), now: { now })
        let goals = try await online.goals()
        let feed = try await online.feed(goalId: 1)
        let window = (from: now.addingTimeInterval(-ActivityPager.windowLength), to: now)
        let activities = try await online.activities(from: window.from, to: window.to)
        await server.stop()

        let offline = CachingSavingsAPI(remote: QapitalHTTPAPI(baseURL: url, timeout: serverAnswerTimeout), cache: try openCache(directory), now: { now })
        #expect(try await offline.goals() == goals)
        #expect(try await offline.feed(goalId: 1).map(\.amount) == feed.map(\.amount))
        #expect(try await offline.activities(from: window.from, to: window.to).activities == activities.activities)
        #expect(offline.connectivity.isOffline)
    }
}

@Suite struct CachedPictureTests {
    @Test func pictureBytesAreKeptAndUsedWithoutARequest() async throws {
        let directory = temporaryDirectory()
        let server = try DemoHTTPServer(backend: DemoBackend(now: now))
        try await server.start()
        let url = await server.baseURL
        let api = CachingSavingsAPI(remote: QapitalHTTPAPI(baseURL: url, timeout: serverAnswerTimeout), cache: try openCache(directory), now: { now })
        let goal = try #require(try await api.goals().first { $0.imageURL != nil })
        let imageURL = try #require(goal.imageURL)
        let bytes = try await api.imageData(at: imageURL)
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))  // a PNG
        await server.stop()
        let offline = CachingSavingsAPI(remote: QapitalHTTPAPI(baseURL: url, timeout: serverAnswerTimeout), cache: try openCache(directory), now: { now })
        #expect(try await offline.imageData(at: imageURL) == bytes)
    }
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct CachedActivityTests {
    @Test func theNewestTwoWeeksAreDrawnFromTheCacheBeforeTheServerAnswers() async throws {
        let directory = temporaryDirectory()
        let first = CachingSavingsAPI(remote: countingAPI(now: now), cache: try openCache(directory), now: { now })
        let window = (from: now.addingTimeInterval(-ActivityPager.windowLength), to: now)
        let seen = try await first.activities(from: window.from, to: window.to).activities
        #expect(!seen.isEmpty)

        let remote = countingAPI(now: now)
        remote.hold(serverEndpoints)
        let api = CachingSavingsAPI(remote: remote, cache: try openCache(directory), now: { now })
        let probe = EventProbe<StoreEvent>()
        let feed = ActivityFeed(api: api, cache: api.cache, now: { now }, events: probe.sink)
        feed.start()
        #expect(await probe.wait { !feed.activities.isEmpty })
        #expect(feed.activities == seen)
        #expect(feed.phase == .loading(firstPage: true))  // the server has not answered
        remote.release()
        #expect(await probe.wait { feed.phase != .loading(firstPage: true) })
        #expect(feed.activities.prefix(seen.count) == seen[...])
    }

    @Test func duplicatesKeptInTheCacheAreDrawnOnce() async throws {
        let directory = temporaryDirectory()
        let cache = try openCache(directory)
        let window = (from: now.addingTimeInterval(-ActivityPager.windowLength), to: now)
        let one = Activity(message: MarkupText(parsing: "<strong>You</strong> saved"), amount: Money(minorUnits: 500, currency: .usd),
                           userId: 1, timestamp: now.addingTimeInterval(-3600))
        // The same text an hour earlier: another activity, with another id.
        let two = Activity(message: one.message, amount: one.amount, userId: one.userId, timestamp: now.addingTimeInterval(-7200))
        await cache.saveActivities(ActivityPage(oldest: window.from, activities: [one, one, two, one]),
                                   from: window.from, to: window.to, at: now)

        let remote = countingAPI(now: now)
        remote.hold(serverEndpoints)
        let api = CachingSavingsAPI(remote: remote, cache: cache, now: { now })
        let probe = EventProbe<StoreEvent>()
        let feed = ActivityFeed(api: api, cache: cache, now: { now }, events: probe.sink)
        feed.start()
        #expect(await probe.wait { !feed.activities.isEmpty })
        #expect(feed.activities == [one, two])
        remote.release()
    }
}
