import Foundation

/// A feed item with its rule resolved (the user is resolved through the `UserDirectory`).
public struct FeedEntry: Hashable, Sendable {
    public let item: FeedItem
    public let rule: SavingsRule?
}

/// A goal's feed as the detail screen shows it.
public struct GoalFeedState: Sendable {
    public var entries: [FeedEntry] = []
    public var status: LoadStatus = .idle
}

/// Active goals in server order, rules by id, and each goal's feed newest first.
@MainActor
public final class GoalStore {
    public private(set) var goals: [Goal] = [] { didSet { version &+= 1 } }
    public private(set) var rulesById: [Int: SavingsRule] = [:] { didSet { version &+= 1 } }
    public private(set) var status: LoadStatus = .idle { didSet { version &+= 1 } }
    public private(set) var feeds: [GoalID: GoalFeedState] = [:] { didSet { version &+= 1 } }
    /// Changes with every change of the goals, their rules, their feeds or the status: what is
    /// worked out from them is worked out again only then (the People tab's sums).
    public private(set) var version = 0
    private let events: EventSink<StoreEvent>

    private let api: any SavingsAPI
    private let users: UserDirectory?
    private var generation = 0
    private var feedGenerations: [GoalID: Int] = [:]
    private var pending = 0

    /// When the goals shown came from the offline cache (before the server answered), when
    /// they were fetched; nil once fresh ones arrived.
    public private(set) var cachedAt: Date?
    private let cache: (any OfflineCache)?

    /// `cache`: the offline cache behind `api`, if there is one (its goals are shown while the server is asked).
    public init(api: any SavingsAPI, users: UserDirectory? = nil, cache: (any OfflineCache)? = nil,
                events: EventSink<StoreEvent> = .ignored) {
        self.api = api
        self.users = users
        self.cache = cache
        self.events = events
    }

    public var isBusy: Bool { pending > 0 }

    public func goal(id: GoalID) -> Goal? { goals.first { $0.id == id } }

    public func feed(for goalId: GoalID) -> GoalFeedState { feeds[goalId] ?? GoalFeedState() }

    /// Fetches goals and rules together; what is shown stays until the new answer arrives.
    public func load() {
        generation += 1
        let generation = self.generation
        status = .loading
        pending += 1
        let api = self.api
        let cache = goals.isEmpty ? self.cache : nil
        Task { [weak self] in
            // The requests go out first; while they are on their way, what the cache has is
            // drawn (stale while revalidate) and then replaced.
            async let goals = api.goals()
            async let rules = api.rules()
            if let cache, let cachedGoals = await cache.goals() {
                let cachedRules = await cache.rules()?.value ?? []
                self?.showCached(cachedGoals, rules: cachedRules, generation: generation)
            }
            let result: Result<([Goal], [SavingsRule]), Error>
            do {
                result = .success(try await (goals, rules))
            } catch {
                result = .failure(error)
            }
            self?.finishLoad(result, generation: generation)
        }
        events.send(.goals)
    }

    private func showCached(_ goals: Cached<[Goal]>, rules: [SavingsRule], generation: Int) {
        guard generation == self.generation, status == .loading, self.goals.isEmpty else { return }
        self.goals = goals.value.filter { $0.status == .active }
        rulesById = Dictionary(rules.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        cachedAt = goals.fetchedAt
        events.send(.goals)
    }

    private func finishLoad(_ result: Result<([Goal], [SavingsRule]), Error>, generation: Int) {
        pending -= 1
        guard generation == self.generation else { return }
        switch result {
        case .success(let (goals, rules)):
            self.goals = goals.filter { $0.status == .active }
            cachedAt = nil
            rulesById = Dictionary(rules.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            status = .loaded
            // Feeds that arrived before the rules get their rules now.
            for (goalId, state) in feeds {
                feeds[goalId]?.entries = state.entries.map { FeedEntry(item: $0.item, rule: $0.item.savingsRuleId.flatMap { rulesById[$0] }) }
            }
            for goal in self.goals {
                users?.request([goal.ownerId] + goal.connectedUserIds)
            }
        case .failure(let error):
            status = .failed(GoalStore.message(error, request: "GET /savingsgoals"))
        }
        events.send(.goals)
    }

    /// Fetches one goal's feed (again); entries shown stay until the answer arrives.
    public func loadFeed(goalId: GoalID) {
        let generation = (feedGenerations[goalId] ?? 0) + 1
        feedGenerations[goalId] = generation
        feeds[goalId, default: GoalFeedState()].status = .loading
        pending += 1
        let api = self.api
        let cache = feed(for: goalId).entries.isEmpty ? self.cache : nil
        Task { [weak self] in
            async let items = api.feed(goalId: goalId)
            if let cache, let cached = await cache.feed(goalId: goalId) {
                self?.showCachedFeed(goalId: goalId, cached.value, generation: generation)
            }
            let result: Result<[FeedItem], Error>
            do {
                result = .success(try await items)
            } catch {
                result = .failure(error)
            }
            self?.finishFeed(goalId: goalId, result, generation: generation)
        }
        events.send(.goalFeed(goalId))
    }

    private func showCachedFeed(goalId: GoalID, _ items: [FeedItem], generation: Int) {
        guard feedGenerations[goalId] == generation, feed(for: goalId).entries.isEmpty else { return }
        feeds[goalId]?.entries = entries(items)
        events.send(.goalFeed(goalId))
    }

    private func entries(_ items: [FeedItem]) -> [FeedEntry] {
        items.sorted { $0.timestamp > $1.timestamp }
            .map { FeedEntry(item: $0, rule: $0.savingsRuleId.flatMap { rulesById[$0] }) }
    }

    private func finishFeed(goalId: GoalID, _ result: Result<[FeedItem], Error>, generation: Int) {
        pending -= 1
        guard feedGenerations[goalId] == generation else { return }
        switch result {
        case .success(let items):
            feeds[goalId] = GoalFeedState(entries: entries(items), status: .loaded)
            users?.request(Set(items.map(\.userId)))
        case .failure(let error):
            feeds[goalId, default: GoalFeedState()].status = .failed(GoalStore.message(error, request: "GET /savingsgoals/\(goalId)/feed"))
        }
        events.send(.goalFeed(goalId))
    }

    /// A goal the server changed (after a transfer) or created: shown at once.
    public func apply(_ goal: Goal) {
        if let index = goals.firstIndex(where: { $0.id == goal.id }) {
            if goal.status == .active { goals[index] = goal } else { goals.remove(at: index) }
        } else if goal.status == .active {
            goals.append(goal)
        }
        events.send(.goals)
    }

    static func message(_ error: Error, request: String) -> String {
        if let error = error as? APIError { return error.message }
        return "\(request): \(error)"
    }
}
