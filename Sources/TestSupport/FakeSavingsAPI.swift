import FeedModel
import Foundation

/// The one fake `SavingsAPI` of the tests and the bench: every endpoint answers from a script
/// when one is set, else from `base` (usually the demo), else with an empty answer. It logs
/// every call, can make endpoints unreachable, hold answers back until released (no sleeps),
/// and make transfers fail before or after the base applied them.
public final class FakeSavingsAPI: SavingsAPI {
    public enum Endpoint: Hashable, Sendable, CaseIterable {
        case goals, feed, rules, user, activities, transactions, createGoal, transfer, image
    }

    /// One request, as it reached the fake (before any gate).
    public enum Call: Hashable, Sendable {
        case goals
        case feed(GoalID)
        case rules
        case user(Int)
        case activities(from: Date, to: Date)
        case transactions(from: Date, to: Date)
        case createGoal(name: String)
        case transfer(goalId: GoalID, transferId: UUID, amount: Money)
        case image(URL)

        public var endpoint: Endpoint {
            switch self {
            case .goals: .goals
            case .feed: .feed
            case .rules: .rules
            case .user: .user
            case .activities: .activities
            case .transactions: .transactions
            case .createGoal: .createGoal
            case .transfer: .transfer
            case .image: .image
            }
        }
    }

    /// How a transfer goes wrong: before reaching `base`, or after `base` applied it (the answer lost).
    public enum TransferFault: Hashable, Sendable { case beforeApplying, afterApplying }

    /// Answers that replace `base`'s; each may throw an `APIError`.
    public struct Script: Sendable {
        public var goals: (@Sendable () throws -> [Goal])?
        public var feed: (@Sendable (GoalID) throws -> [FeedItem])?
        public var rules: (@Sendable () throws -> [SavingsRule])?
        public var user: (@Sendable (Int) throws -> User)?
        public var activities: (@Sendable (Date, Date) throws -> ActivityPage)?
        public var transactions: (@Sendable (Date, Date) throws -> [Transaction])?
        public var createGoal: (@Sendable (String, Money?) throws -> Goal)?
        /// Faults for the next transfers, first one first.
        public var transferFaults: [TransferFault] = []
        /// The transfer's answer instead of the base's (after `transferFaults`): a source's own
        /// errors, such as finding the week already saved.
        public var transfer: (@Sendable (GoalID, UUID, Money) throws -> Goal)?
        /// Endpoints that fail to connect, as a server that went away.
        public var unreachable: Set<Endpoint> = []
        /// The bank account (nil: the base's, or none).
        public var account: (@Sendable () throws -> Account?)?
        /// The account asked live (`currentAccount`), where it differs from `account` (a cache's
        /// kept answer); nil: as `account` answers.
        public var currentAccount: (@Sendable () throws -> Account?)?
        /// Whether the account carries `feedBalance` (nil: as the base says).
        public var saysFeedBalance: Bool?
        public init() {}
    }

    private struct State {
        var script = Script()
        var calls: [Call] = []
        var held: Set<Endpoint> = []
        var waiters: [(Endpoint, CheckedContinuation<Void, Never>)] = []
        var photos: [Data?] = []
    }

    public let base: (any SavingsAPI)?
    public let sourceName: String
    private let state = Locked(State())

    public init(base: (any SavingsAPI)? = nil, sourceName: String = "fake") {
        self.base = base
        self.sourceName = sourceName
    }

    // MARK: - Scripting and reading the log

    public func script(_ change: (inout Script) -> Void) {
        state.withLock { change(&$0.script) }
    }

    public var calls: [Call] { state.withLock { $0.calls } }

    public func count(_ endpoint: Endpoint) -> Int { calls.filter { $0.endpoint == endpoint }.count }

    public var userCalls: [Int] { calls.compactMap { if case .user(let id) = $0 { id } else { nil } } }

    /// The activity windows asked for, in the order they were asked.
    public var activityCalls: [(from: Date, to: Date)] {
        calls.compactMap { if case .activities(let from, let to) = $0 { (from, to) } else { nil } }
    }

    public var transactionCalls: [(from: Date, to: Date)] {
        calls.compactMap { if case .transactions(let from, let to) = $0 { (from, to) } else { nil } }
    }

    public var transferIds: [UUID] {
        calls.compactMap { if case .transfer(_, let id, _) = $0 { id } else { nil } }
    }

    // MARK: - Holding answers back

    /// Holds the answers of `endpoints` (all by default) until released.
    public func hold(_ endpoints: Set<Endpoint> = Set(Endpoint.allCases)) {
        state.withLock { $0.held.formUnion(endpoints) }
    }

    /// Stops holding and lets every held answer go.
    public func release() {
        let waiters = state.withLock { state in
            state.held = []
            defer { state.waiters = [] }
            return state.waiters
        }
        for (_, waiter) in waiters { waiter.resume() }
    }

