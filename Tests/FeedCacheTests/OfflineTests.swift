@testable import QapitalClient
@testable import DemoServer
@testable import DemoData
import FeedModel
import Foundation
import QapitalApp
import Synchronization
import Testing
@testable import FeedCache

/// The demo API, counting requests, failing to connect while `unreachable`, and holding
/// answers back while the gate is closed.
final class CountingAPI: SavingsAPI {
    let base: DemoSavingsAPI
    let unreachable = Mutex(false)
    let counts = Mutex([String: Int]())
    private let gate = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((true, []))

    init(now: Date) { base = DemoSavingsAPI(backend: DemoBackend(now: now)) }

    var sourceName: String { "counting" }
    func count(_ name: String) -> Int { counts.withLock { $0[name] ?? 0 } }
    func closeGate() { gate.withLock { $0.open = false } }
    func openGate() {
        let waiters = gate.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func enter(_ name: String) async throws {
        counts.withLock { $0[name, default: 0] += 1 }
        await withCheckedContinuation { continuation in
            let open = gate.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
        if unreachable.withLock({ $0 }) {
            throw APIError(kind: .cannotConnect, request: name, message: "\(name): cannot connect to 127.0.0.1:9")
        }
    }

    func goals() async throws -> [Goal] { try await enter("goals"); return try await base.goals() }
    func feed(goalId: GoalID) async throws -> [FeedItem] { try await enter("feed"); return try await base.feed(goalId: goalId) }
    func rules() async throws -> [SavingsRule] { try await enter("rules"); return try await base.rules() }
    func user(id: Int) async throws -> User { try await enter("user"); return try await base.user(id: id) }
    func activities(from: Date, to: Date) async throws -> ActivityPage {
        try await enter("activities")
        return try await base.activities(from: from, to: to)
    }
    func transactions(from: Date, to: Date) async throws -> [Transaction] { try await base.transactions(from: from, to: to) }
    func createGoal(name: String, target: Money?) async throws -> Goal { try await base.createGoal(name: name, target: target) }
    func transfer(goalId: GoalID, transferId: UUID, amount: Money) async throws -> Goal {
        try await base.transfer(goalId: goalId, transferId: transferId, amount: amount)
    }
}

final class ManualClock: Sendable {
    private let current = Mutex(now)
    var date: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

@MainActor
func waitUntil(_ store: GoalStore, _ condition: @MainActor () -> Bool) async {
    if condition() { return }
    let (changes, continuation) = AsyncStream<Void>.makeStream()
    store.onChange = { continuation.yield() }
    for await _ in changes where condition() { return }
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct OfflineTests {
    @Test func aSecondStartDrawsFromTheCacheBeforeAnyRequestReturns() async throws {
        let directory = temporaryDirectory()
        let first = CachingSavingsAPI(remote: CountingAPI(now: now), cache: try openCache(directory), now: { now })
        let expected = try await first.goals()
        _ = try await first.rules()

        let remote = CountingAPI(now: now)
        remote.closeGate()
        let api = CachingSavingsAPI(remote: remote, cache: try openCache(directory), now: { now })
        let store = GoalStore(api: api)
        store.load()
        await waitUntil(store) { !store.goals.isEmpty }
        #expect(store.goals == expected.filter { $0.status == .active })
        #expect(store.cachedAt == now)
        #expect(store.status == .loading)
        #expect(remote.count("goals") == 1)  // asked, and not answered yet
        remote.openGate()
        await waitUntil(store) { store.status == .loaded }
        #expect(store.cachedAt == nil)
    }

    @Test func withTheServerGoneCachedDataIsServedAndTheStateSaysOffline() async throws {
        let remote = CountingAPI(now: now)
        let api = CachingSavingsAPI(remote: remote, cache: try openCache(temporaryDirectory()), now: { now })
        let goals = try await api.goals()
        let feed = try await api.feed(goalId: 1)
        #expect(!api.connectivity.isOffline)
        remote.unreachable.withLock { $0 = true }
        #expect(try await api.goals() == goals)
        #expect(try await api.feed(goalId: 1).count == feed.count)
        #expect(api.connectivity.isOffline)
        #expect(api.connectivity.showsCachedData)
        await #expect(throws: APIError.self) { try await api.feed(goalId: 2) }  // never fetched
        remote.unreachable.withLock { $0 = false }
        _ = try await api.goals()
        #expect(!api.connectivity.isOffline)
        #expect(!api.connectivity.showsCachedData)
    }

    @Test func offlineWithNothingKeptIsNotShowingCachedData() async throws {
        // A cache that starts empty (as after a damaged file was moved aside): offline, yes;
        // showing cached data, no, until something kept is answered.
        let remote = CountingAPI(now: now)
        remote.unreachable.withLock { $0 = true }
        let api = CachingSavingsAPI(remote: remote, cache: try openCache(temporaryDirectory()), now: { now })
        await #expect(throws: APIError.self) { try await api.goals() }
        #expect(api.connectivity.isOffline)
        #expect(!api.connectivity.showsCachedData)

        remote.unreachable.withLock { $0 = false }
        let goals = try await api.goals()
        remote.unreachable.withLock { $0 = true }
        await #expect(throws: APIError.self) { try await api.rules() }  // never kept
        #expect(!api.connectivity.showsCachedData)
        #expect(try await api.goals() == goals)
        #expect(api.connectivity.showsCachedData)
    }

    @Test func usersAreTrustedForADayWithoutARequest() async throws {
        let remote = CountingAPI(now: now)
        let clock = ManualClock()
        let api = CachingSavingsAPI(remote: remote, cache: try openCache(temporaryDirectory()), now: { clock.date })
        #expect(try await api.user(id: 3).displayName == "Johan")
        clock.advance(by: 23 * 3600)
        #expect(try await api.user(id: 3).displayName == "Johan")
        #expect(remote.count("user") == 1)
        clock.advance(by: 2 * 3600)
        _ = try await api.user(id: 3)
        #expect(remote.count("user") == 2)
    }

    @Test func olderWindowsComeFromTheCacheUntilRefresh() async throws {
        let remote = CountingAPI(now: now)
        let api = CachingSavingsAPI(remote: remote, cache: try openCache(temporaryDirectory()), now: { now })
        let window = ActivityPager.windowLength
        let recent = (from: now.addingTimeInterval(-window), to: now)
        let older = (from: now.addingTimeInterval(-3 * window), to: now.addingTimeInterval(-2 * window))
        let first = try await api.activities(from: older.from, to: older.to)
        _ = try await api.activities(from: recent.from, to: recent.to)
        #expect(remote.count("activities") == 2)
        #expect(try await api.activities(from: older.from, to: older.to).activities == first.activities)
        _ = try await api.activities(from: recent.from, to: recent.to)
        #expect(remote.count("activities") == 3)  // the newest two weeks are always asked for
        api.refresh()
        _ = try await api.activities(from: older.from, to: older.to)
        #expect(remote.count("activities") == 4)
    }

    /// Against `serve` on loopback: browse, stop the server, start again from the cache.
    @Test func afterTheServerStopsWhatWasSeenIsStillThere() async throws {
        let directory = temporaryDirectory()
        let server = try DemoHTTPServer(backend: DemoBackend(now: now))
        try await server.start()
        let url = await server.baseURL
        let online = CachingSavingsAPI(remote: QapitalHTTPAPI(baseURL: url, timeout: 5), cache: try openCache(directory), now: { now })
        let goals = try await online.goals()
        let feed = try await online.feed(goalId: 1)
        let window = (from: now.addingTimeInterval(-ActivityPager.windowLength), to: now)
        let activities = try await online.activities(from: window.from, to: window.to)
        await server.stop()

        let offline = CachingSavingsAPI(remote: QapitalHTTPAPI(baseURL: url, timeout: 5), cache: try openCache(directory), now: { now })
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
        let api = CachingSavingsAPI(remote: QapitalHTTPAPI(baseURL: url, timeout: 5), cache: try openCache(directory), now: { now })
        let goal = try #require(try await api.goals().first { $0.imageURL != nil })
        let imageURL = try #require(goal.imageURL)
        let bytes = try await api.imageData(at: imageURL)
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))  // a PNG
        await server.stop()
        let offline = CachingSavingsAPI(remote: QapitalHTTPAPI(baseURL: url, timeout: 5), cache: try openCache(directory), now: { now })
        #expect(try await offline.imageData(at: imageURL) == bytes)
    }
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct CachedActivityTests {
    @Test func theNewestTwoWeeksAreDrawnFromTheCacheBeforeTheServerAnswers() async throws {
        let directory = temporaryDirectory()
        let first = CachingSavingsAPI(remote: CountingAPI(now: now), cache: try openCache(directory), now: { now })
        let window = (from: now.addingTimeInterval(-ActivityPager.windowLength), to: now)
        let seen = try await first.activities(from: window.from, to: window.to).activities
        #expect(!seen.isEmpty)

        let remote = CountingAPI(now: now)
        remote.closeGate()
        let api = CachingSavingsAPI(remote: remote, cache: try openCache(directory), now: { now })
        let feed = ActivityFeed(api: api, now: { now })
        let (changes, continuation) = AsyncStream<Void>.makeStream()
        feed.onChange = { continuation.yield() }
        feed.start()
        for await _ in changes where !feed.activities.isEmpty { break }
        #expect(feed.activities == seen)
        #expect(feed.phase == .loading(firstPage: true))  // the server has not answered
        remote.openGate()
        for await _ in changes where feed.phase != .loading(firstPage: true) { break }
        #expect(feed.activities.prefix(seen.count) == seen[...])
    }
}
