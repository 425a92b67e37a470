import Foundation

/// Runs an `ActivityPager` against an API: performs its requests in tasks and feeds the answers
/// back on the main actor, where the app's event loop lives; each change is posted as `.activityPage`.
///
/// Requests are paced (`RequestPacer`: 32 at once, then 20 a second), across refreshes too.
@MainActor
public final class ActivityFeed {
    public private(set) var pager: ActivityPager { didSet { version &+= 1 } }
    /// Changes with every change of what is shown: what is worked out from the activities is
    /// worked out again only then.
    public private(set) var version = 0
    private let events: EventSink<StoreEvent>
    private let cache: (any OfflineCache)?
    private let api: any SavingsAPI
    private let now: @Sendable () -> Date
    private var tasks: [PageRequest: Task<Void, Never>] = [:]
    private var pacer: RequestPacer
    private let uptime: @Sendable () -> TimeInterval
    private let sleep: @Sendable (TimeInterval) async -> Void

    /// `cache`: the offline cache behind `api`, if there is one (its newest page is shown while the server is asked).
    /// `uptime` and `sleep` are the pacer's monotonic clock and wait (tests pass their own).
    public init(api: any SavingsAPI, cache: (any OfflineCache)? = nil, maxInFlight: Int = 8,
                now: @escaping @Sendable () -> Date = { Date() }, events: EventSink<StoreEvent> = .ignored,
                pacer: RequestPacer = RequestPacer(),
                uptime: @escaping @Sendable () -> TimeInterval = { ProcessInfo.processInfo.systemUptime },
                sleep: @escaping @Sendable (TimeInterval) async -> Void = { try? await Task.sleep(for: .seconds($0)) }) {
        self.api = api
        self.cache = cache
        self.events = events
        self.now = now
        self.pager = ActivityPager(maxInFlight: maxInFlight)
        self.pacer = pacer
        self.uptime = uptime
        self.sleep = sleep
    }

    /// What is shown: the pager's activities, or during a refresh, until its first page
    /// arrives, what was shown before.
    public var activities: [Activity] { shownDuringRefresh ?? pager.activities }
    /// Changes whenever `activities` is replaced rather than appended to.
    public private(set) var listIdentity = 0
    private var shownDuringRefresh: [Activity]? { didSet { version &+= 1 } }
    public var phase: ActivityPager.Phase { pager.phase }
    public var isBusy: Bool { !tasks.isEmpty }

    /// Starts over (also the refresh): the old generation's answers are dropped and its requests cancelled.
    public func start() {
        refreshedFrom = nil
        start(keeping: nil)
        showCachedFirstPage()
    }

    /// With an offline cache behind the API, what it has of the newest two weeks is shown at
    /// once, until the server's first page replaces it (stale while revalidate).
    private func showCachedFirstPage() {
        guard let cache else { return }
        let generation = pager.generation
        let window = pager.window(0)
        Task { [weak self] in
            guard let cached = await cache.activities(from: window.from, to: window.to, allowPartial: true),
                  !cached.value.activities.isEmpty else { return }
            self?.showWhileLoading(cached.value.activities, generation: generation)
        }
    }

    private func showWhileLoading(_ activities: [Activity], generation: Int) {
        guard generation == pager.generation, pager.activities.isEmpty, shownDuringRefresh == nil,
              pager.phase == .loading(firstPage: true) else { return }
        var seen: Set<String> = []
        shownDuringRefresh = activities.filter { seen.insert($0.id).inserted }
        listIdentity += 1
        events.send(.activityPage)
    }

    /// What a refresh changed, once its list replaced the one shown (taken once, for the status bar).
    public struct RefreshChange: Equatable, Sendable {
        /// Activities that were not there before, and those that went.
        public var added: Int
        public var removed: Int

        /// "Refreshed: 2 new activities", "Refreshed: nothing changed".
        public var summary: String {
            func count(_ n: Int, _ what: String) -> String { n == 1 ? "1 \(what) activity" : "\(n) \(what) activities" }
            let parts = [added > 0 ? count(added, "new") : nil, removed > 0 ? count(removed, "removed") : nil].compactMap { $0 }
            return "Refreshed: " + (parts.isEmpty ? "nothing changed" : parts.joined(separator: ", ")) + "."
        }
    }

    private var refreshedFrom: [Activity]?
    private var refreshChange: RefreshChange?

    /// What the last refresh changed, once (nil until its list is shown, and after it was taken).
    public func takeRefreshChange() -> RefreshChange? {
        defer { refreshChange = nil }
        return refreshChange
    }

    /// Loads again what is loaded (as many windows back), showing what is shown until the new
    /// list reaches as far (or, if it fails, until a retry brings it), then says what changed.
    public func refresh() {
        let shown = activities
        let depth = pager.windowsDelivered
        refreshedFrom = shown
        start(keeping: shown.isEmpty ? nil : shown, depth: depth)
    }

    private func start(keeping shown: [Activity]?, depth: Int = 0) {
        for task in tasks.values { task.cancel() }
        tasks = [:]
        shownDuringRefresh = shown
        listIdentity += 1
        perform(pager.start(now: now(), depth: depth))
        events.send(.activityPage)
    }

    public func viewportChanged(cursor: Int, screenHeight: Int) {
        perform(pager.viewportChanged(cursor: cursor, screenHeight: screenHeight))
    }

    public func retry() {
        perform(pager.retry())
        events.send(.activityPage)
    }

    /// After a year of empty windows (`.pausedAfterEmptyYear`): looks another year further back.
    public func keepLooking() {
        perform(pager.keepLooking())
        events.send(.activityPage)
    }

    private func perform(_ requests: [PageRequest]) {
        for request in requests {
            let api = self.api
            let sleep = self.sleep
            let delay = pacer.reserve(now: uptime())
            tasks[request] = Task { [weak self] in
                let result: Result<ActivityPage, APIError>
                if delay > 0 { await sleep(delay) }
                do {
                    try Task.checkCancellation()
                    result = .success(try await api.activities(from: request.window.from, to: request.window.to))
                } catch let error as APIError {
                    result = .failure(error)
                } catch is CancellationError {
                    result = .failure(APIError(kind: .cancelled, request: "GET /activities", message: "GET /activities: cancelled"))
                } catch {
                    result = .failure(APIError(kind: .transport, request: "GET /activities", message: "GET /activities: \(error)"))
                }
                self?.receive(request, result)
            }
        }
    }

    private func receive(_ request: PageRequest, _ result: Result<ActivityPage, APIError>) {
        tasks[request] = nil
        guard request.generation == pager.generation else { return }
        perform(pager.receive(request, result))
        if shownDuringRefresh != nil, !pager.activities.isEmpty && !pager.isRefilling || pager.phase == .atEnd || pager.isPaused {
            shownDuringRefresh = nil
            listIdentity += 1
        }
        if let before = refreshedFrom, shownDuringRefresh == nil, !pager.isRefilling || pager.phase == .atEnd || pager.isPaused {
            // (Short of the end, what lies past the new list's oldest was not asked for again.)
            let floor = pager.phase == .atEnd ? nil : pager.activities.last?.timestamp
            // By id: two look-alikes are two, a pending payment that settled is still one.
            let old = Set(before.filter { floor == nil || $0.timestamp >= floor! }.map(\.id)), new = Set(pager.activities.map(\.id))
            refreshChange = RefreshChange(added: new.subtracting(old).count, removed: old.subtracting(new).count)
            refreshedFrom = nil
        }
        events.send(.activityPage)
    }
}
