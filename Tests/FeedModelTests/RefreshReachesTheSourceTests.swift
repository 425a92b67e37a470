import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport

/// `r` (the cache's refresh) reaches a source that answers from what it keeps.
@Suite struct RefreshReachesTheSourceTests {
    final class Counting: SavingsAPI {
        let base = DemoSavingsAPI(backend: DemoBackend(now: fixedNow))
        let asked = Locked(0)
        var sourceName: String { "counting" }
        func goals() async throws -> [Goal] { try await base.goals() }
        func feed(goalId: GoalID) async throws -> [FeedItem] { try await base.feed(goalId: goalId) }
        func rules() async throws -> [SavingsRule] { try await base.rules() }
        func user(id: Int) async throws -> User { try await base.user(id: id) }
        func activities(from: Date, to: Date) async throws -> ActivityPage { try await base.activities(from: from, to: to) }
        func transactions(from: Date, to: Date) async throws -> [Transaction] { try await base.transactions(from: from, to: to) }
        func createGoal(name: String, target: Money?) async throws -> Goal { try await base.createGoal(name: name, target: target) }
        func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
            try await base.transfer(goalId: goalId, transferId: transferId, amount: amount, attempt: attempt)
        }
        func userAskedToRefresh() { asked.withLock { $0 += 1 } }
    }

    /// Keeps nothing.
    struct NoCache: OfflineCache {
        func goals() async -> Cached<[Goal]>? { nil }
        func saveGoals(_ goals: [Goal], at date: Date) async {}
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

    @Test func theCachesRefreshTellsTheSource() {
        let remote = Counting()
        let caching = CachingSavingsAPI(remote: remote, cache: NoCache())
        caching.refresh()
        caching.userAskedToRefresh()
        #expect(remote.asked.withLock { $0 } == 2)
    }
}
