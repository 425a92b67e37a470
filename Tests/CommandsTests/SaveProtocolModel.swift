import Commands
import FeedModel
import Foundation
import TestSupport

/// The save protocol as a model (issue 37): machines, each with its own record, run
/// `roundups --save` (`RoundUpsCommands.save`, the real code over a model server and model
/// records) in every order, with runs that crash at any step or lose their request or answer,
/// payments that arrive while the week is under way, saves into either goal, a week saved while
/// under way or after it ended, and signing in again. Every state reachable within `depth`
/// actions is explored (states already seen are not explored again), and in each:
///
/// - each payment's round-up moved at most once, and the goals hold exactly what moved;
/// - a record never claims (as saved) a payment that did not move;
/// - from there, once the week is over and every machine has run once without a fault, each
///   payment's round-up has moved exactly once.
struct SaveProtocolModel {
    struct Bounds: Sendable {
        var machines: Int
        var depth: Int
        /// What the week's card payments spend, in cents (each rounds up to the next dollar), in
        /// the order the server comes to list them; the first is listed from the start.
        var payments: [Int64]
        /// Sign-ins again, in all, over the machines.
        var signIns: Int
    }

    enum Fault: Hashable, Sendable, CustomStringConvertible {
        case none
        /// The request never reached the server (nothing moved); the run goes on.
        case lostRequest
        /// The server applied it, the answer never came back; the run goes on.
        case lostAnswer
        /// The process dies after this many of its effects (record writes, a request reaching
        /// the server, an answer reaching the process): 0 before it writes anything.
        case crash(after: Int)

        var description: String {
            switch self {
            case .none: "ok"
            case .lostRequest: "request lost"
            case .lostAnswer: "answer lost"
            case .crash(let after): "crash after \(after) steps"
            }
        }
    }

    enum Action: Hashable, Sendable, CustomStringConvertible {
        case arrive
        case endWeek
        case run(machine: Int, goal: GoalID, fault: Fault)
        case signInAgain(machine: Int)
        /// Machines 0 and 1 save at once (a source without idempotency key): both look before either sends.
        case race(goal: GoalID)

        var description: String {
            switch self {
            case .arrive: "a payment arrives"
            case .endWeek: "the week ends"
            case .run(let machine, let goal, let fault): "machine \(machine) saves into goal \(goal) (\(fault))"
            case .signInAgain(let machine): "machine \(machine) signs in again"
            case .race(let goal): "machines 0 and 1 save into goal \(goal) at once"
            }
        }
    }

    /// A transfer the server applied, and the payments whose round-ups it moved (those of the
    /// part the sending machine had recorded under its key).
    struct Applied: Hashable, Sendable {
        let key: UUID
        let goal: GoalID
        let amount: Money
        let payments: [String]
    }

    struct State: Hashable, Sendable {
        var arrived: Int
        var weekOver = false
        var applied: [Applied] = []
        var records: [[SavedRoundUp]]
        var tokens: [Int]
        var signIns = 0
        /// Payments moved twice by a race that the racing run detected and said (marked saves only).
        var detected: Set<String> = []
    }

    let bounds: Bounds
    /// A broken server for the model's own test: every request moves money, whatever its id.
    var forgetfulServer = false
    /// bunq's variant: the server has no idempotency key; the source marks its transfer and looks
    /// for the mark before and after sending (`MarkedModelServer`, over `BunqSaveProtocol`).
    var markedServer = false
    /// For the model's own test of the marked variant: the source sends without looking first.
    var skipCheck = false
    static let calendar = Week.calendar(in: TimeZone(identifier: "Europe/London")!)
    static let week = Week(containing: fixedNow, calendar: calendar).previous
    static let goals = [Goal(id: 1, name: "Alpha", ownerId: 7, target: nil, balance: Money(minorUnits: 0, currency: .usd)),
                        Goal(id: 2, name: "Beta", ownerId: 7, target: nil, balance: Money(minorUnits: 0, currency: .usd))]
    static let server = "http://model.test"

    /// The identity a machine saves under: what the server names (its URL; the Qapital API
    /// names no account), whatever its token.
    static func identity(token _: Int) -> SaveIdentity {
        SaveIdentity.forSaving(sourceName: "qapital", baseURL: server, account: nil)
    }

    func payment(_ index: Int) -> Transaction {
        Transaction(id: "p\(index)", timestamp: Self.week.start.addingTimeInterval(Double(index + 1) * 7_200),
                    amount: Money(minorUnits: -bounds.payments[index], currency: .usd), counterparty: "Shop \(index)")
    }

    func roundUp(_ id: String) -> Int64 {
        guard let index = Int(id.dropFirst()), bounds.payments.indices.contains(index) else { return -1 }
        let cents = bounds.payments[index] % 100
        return cents == 0 ? 0 : 100 - cents
    }

