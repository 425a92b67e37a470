import Foundation

/// The API with an offline cache behind it.
///
/// - Goals, rules and feeds go to the server first and are kept; when the server cannot be
///   reached, what was kept is answered instead and `connectivity` says offline.
/// - Users are trusted for `userLifetime` (24 h) without a request. A source that answers users
///   and rules itself (`answersUsersAndRulesItself`) is asked for them directly: no request is
///   made, so they tell nothing of whether the server is reached.
/// - Activity windows that end more than two weeks before now and were fetched before are
///   answered from the cache without a request, unless `refresh()` was asked for since.
/// - Transactions, new goals and transfers always go to the server; what they answer (a goal's
///   balance after a save, a new goal) is kept at once, so the cache shows next what the screen
///   showed last.
/// - The account (the header's balance) is asked of the server each time and kept; offline,
///   the one kept is answered.
public final class CachingSavingsAPI: SavingsAPI {
    public let remote: any SavingsAPI
    public let cache: any OfflineCache
    public let connectivity: Connectivity
    public let userLifetime: TimeInterval
    private let now: @Sendable () -> Date
    private let refreshedAt = MutexBox<Date?>(nil)

    public init(remote: any SavingsAPI, cache: any OfflineCache, connectivity: Connectivity = Connectivity(),
                userLifetime: TimeInterval = 24 * 3600, now: @escaping @Sendable () -> Date = { Date() }) {
        self.remote = remote
        self.cache = cache
        self.connectivity = connectivity
        self.userLifetime = userLifetime
        self.now = now
    }

    public var sourceName: String { remote.sourceName }
    public var saysFeedBalance: Bool { remote.saysFeedBalance }

    /// `r` on the activity feed: windows fetched before this moment are fetched again.
    public func refresh() {
        refreshedAt.value = now()
        remote.userAskedToRefresh()
    }

    public func userAskedToRefresh() { refresh() }

    /// Calls the server; keeps the answer; on a failure to connect, answers from the cache.
    private func fetch<Value: Sendable>(_ request: () async throws -> Value,
                                        save: (Value, Date) async -> Void,
                                        fallback: () async -> Value?) async throws -> Value {
        do {
            let value = try await request()
            connectivity.reachedServer()
            await save(value, now())
            if let problem = cache.takeWriteProblem() { connectivity.noteAboutCache(problem) }
            return value
        } catch let error as APIError where error.isConnectivity {
            connectivity.failedToConnect(at: now())
            if let cached = await fallback() {
                connectivity.servedFromCache()
                return cached
            }
            throw error
        } catch let error as APIError {
            // A cancelled request says nothing about the server.
            if error.kind != .cancelled { connectivity.reachedServer() }
            throw error
        }
    }

    public func goals() async throws -> [Goal] {
        try await fetch({ try await remote.goals() }, save: { await cache.saveGoals($0, at: $1) },
                        fallback: { await cache.goals()?.value })
    }

    public func rules() async throws -> [SavingsRule] {
        if remote.answersUsersAndRulesItself { return try await remote.rules() }
        return try await fetch({ try await remote.rules() }, save: { await cache.saveRules($0, at: $1) },
                               fallback: { await cache.rules()?.value })
    }

    public func feed(goalId: GoalID) async throws -> [FeedItem] {
        try await fetch({ try await remote.feed(goalId: goalId) }, save: { await cache.saveFeed($0, goalId: goalId, at: $1) },
                        fallback: { await cache.feed(goalId: goalId)?.value })
    }

    public func user(id: Int) async throws -> User {
        let cached = await cache.user(id: id)
        if let cached, now().timeIntervalSince(cached.fetchedAt) < userLifetime {
            return cached.value
        }
        do {
            if remote.answersUsersAndRulesItself {
                // No request: kept as usual, but nothing is learnt of the server (offline stays offline).
                let user = try await remote.user(id: id)
                await cache.saveUser(user, at: now())
                return user
            }
            return try await fetch({ try await remote.user(id: id) }, save: { await cache.saveUser($0, at: $1) },
                                   fallback: { cached?.value })
        } catch let error as APIError where !error.isConnectivity && error.kind != .notFound {
            // The server answered badly: a known name beats "User #ID".
            if let cached { return cached.value }
            throw error
        }
    }

    public func activities(from: Date, to: Date) async throws -> ActivityPage {
        let twoWeeksAgo = now().addingTimeInterval(-ActivityPager.windowLength)
        if to <= twoWeeksAgo, let cached = await cache.activities(from: from, to: to, allowPartial: false),
           cached.fetchedAt > (refreshedAt.value ?? .distantPast) {
            return cached.value
        }
        return try await fetch({ try await remote.activities(from: from, to: to) },
                               save: { await cache.saveActivities($0, from: from, to: to, at: $1) },
                               fallback: { await cache.activities(from: from, to: to, allowPartial: true)?.value })
    }

    /// Pictures change rarely: a kept one is used without a request; new ones are kept.
    public func imageData(at url: URL) async throws -> Data {
        if let cached = await cache.image(at: url) { return cached.value }
        let data = try await remote.imageData(at: url)
        await cache.saveImage(data, at: url, fetchedAt: now())
        if let problem = cache.takeWriteProblem() { connectivity.noteAboutCache(problem) }
        return data
    }

    /// The account from the server only: a kept balance is no ground for moving money.
    public func currentAccount() async throws -> Account? { try await remote.currentAccount() }

    /// The account and its balance: from the server, kept; offline, as the header last showed it.
    /// A source without an account answers nil without a request: that says nothing of the server.
    public func account() async throws -> Account? {
        do {
            guard let account = try await remote.account() else { return nil }
            connectivity.reachedServer()
            await cache.saveAccount(account, at: now())
            if let problem = cache.takeWriteProblem() { connectivity.noteAboutCache(problem) }
            return account
        } catch let error as APIError where error.isConnectivity {
            connectivity.failedToConnect(at: now())
            guard let kept = await cache.account() else { throw error }
            connectivity.servedFromCache()
            return kept.value
        }
    }

    /// Not kept (nothing to answer offline), but what it finds of the server counts: a week that
    /// cannot connect takes the app offline, so it tries the server again and, once it answers,
    /// asks again for what failed.
    public func transactions(from: Date, to: Date) async throws -> [Transaction] {
        do {
            let transactions = try await remote.transactions(from: from, to: to)
            connectivity.reachedServer()
            return transactions
        } catch let error as APIError where error.isConnectivity {
            connectivity.failedToConnect(at: now())
            throw error
        }
    }

    public func createGoal(name: String, target: Money?) async throws -> Goal {
        let goal = try await remote.createGoal(name: name, target: target)
        await keep(goal)
        return goal
    }

    public func createGoal(name: String, target: Money?, photo: Data?) async throws -> Goal {
        let goal = try await remote.createGoal(name: name, target: target, photo: photo)
        await keep(goal)
        return goal
    }

    public func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
        let goal = try await remote.transfer(goalId: goalId, transferId: transferId, amount: amount, attempt: attempt)
        await keep(goal)
        return goal
    }

    /// A goal as the server answered a save or a new goal: it replaces the kept one (or joins
    /// the kept list), so a start offline shows the balance the screen showed.
    private func keep(_ goal: Goal) async {
        guard let kept = await cache.goals() else { return }
        var goals = kept.value
        if let index = goals.firstIndex(where: { $0.id == goal.id }) { goals[index] = goal } else { goals.append(goal) }
        await cache.saveGoals(goals, at: kept.fetchedAt)
        if let problem = cache.takeWriteProblem() { connectivity.noteAboutCache(problem) }
    }
}
