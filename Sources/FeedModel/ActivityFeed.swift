import Foundation

/// Runs an `ActivityPager` against an API: performs its requests in tasks and feeds the answers
/// back on the main actor, where the app's event loop lives. `onChange` tells the app to redraw.
@MainActor
public final class ActivityFeed {
    public private(set) var pager: ActivityPager
    public var onChange: (@MainActor () -> Void)?
    private let api: any SavingsAPI
    private let now: @Sendable () -> Date
    private var tasks: [PageRequest: Task<Void, Never>] = [:]

    public init(api: any SavingsAPI, maxInFlight: Int = 8, now: @escaping @Sendable () -> Date = { Date() }) {
        self.api = api
        self.now = now
        self.pager = ActivityPager(maxInFlight: maxInFlight)
    }

    /// What is shown: the pager's activities, or during a refresh, until its first page
    /// arrives, what was shown before.
    public var activities: [Activity] { shownDuringRefresh ?? pager.activities }
    /// Changes whenever `activities` is replaced rather than appended to.
    public private(set) var listIdentity = 0
    private var shownDuringRefresh: [Activity]?
    public var phase: ActivityPager.Phase { pager.phase }
    public var isBusy: Bool { !tasks.isEmpty }

    /// Starts over (also the refresh): the old generation's answers are dropped and its requests cancelled.
    public func start() {
        start(keeping: nil)
        showCachedFirstPage()
    }

    /// With an offline cache behind the API, what it has of the newest two weeks is shown at
    /// once, until the server's first page replaces it (stale while revalidate).
    private func showCachedFirstPage() {
        guard let cache = (api as? CachingSavingsAPI)?.cache else { return }
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
        var seen: Set<Activity> = []
        shownDuringRefresh = activities.filter { seen.insert($0).inserted }
        listIdentity += 1
        onChange?()
    }

    /// Starts over but keeps showing what is shown until the new first page arrives (or, if
    /// it fails, until a retry brings one).
    public func refresh() {
        let shown = activities
        start(keeping: shown.isEmpty ? nil : shown)
    }

    private func start(keeping shown: [Activity]?) {
        for task in tasks.values { task.cancel() }
        tasks = [:]
        shownDuringRefresh = shown
        listIdentity += 1
        perform(pager.start(now: now()))
        onChange?()
    }

    public func viewportChanged(cursor: Int, screenHeight: Int) {
        perform(pager.viewportChanged(cursor: cursor, screenHeight: screenHeight))
    }

    public func retry() {
        perform(pager.retry())
        onChange?()
    }

    private func perform(_ requests: [PageRequest]) {
        for request in requests {
            let api = self.api
            tasks[request] = Task { [weak self] in
                let result: Result<ActivityPage, APIError>
                do {
                    result = .success(try await api.activities(from: request.window.from, to: request.window.to))
                } catch let error as APIError {
                    result = .failure(error)
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
        if shownDuringRefresh != nil, !pager.activities.isEmpty || pager.phase == .atEnd {
            shownDuringRefresh = nil
            listIdentity += 1
        }
        onChange?()
    }
}