    var initial: State {
        State(arrived: min(1, bounds.payments.count), records: Array(repeating: [], count: bounds.machines),
              tokens: Array(repeating: 0, count: bounds.machines))
    }

    func actions(_ state: State) -> [Action] {
        var actions: [Action] = []
        if !state.weekOver && state.arrived < bounds.payments.count { actions.append(.arrive) }
        if !state.weekOver { actions.append(.endWeek) }
        let faults: [Fault] = [.none, .lostRequest, .lostAnswer] + (0...3).map { .crash(after: $0) }
        for machine in 0..<bounds.machines {
            for fault in faults {
                actions.append(.run(machine: machine, goal: 1, fault: fault))
            }
            actions.append(.run(machine: machine, goal: 2, fault: .none))
            if state.signIns < bounds.signIns { actions.append(.signInAgain(machine: machine)) }
        }
        if markedServer && bounds.machines >= 2 { actions.append(.race(goal: 1)) }
        return actions
    }

    /// One action from `state`; what it leads to, or a broken invariant in words.
    func apply(_ action: Action, to state: State) async -> Result<State, Violation> {
        var next = state
        switch action {
        case .arrive: next.arrived += 1
        case .endWeek: next.weekOver = true
        case .signInAgain(let machine):
            next.tokens[machine] += 1
            next.signIns += 1
        case .race(let goal):
            if let violation = await race(goal: goal, &next) { return .failure(violation) }
        case .run(let machine, let goal, let fault):
            let life = Life(fault: fault)
            let record = ModelRecord(next.records[machine], life: life)
            let server: any ModelServing = markedServer
                ? MarkedModelServer(box: AppliedBox(next.applied), goals: Self.goals, listed: (0..<next.arrived).map(payment), record: record,
                                    life: life, skipCheck: skipCheck)
                : ModelServer(applied: next.applied, goals: Self.goals, listed: (0..<next.arrived).map(payment),
                              record: record, life: life, roundUp: roundUp, forgetful: forgetfulServer)
            let now = next.weekOver ? Self.week.end.addingTimeInterval(86_400 + 3_600) : Self.week.start.addingTimeInterval(3 * 86_400)
            let saver = RoundUpSaver(identity: identity(token: next.tokens[machine]), record: record)
            let context = CommandContext(api: server, sourceKind: "qapital", currency: .usd, format: .table,
                                         output: OutputSink { _ in }, calendar: Self.calendar, now: { now }, saver: saver)
            let name = Self.goals.first { $0.id == goal }?.name ?? ""
            do {
                try await RoundUpsCommands.save(context, week: Self.week, goal: name, dryRun: false, yes: true) { _ in true }
            } catch {
                // A refusal, a lost answer, or the model's crash: what matters is what it left behind.
            }
            if let problem = server.problem { return .failure(Violation(problem)) }
            next.records[machine] = record.stored
            next.applied = server.appliedNow
        }
        if let broken = check(next) { return .failure(broken) }
        return .success(next)
    }

    struct Violation: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// At most once, money conserved, and no record claiming a payment that did not move.
    func check(_ state: State) -> Violation? {
        var moved: [String: Int] = [:]
        for transfer in state.applied {
            for id in transfer.payments { moved[id, default: 0] += 1 }
            let sum = transfer.payments.reduce(Int64(0)) { $0 + roundUp($1) }
            if sum != transfer.amount.minorUnits {
                return Violation("transfer \(transfer.key) moved \(transfer.amount.minorUnits) for payments \(transfer.payments) worth \(sum)")
            }
        }
        if let twice = moved.first(where: { $0.value > 1 && !state.detected.contains($0.key) }) {
            return Violation("the round-up of \(twice.key) moved \(twice.value) times")
        }
        for (machine, record) in state.records.enumerated() {
            for part in record where part.state == .saved {
                if let claimed = part.payments.first(where: { moved[$0] == nil }) {
                    return Violation("machine \(machine)'s record claims \(claimed) saved, and it never moved")
                }
            }
        }
        return nil
    }

    /// From `state`: the week ends, and every machine runs once without a fault; then each
    /// payment's round-up has moved exactly once.
    func eventually(_ state: State) async -> Violation? {
        var state = state
        state.weekOver = true
        for machine in 0..<bounds.machines {
            switch await apply(.run(machine: machine, goal: 1, fault: .none), to: state) {
            case .success(let next): state = next
            case .failure(let violation): return violation
            }
        }
        var moved: [String: Int] = [:]
        for transfer in state.applied { for id in transfer.payments { moved[id, default: 0] += 1 } }
        for index in 0..<state.arrived where roundUp("p\(index)") > 0 && moved["p\(index)"] != 1
            && !(state.detected.contains("p\(index)") && (moved["p\(index)"] ?? 0) > 1) {
            return Violation("after every machine ran once the week was over, p\(index) moved \(moved["p\(index)"] ?? 0) times")
        }
        return nil
    }

