import FeedModel

/// One holder at a time in the whole test process, waited for without holding a thread.
///
/// Every test target is linked into one test process, and Swift Testing runs the targets'
/// suites side by side. Each target that has suites blocking a thread (a pseudo-terminal's or a
/// raw socket's polling reads) keeps them under its own `.serialized` `BlockingTests` parent,
/// and that parent holds `BlockingGate.suites` for its whole run (`.oneBlockingSuiteAtATime`,
/// declared next to it). So at most one thread is ever blocked by them, in any target: two
/// blocked threads would take the whole cooperative pool (one thread a core, two here), and
/// the in-process servers' handlers with it.
public final class BlockingGate: Sendable {
    /// The gate every target's `BlockingTests` parent shares.
    public static let suites = BlockingGate()

    private struct State {
        var holder: String?
        var waiters: [(name: String, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    public init() {}

    /// Who holds the gate now (the name passed to `acquire`), or nil.
    public var holder: String? {
        state.withLock { $0.holder }
    }

    /// Waits (suspended, not blocking) until the gate is free, then holds it as `name`.
    public func acquire(as name: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.holder == nil else {
                    state.waiters.append((name, continuation))
                    return false
                }
                state.holder = name
                return true
            }
            if now { continuation.resume() }
        }
    }

    /// Hands the gate to the longest waiter, or frees it.
    public func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.holder = nil
                return nil
            }
            let next = state.waiters.removeFirst()
            state.holder = next.name
            return next.continuation
        }
        next?.resume()
    }

    /// Runs `body` holding the gate as `name`.
    public func holding<T: Sendable>(as name: String, _ body: () async throws -> T) async rethrows -> T {
        await acquire(as: name)
        defer { release() }
        return try await body()
    }
}
