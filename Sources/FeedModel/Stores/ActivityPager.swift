import Foundation

/// One two-week slice of history: `from ≤ t < to`, window 0 ending a day past the moment paging
/// began (`ActivityPager.lookAhead`).
public struct ActivityWindow: Hashable, Sendable {
    public let index: Int
    public let from: Date
    public let to: Date
}

/// A window to fetch for one generation of the pager (a refresh starts a new generation).
public struct PageRequest: Hashable, Sendable {
    public let generation: Int
    public let window: ActivityWindow
}

/// The activity feed's paging, as a pure state machine: events in, requests out.
///
/// It asks for two-week windows newest first, exactly and contiguously, each at most once per
/// generation. While windows come back empty it keeps up to `maxInFlight` of the following
/// windows in flight at once, and assembles results strictly in order. Beyond that it asks for
/// the next window only when the cursor comes within one screen height of the last loaded row.
/// It stops at the window that reaches `oldest`, learned from the responses. It also pauses
/// after `emptyWindowLimit` empty windows in a row (27 × 14 days: just over a year), so an absurd
/// `oldest` cannot turn into thousands of requests; `keepLooking()` walks another year.
///
/// An activity is shown once per generation, by its id only (`Activity.id`: the bank's own, or
/// a synthetic one that keeps look-alikes apart): two coffees with the same time, amount and
/// text are two rows; the same id delivered twice (again in a later window, or a pending item
/// that settled at another time) is one, the first delivered. The ids seen in the generation
/// are found through a small index into the rows (`ActivityIDIndex`).
public struct ActivityPager: Sendable {
    public enum Phase: Equatable, Sendable {
        /// Nothing asked for yet.
        case idle
        /// The next window to show is on its way; `firstPage` while nothing is shown yet.
        case loading(firstPage: Bool)
        /// Everything asked for is shown; more comes on demand.
        case ready
        /// The next window failed; `retry()` asks for it again and keeps what is shown.
        case failed(String)
        /// The whole history is shown.
        case atEnd
        /// A year of windows in a row came back empty: nothing more is asked for until
        /// `keepLooking()`. There is no activity between `before` and a year earlier.
        case pausedAfterEmptyYear(before: Date)
    }

    /// Empty windows in a row after which walking pauses: 27 × 14 days = 378 days, over a year.
    public static let defaultEmptyWindowLimit = 27

    public static let windowLength: TimeInterval = 14 * 86_400

    /// How far past our "now" the newest window reaches: a server whose clock is ahead of ours
    /// stamps what it does now minutes (or hours) in our future, and that must be shown.
    public static let lookAhead: TimeInterval = 86_400

