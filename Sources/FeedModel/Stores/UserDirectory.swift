import Foundation

/// What is known of a user id.
public enum UserLookup: Equatable, Sendable {
    case loading
    case found(User)
    /// The server answered 404: shown as `User #ID`.
    case unknown
    case failed(String)
}

/// Users by id: each fetched once and cached; concurrent look-ups of one id share one request;
/// a 404 is remembered as unknown; a failed look-up is tried again after `retryAfter`.
@MainActor
public final class UserDirectory {
    private enum Entry {
        case pending(Task<UserLookup, Never>)
        case done(UserLookup, at: Date)
    }

    private let events: EventSink<StoreEvent>
    private let api: any SavingsAPI
    private let now: @Sendable () -> Date
    private let retryAfter: TimeInterval
    private var entries: [Int: Entry] = [:]

    public init(api: any SavingsAPI, retryAfter: TimeInterval = 30, now: @escaping @Sendable () -> Date = { Date() },
                events: EventSink<StoreEvent> = .ignored) {
        self.api = api
        self.retryAfter = retryAfter
        self.now = now
        self.events = events
    }

    /// What is known now. Only reads: nothing is fetched (screens say which users they show and
    /// the app asks for them with `request`); `.loading` until an answer is in.
    public func lookup(_ id: Int) -> UserLookup {
        switch entries[id] {
        case .pending, nil: .loading
        case .done(let result, _): result
        }
    }

    /// The display name; `User #ID` while loading or when the server does not know the id (404);
    /// `User ID (not loaded)` when the look-up failed (asked again after `retryAfter`), so a
    /// failure never reads as a person the server does not know.
    public func displayName(for id: Int) -> String {
        switch lookup(id) {
        case .found(let user): user.displayName
        case .failed: User.notLoadedName(for: id)
        case .loading, .unknown: User.placeholderName(for: id)
        }
    }

    /// Fetches the users nothing usable is known of: never asked, or failed `retryAfter` ago.
    /// Users in flight or known are not asked again. Each arrival is posted as `.user(id)`.
    public func request(_ ids: some Sequence<Int>) {
        for id in ids {
            switch entries[id] {
            case .pending:
                continue
            case .done(let result, let at):
                if case .failed = result, now().timeIntervalSince(at) >= retryAfter { fetch(id) }
            case nil:
                fetch(id)
            }
        }
    }

    /// Waits for the user, sharing any request already in flight. When it returns, `lookup`
    /// says the same.
    public func user(_ id: Int) async -> UserLookup {
        request([id])
        guard case .pending(let task) = entries[id] else { return lookup(id) }
        let result = await task.value
        settle(id, task, result)
        return result
    }

    var pendingCount: Int {
        entries.values.reduce(0) { count, entry in
            if case .pending = entry { return count + 1 }
            return count
        }
    }

    /// Forgets failed look-ups so the next `request` asks again at once (an explicit refresh).
    public func retryFailed() {
        entries = entries.filter { _, entry in
            if case .done(.failed, _) = entry { return false }
            return true
        }
    }

    private func fetch(_ id: Int) {
        let api = self.api
        let task = Task<UserLookup, Never> {
            do {
                return .found(try await api.user(id: id))
            } catch let error as APIError where error.kind == .notFound {
                return .unknown
            } catch let error as APIError {
                return .failed(error.message)
            } catch {
                return .failed("GET /users/\(id): \(error)")
            }
        }
        entries[id] = .pending(task)
        Task { [weak self] in
            let result = await task.value
            self?.settle(id, task, result)
        }
    }

    /// Records the answer of `task` once, whoever sees it first (`user` or the watcher `fetch`
    /// starts), and posts `.user(id)`.
    private func settle(_ id: Int, _ task: Task<UserLookup, Never>, _ result: UserLookup) {
        guard case .pending(let pending) = entries[id], pending == task else { return }
        entries[id] = .done(result, at: now())
        events.send(.user(id))
    }
}

extension UserDirectory {
    /// Lookups still in flight.
    public var isBusy: Bool { pendingCount > 0 }
}
