import Foundation

/// A value from the offline cache with when it was fetched from the server.
public struct Cached<Value: Sendable>: Sendable {
    public var value: Value
    public var fetchedAt: Date

    public init(_ value: Value, fetchedAt: Date) {
        self.value = value
        self.fetchedAt = fetchedAt
    }
}

/// What was fetched before, kept across runs (the SQLite cache implements it; FeedModel only
/// knows this protocol). Reads never throw: a cache that cannot answer answers nil.
public protocol OfflineCache: Sendable {
    func goals() async -> Cached<[Goal]>?
    func saveGoals(_ goals: [Goal], at date: Date) async
    func rules() async -> Cached<[SavingsRule]>?
    func saveRules(_ rules: [SavingsRule], at date: Date) async
    func user(id: Int) async -> Cached<User>?
    func saveUser(_ user: User, at date: Date) async
    func feed(goalId: GoalID) async -> Cached<[FeedItem]>?
    func saveFeed(_ items: [FeedItem], goalId: GoalID, at date: Date) async
    /// The activities of `[from, to)`: nil unless that whole span was fetched before, or, with
    /// `allowPartial`, whatever part of it was. `fetchedAt` is the oldest fetch it relies on.
    func activities(from: Date, to: Date, allowPartial: Bool) async -> Cached<ActivityPage>?
    func saveActivities(_ page: ActivityPage, from: Date, to: Date, at date: Date) async
    /// The bytes of a goal image or avatar fetched before.
    func image(at url: URL) async -> Cached<Data>?
    func saveImage(_ data: Data, at url: URL, fetchedAt date: Date) async
    /// The bank account as the header last showed it (holder, numbers, balance).
    func account() async -> Cached<Account>?
    func saveAccount(_ account: Account, at date: Date) async
    /// The first failure to keep something (a full disk), once: nil before and after.
    func takeWriteProblem() -> String?
    /// A clean quit: what the cache keeps is folded into its file (no write-ahead log left beside it).
    func checkpoint()
}

extension OfflineCache {
    public func account() async -> Cached<Account>? { nil }
    public func saveAccount(_ account: Account, at date: Date) async {}
    public func takeWriteProblem() -> String? { nil }
    public func checkpoint() {}
}

/// Whether the server answers, as the last request found; read by the status bar.
public final class Connectivity: Sendable {
    public enum State: Equatable, Sendable {
        case online
        /// Requests fail to connect; cached data is shown.
        case offline(since: Date)
    }

    private let state = MutexBox<State>(.online)
    /// A request was answered from the cache since the server was last reached.
    private let answeredFromCache = MutexBox(false)

    public init() {}

    public var current: State { state.value }
    public var isOffline: Bool { if case .offline = state.value { return true } else { return false } }

    /// Offline, and something the cache kept was answered instead (so "showing cached data" is
    /// true); offline with nothing kept to show, it is false.
    public var showsCachedData: Bool { isOffline && answeredFromCache.value }

    func reachedServer() {
        state.value = .online
        answeredFromCache.value = false
    }

    func servedFromCache() { answeredFromCache.value = true }

    private let cacheNotes = MutexBox<[String]>([])

    /// A note about the cache (a full disk) for the status bar, each said once.
    public func takeCacheNote() -> String? {
        var note: String?
        cacheNotes.update { notes in
            if !notes.isEmpty { note = notes.removeFirst() }
        }
        return note
    }

    public var hasCacheNote: Bool { !cacheNotes.value.isEmpty }

    func noteAboutCache(_ note: String) { cacheNotes.update { $0.append(note) } }

    func failedToConnect(at date: Date) {
        state.update { if case .online = $0 { $0 = .offline(since: date) } }
    }
}

extension APIError {
    /// The server could not be reached at all (as opposed to answering badly).
    public var isConnectivity: Bool {
        switch kind {
        case .cannotConnect, .timedOut, .transport: true
        default: false
        }
    }
}