    /// Where windows begin and end: `now` up to the next whole second, as queries carry whole
    /// seconds, so no window end falls inside a second the server may stamp (22:40:08.637).
    public static func anchor(_ now: Date) -> Date {
        Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.up))
    }

    /// The end of the newest window for `now`: past the newest moment a server may stamp.
    public static func newestEnd(_ now: Date) -> Date {
        anchor(now).addingTimeInterval(lookAhead)
    }

    public let maxInFlight: Int
    public let emptyWindowLimit: Int
    public private(set) var generation = 0
    /// Everything delivered so far, newest first, never duplicated.
    public private(set) var activities: [Activity] = []
    public private(set) var phase: Phase = .idle
    /// The oldest activity date, as the server last said.
    public private(set) var oldest: Date?
    /// Requests made in this generation (for tests and figures).
    public private(set) var requestCount = 0
    /// Windows delivered in this generation (shown, in order).
    public var windowsDelivered: Int { nextToDeliver }
    /// A refresh walks back at least this many windows (as far as was loaded before it).
    public private(set) var refillDepth = 0

    private var anchor = Date(timeIntervalSince1970: 0)
    private var nextToDeliver = 0
    private var requested: Set<Int> = []
    private var inFlight: Set<Int> = []
    private var arrived: [Int: Result<ActivityPage, APIError>] = [:]
    private var lastDeliveredWasEmpty = false
    /// The first window of the current stretch of empty windows (or of the stretch since `keepLooking()`).
    private var emptyRunStart: Int?
    private var cursor = 0
    private var screenHeight = 0
    /// The ids delivered in this generation (indexes into `activities`).
    private var seenIDs = ActivityIDIndex()

    /// Whether walking paused after a year of empty windows.
    public var isPaused: Bool {
        if case .pausedAfterEmptyYear = phase { true } else { false }
    }

    public init(maxInFlight: Int = 8, emptyWindowLimit: Int = ActivityPager.defaultEmptyWindowLimit) {
        self.maxInFlight = max(1, maxInFlight)
        self.emptyWindowLimit = max(1, emptyWindowLimit)
    }

    /// Window `index`: two weeks back from the anchor; the newest (0) also reaches `lookAhead` past it.
    public func window(_ index: Int) -> ActivityWindow {
        let to = anchor.addingTimeInterval(-Double(index) * ActivityPager.windowLength)
        return ActivityWindow(index: index, from: to.addingTimeInterval(-ActivityPager.windowLength),
                              to: index == 0 ? to.addingTimeInterval(ActivityPager.lookAhead) : to)
    }

    /// Starts over from `now`: a new generation whose old answers will be dropped. `depth`: the
    /// windows to load again at once whatever the cursor (a refresh reloads what was loaded).
    public mutating func start(now: Date, depth: Int = 0) -> [PageRequest] {
        generation += 1
        refillDepth = depth
        anchor = ActivityPager.anchor(now)
        activities = []
        seenIDs.removeAll()
        oldest = nil
        requestCount = 0
        nextToDeliver = 0
        requested = []
        inFlight = []
        arrived = [:]
        lastDeliveredWasEmpty = false
        emptyRunStart = nil
        phase = .loading(firstPage: true)
        return pump()
    }

    /// The screen says where the cursor is and how many rows it shows.
    public mutating func viewportChanged(cursor: Int, screenHeight: Int) -> [PageRequest] {
        self.cursor = cursor
        self.screenHeight = screenHeight
        return pump()
    }

    /// After a failure: asks for the failed window again, keeping everything shown.
    public mutating func retry() -> [PageRequest] {
        guard case .failed = phase else { return [] }
        arrived[nextToDeliver] = nil
        requested.remove(nextToDeliver)
        // The user asked: the failed window goes out again whatever the cursor's distance.
        let failed = window(nextToDeliver)
        requested.insert(failed.index)
        inFlight.insert(failed.index)
        requestCount += 1
        phase = .loading(firstPage: activities.isEmpty)
        return [PageRequest(generation: generation, window: failed)] + pump()
    }

    /// After a pause on an empty year: walks up to another year further back.
    public mutating func keepLooking() -> [PageRequest] {
        guard case .pausedAfterEmptyYear = phase else { return [] }
        emptyRunStart = nextToDeliver
        phase = .loading(firstPage: activities.isEmpty)
        return pump()
    }

    /// An answer arrived. Answers of an older generation, or for windows past the end, are dropped.
    public mutating func receive(_ request: PageRequest, _ result: Result<ActivityPage, APIError>) -> [PageRequest] {
        guard request.generation == generation, inFlight.remove(request.window.index) != nil else { return [] }
        if phase == .atEnd { return [] }
        arrived[request.window.index] = result
        deliverInOrder()
        return pump()
    }

    private mutating func deliverInOrder() {
        while let result = arrived[nextToDeliver] {
            switch result {
            case .failure(let error):
                phase = .failed(error.message)
                return
            case .success(let page):
                arrived[nextToDeliver] = nil
                oldest = page.oldest
                let window = window(nextToDeliver)
                // Only what lies inside the window, so overlapping or sloppy answers never duplicate.
                let inside = page.activities.filter { activity in
                    activity.timestamp >= window.from
                        && (activity.timestamp < window.to || (window.index == 0 && activity.timestamp == window.to))
                }
                for activity in inside.sorted(by: { $0.timestamp > $1.timestamp }) where seenIDs.insert(activity, appendingTo: activities) {
                    activities.append(activity)
                }
                lastDeliveredWasEmpty = inside.isEmpty
                if !inside.isEmpty {
                    emptyRunStart = nil
                } else if emptyRunStart == nil {
                    emptyRunStart = nextToDeliver
                }
                nextToDeliver += 1
                if window.from <= page.oldest {
                    phase = .atEnd
                    arrived = [:]
                    return
                }
                if let run = emptyRunStart, nextToDeliver - run >= emptyWindowLimit {
                    // Nothing past the stretch was asked for (see `pump`), so nothing is in flight.
                    // From the newest window: before now (what lies ahead of it is not history).
                    phase = .pausedAfterEmptyYear(before: run == 0 ? anchor : self.window(run).to)
                    arrived = [:]
                    return
                }
            }
        }
        phase = inFlight.contains(nextToDeliver) ? .loading(firstPage: activities.isEmpty) : .ready
    }

    /// Whether a refresh is still loading again what was loaded before it.
    public var isRefilling: Bool { nextToDeliver < refillDepth }

    private var wantsMore: Bool {
        activities.isEmpty || lastDeliveredWasEmpty || isRefilling || cursor >= activities.count - screenHeight
    }

    private mutating func pump() -> [PageRequest] {
        switch phase {
        case .failed, .atEnd, .idle, .pausedAfterEmptyYear: return []
        case .loading, .ready: break
        }
        guard wantsMore else { return [] }
        // Walking an empty stretch: keep several windows ahead in flight; otherwise one at a time.
        let depth = lastDeliveredWasEmpty ? maxInFlight : isRefilling ? min(maxInFlight, refillDepth - nextToDeliver) : 1
        // Never ask past the end of a year of empty windows: there the walk pauses.
        let limit = emptyRunStart.map { $0 + emptyWindowLimit } ?? Int.max
        var requests: [PageRequest] = []
        for index in nextToDeliver..<(nextToDeliver + depth) where inFlight.count < maxInFlight {
            guard index < limit else { break }
            guard !requested.contains(index) else { continue }
            let window = window(index)
            if let oldest, window.to <= oldest { break }
            requested.insert(index)
            inFlight.insert(index)
            requestCount += 1
            requests.append(PageRequest(generation: generation, window: window))
        }
        if inFlight.contains(nextToDeliver) { phase = .loading(firstPage: activities.isEmpty) }
        return requests
    }
}