    /// Lets the oldest held answer of `endpoint` go (the endpoint stays held).
    public func releaseOne(_ endpoint: Endpoint) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let index = state.waiters.firstIndex(where: { $0.0 == endpoint }) else { return nil }
            return state.waiters.remove(at: index).1
        }
        waiter?.resume()
    }

    /// Answers held right now.
    public var heldCount: Int { state.withLock { $0.waiters.count } }

    /// Logs the call, waits while its endpoint is held, fails if it is unreachable; the script.
    private func enter(_ call: Call) async throws -> Script {
        let endpoint = call.endpoint
        state.withLock { $0.calls.append(call) }
        await withCheckedContinuation { continuation in
            let held = state.withLock { state -> Bool in
                guard state.held.contains(endpoint) else { return false }
                state.waiters.append((endpoint, continuation))
                return true
            }
            if !held { continuation.resume() }
        }
        let script = state.withLock { $0.script }
        if script.unreachable.contains(endpoint) {
            let label = Self.label(call)
            throw APIError(kind: .cannotConnect, request: label, message: "\(label): cannot connect to 127.0.0.1:9")
        }
        return script
    }

    static func label(_ call: Call) -> String {
        switch call {
        case .goals, .createGoal: "GET /savingsgoals"
        case .feed(let id): "GET /savingsgoals/\(id)/feed"
        case .rules: "GET /savingsrules"
        case .user(let id): "GET /users/\(id)"
        case .activities: "GET /activities"
        case .transactions: "GET /transactions"
        case .transfer(let goalId, _, _): "POST /savingsgoals/\(goalId)/transfers"
        case .image(let url): "GET \(url.absoluteString)"
        }
    }

    private func notScripted(_ call: Call) -> APIError {
        let label = Self.label(call)
        return APIError(kind: .rejected, request: label, message: "\(label): not scripted")
    }

    // MARK: - SavingsAPI

    public func goals() async throws -> [Goal] {
        let script = try await enter(.goals)
        if let answer = script.goals { return try answer() }
        return try await base?.goals() ?? []
    }

    public func feed(goalId: GoalID) async throws -> [FeedItem] {
        let script = try await enter(.feed(goalId))
        if let answer = script.feed { return try answer(goalId) }
        return try await base?.feed(goalId: goalId) ?? []
    }

    public func rules() async throws -> [SavingsRule] {
        let script = try await enter(.rules)
        if let answer = script.rules { return try answer() }
        return try await base?.rules() ?? []
    }

    public func user(id: Int) async throws -> User {
        let script = try await enter(.user(id))
        if let answer = script.user { return try answer(id) }
        if let base { return try await base.user(id: id) }
        let label = "GET /users/\(id)"
        throw APIError(kind: .notFound, request: label, message: "\(label): not found (HTTP 404)", status: 404)
    }

    public func activities(from: Date, to: Date) async throws -> ActivityPage {
        let script = try await enter(.activities(from: from, to: to))
        if let answer = script.activities { return try answer(from, to) }
        if let base { return try await base.activities(from: from, to: to) }
        return ActivityPage(oldest: Date(timeIntervalSince1970: 0), activities: [])
    }

    public func transactions(from: Date, to: Date) async throws -> [Transaction] {
        let script = try await enter(.transactions(from: from, to: to))
        if let answer = script.transactions { return try answer(from, to) }
        return try await base?.transactions(from: from, to: to) ?? []
    }

    /// The photos goals were created with, in order (nil for none).
    public var createdPhotos: [Data?] { state.withLock { $0.photos } }

    public func createGoal(name: String, target: Money?, photo: Data?) async throws -> Goal {
        state.withLock { $0.photos.append(photo) }
        let call = Call.createGoal(name: name)
        let script = try await enter(call)
        if let answer = script.createGoal { return try answer(name, target) }
        guard let base else { throw notScripted(call) }
        return try await base.createGoal(name: name, target: target, photo: photo)
    }

    public func createGoal(name: String, target: Money?) async throws -> Goal {
        let call = Call.createGoal(name: name)
        let script = try await enter(call)
        if let answer = script.createGoal { return try answer(name, target) }
        guard let base else { throw notScripted(call) }
        return try await base.createGoal(name: name, target: target)
    }

    public func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
        let call = Call.transfer(goalId: goalId, transferId: transferId, amount: amount)
        _ = try await enter(call)
        let fault = state.withLock { $0.script.transferFaults.isEmpty ? nil : $0.script.transferFaults.removeFirst() }
        let label = Self.label(call)
        let failure = APIError(kind: .http(status: 500), request: label, message: "\(label): HTTP 500", status: 500)
        if fault == .beforeApplying { throw failure }
        if let answer = state.withLock({ $0.script.transfer }) { return try answer(goalId, transferId, amount) }
        guard let base else { throw notScripted(call) }
        let goal = try await base.transfer(goalId: goalId, transferId: transferId, amount: amount, attempt: attempt)
        if fault == .afterApplying { throw failure }
        return goal
    }

    public var saysFeedBalance: Bool {
        state.withLock { $0.script.saysFeedBalance } ?? base?.saysFeedBalance ?? false
    }

    public func account() async throws -> Account? {
        if let answer = state.withLock({ $0.script.account }) { return try answer() }
        return try await base?.account()
    }

    public func currentAccount() async throws -> Account? {
        let (live, kept) = state.withLock { ($0.script.currentAccount, $0.script.account) }
        if let live { return try live() }
        if let kept { return try kept() }
        return try await base?.currentAccount()
    }

    public func imageData(at url: URL) async throws -> Data {
        _ = try await enter(.image(url))
        guard let base else {
            let label = "GET \(url.absoluteString)"
            throw APIError(kind: .notFound, request: label, message: "\(label): this source has no pictures")
        }
        return try await base.imageData(at: url)
    }
}