    /// Every state within the bound (`ModelExploration.explore`): the first broken invariant
    /// with the actions that led to it, and how many states were explored.
    func explore() async -> (states: Int, violation: String?) {
        await ModelExploration.explore(initial: initial, depth: bounds.depth, actions: actions, apply: apply, eventually: eventually)
    }
}

/// How far a run gets: each effect (a record write, the request reaching the server, its
/// answer reaching the process) takes a step; a crashed process takes none after its last.
final class Life: @unchecked Sendable {
    let fault: SaveProtocolModel.Fault
    private let lock = NSLock()
    private var steps = 0

    init(fault: SaveProtocolModel.Fault) { self.fault = fault }

    struct Dead: Error {}

    /// Takes one step, or throws: the process died before it.
    func step() throws {
        try lock.withLock {
            if case .crash(let after) = fault, steps >= after { throw Dead() }
            steps += 1
        }
    }
}

/// One machine's record, as the process sees it: writes after the process died never land.
final class ModelRecord: RoundUpRecord, @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [SavedRoundUp]
    private let life: Life

    init(_ parts: [SavedRoundUp], life: Life) {
        self.parts = parts
        self.life = life
    }

    var stored: [SavedRoundUp] { lock.withLock { parts } }

    func parts(week: String) -> [SavedRoundUp] { lock.withLock { parts.filter { $0.week == week } } }

    func allParts() -> [SavedRoundUp] { stored }

    func keep(_ part: SavedRoundUp) throws {
        try life.step()
        lock.withLock {
            if let index = parts.firstIndex(where: { $0.key == part.key }) { parts[index] = part } else { parts.append(part) }
        }
    }

    func forget(key: UUID) throws {
        try life.step()
        lock.withLock { parts.removeAll { $0.key == key } }
    }
}

/// The server: applies a transfer id once (the same id again with the same goal and amount is
/// answered as before; another goal or amount is 409), lists the payments that have arrived.
final class ModelServer: ModelServing, @unchecked Sendable {
    private let lock = NSLock()
    private var applied: [SaveProtocolModel.Applied]
    private let baseGoals: [Goal]
    private let listed: [Transaction]
    private let record: ModelRecord
    private let life: Life
    private let roundUp: (String) -> Int64
    private let forgetful: Bool
    private(set) var problem: String?

    init(applied: [SaveProtocolModel.Applied], goals: [Goal], listed: [Transaction], record: ModelRecord, life: Life,
         roundUp: @escaping (String) -> Int64, forgetful: Bool) {
        self.forgetful = forgetful
        self.applied = applied
        baseGoals = goals
        self.listed = listed
        self.record = record
        self.life = life
        self.roundUp = roundUp
    }

    var appliedNow: [SaveProtocolModel.Applied] { lock.withLock { applied } }
    var sourceName: String { "model" }

    func goals() async throws -> [Goal] { SaveProtocolModel.goals(baseGoals, holding: lock.withLock { applied }) }

    func transactions(from: Date, to: Date) async throws -> [Transaction] { listed.filter { $0.timestamp >= from && $0.timestamp < to } }

    func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
        let label = "POST /savingsgoals/\(goalId)/transfers"
        if life.fault == .lostRequest { throw APIError(kind: .cannotConnect, request: label, message: "\(label): lost") }
        try life.step()
        let conflict: Bool = lock.withLock {
            if !forgetful, let earlier = applied.first(where: { $0.key == transferId }) {
                return earlier.goal != goalId || earlier.amount != amount
            }
            // Which payments this moves: those of the part recorded under its key before sending.
            guard let part = record.stored.first(where: { $0.key == transferId }) else {
                problem = "a transfer was sent that the record did not hold first: \(transferId)"
                return false
            }
            applied.append(.init(key: transferId, goal: goalId, amount: amount, payments: part.payments.sorted()))
            return false
        }
        if conflict { throw APIError(kind: .http(status: 409), request: label, message: "\(label): HTTP 409", status: 409) }
        if life.fault == .lostAnswer { throw APIError(kind: .timedOut, request: label, message: "\(label): timed out") }
        try life.step()
        let goals = try await goals()
        return goals.first { $0.id == goalId } ?? goals[0]
    }

}

extension SaveProtocolModel {
    /// The goals with the balances the applied moves give them: what each model server answers.
    static func goals(_ base: [Goal], holding applied: [Applied]) -> [Goal] {
        base.map { goal in
            var goal = goal
            goal.balance.minorUnits = Money.sum(applied.filter { $0.goal == goal.id }.map(\.amount.minorUnits))
            return goal
        }
    }
}
