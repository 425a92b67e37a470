import Foundation
import Synchronization
@testable import FeedModel

/// A fake API for tests: answers from scripts, counts calls, and can hold answers back until
/// the test releases them (no sleeps anywhere).
final class ScriptedAPI: SavingsAPI {
    struct State {
        var userCalls: [Int] = []
        var activityCalls: [ActivityWindow] = []
        var users: [Int: Result<User, APIError>] = [:]
        var gateOpen = true
        var waiters: [CheckedContinuation<Void, Never>] = []
        var activities: @Sendable (Date, Date) -> Result<ActivityPage, APIError> = { _, _ in
            .success(ActivityPage(oldest: Date(timeIntervalSince1970: 0), activities: []))
        }
        var goals: Result<[Goal], APIError> = .success([])
        var feeds: [GoalID: Result<[FeedItem], APIError>] = [:]
        var rules: [SavingsRule] = []
    }

    let state = Mutex(State())
    var sourceName: String { "scripted" }

    func update(_ change: (inout State) -> Void) { state.withLock { change(&$0) } }
    var userCalls: [Int] { state.withLock { $0.userCalls } }

    /// Holds every answer until `openGate()`.
    func closeGate() { state.withLock { $0.gateOpen = false } }

    func openGate() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.gateOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func passGate() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state -> Bool in
                if state.gateOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }

    func goals() async throws -> [Goal] {
        await passGate()
        return try state.withLock { $0.goals }.get()
    }

    func feed(goalId: GoalID) async throws -> [FeedItem] {
        await passGate()
        return try (state.withLock { $0.feeds[goalId] } ?? .success([])).get()
    }

    func rules() async throws -> [SavingsRule] {
        await passGate()
        return state.withLock { $0.rules }
    }

    func user(id: Int) async throws -> User {
        state.withLock { $0.userCalls.append(id) }
        await passGate()
        let label = "GET /users/\(id)"
        return try (state.withLock { $0.users[id] } ?? .failure(APIError(kind: .notFound, request: label, message: "\(label): not found (HTTP 404)"))).get()
    }

    func activities(from: Date, to: Date) async throws -> ActivityPage {
        let script = state.withLock { state in
            state.activityCalls.append(ActivityWindow(index: state.activityCalls.count, from: from, to: to))
            return state.activities
        }
        await passGate()
        return try script(from, to).get()
    }

    func transactions(from: Date, to: Date) async throws -> [Transaction] { [] }

    func createGoal(name: String, target: Money?) async throws -> Goal {
        throw APIError(kind: .rejected, request: "POST /savingsgoals", message: "not scripted")
    }

    func transfer(goalId: GoalID, transferId: UUID, amount: Money) async throws -> Goal {
        throw APIError(kind: .rejected, request: "POST", message: "not scripted")
    }
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = Mutex(start) }
    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
