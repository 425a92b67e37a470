import FeedModel

/// A one-time event a test waits for instead of polling with sleeps: whoever sees it happen
/// (a server's thread, a handler) calls `fire()`, and `wait()` returns once it has, at once if
/// it already did. A wait for an event that never comes ends when the test's task is cancelled
/// (its time limit), so the test goes on to fail instead of hanging the run.
public final class TestSignal: Sendable {
    private struct State {
        var fired = false
        var next = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())

    public init() {}

    public var hasFired: Bool { state.withLock { $0.fired } }

    public func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.fired else { return [] }
            state.fired = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    public func wait() async {
        let id = state.withLock { state -> Int in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.fired || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}

/// How long a test's client waits for an answer from a server the test started and saw ready (in
/// this process, on `ServeExecutor`'s threads, or `serve` as a child that printed its address):
/// only a bound for a hang, far past any answer on a loaded machine, never a wait a test relies on.
public let serverAnswerTimeout: Double = 60
