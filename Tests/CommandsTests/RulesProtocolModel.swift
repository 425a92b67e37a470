import Commands
import FeedModel
import Foundation
import TestSupport

/// The rules' save protocol as a model (issue 47, RULES.md "Settling a week"): machines, each with
/// its own records, run `rules --save --week last --yes` (`RulesCommands.save`, the real code over
/// a model bank and model records) in every order, with runs that crash at any step, lose one
/// transfer's request or its answer; between runs the floor (`keep-at-least`) changes and a rule's
/// amount is edited. Three rules share one week: the round-up rule (under the round-ups' key and
/// record), a guilty pleasure and a set-and-forget, into two goals. Every state reachable within
/// `depth` actions is explored, and in each:
///
/// - every (rule, period) moved at most once, each for its figure under the file of some run;
/// - the week's moves never pass the weekly limit;
/// - no transfer the bank applied left the account under the floor of the run that sent it, or
///   under nothing (a transfer in the record resent is checked as a first send is: it may never
///   have reached the bank);
/// - no record claims a transfer saved or saved elsewhere that the bank never applied, and no
///   run records as its own a transfer another run had made;
/// - from there, once the floor is lifted and every machine has run once without a fault, every
///   (rule, period) owed has moved exactly once, but for one the limit has no room for.
struct RulesProtocolModel {
    struct Bounds: Sendable {
        var machines: Int
        var depth: Int
        /// The file's weekly limit, in cents, the same in every run.
        var limit: Int64?
    }

    enum Fault: Hashable, Sendable, CustomStringConvertible {
        case none
        /// The run's transfer request number `n` (from 0) never reaches the bank.
        case lostRequest(Int)
        /// The bank applies request `n`; its answer never comes back.
        case lostAnswer(Int)
        /// The process dies after this many of its effects (record writes, a request reaching the
        /// bank, an answer reaching the process).
        case crash(after: Int)

        var description: String {
            switch self {
            case .none: "ok"
            case .lostRequest(let n): "request \(n) lost"
            case .lostAnswer(let n): "answer \(n) lost"
            case .crash(let after): "crash after \(after) steps"
            }
        }
    }

    enum Action: Hashable, Sendable, CustomStringConvertible {
        case run(machine: Int, fault: Fault)
        case floor(Int64?)
        /// The coffee rule's amount is edited (the same name: the same keys).
        case edit

        var description: String {
            switch self {
            case .run(let machine, let fault): "machine \(machine) runs rules --save (\(fault))"
            case .floor(let floor): "the floor becomes \(floor.map { "$" + String(Double($0) / 100) } ?? "none")"
            case .edit: "coffee is edited from $2.00 to $3.00 a payment"
            }
        }
    }

    /// A transfer the bank applied: its key, and the (rule, period) its request named.
    struct Applied: Hashable, Sendable {
        let key: UUID
        let goal: GoalID
        let amount: Int64
        let rule: String
        let period: String
    }

    struct State: Hashable, Sendable {
        var applied: [Applied] = []
        var roundUpRecords: [[SavedRoundUp]]
        var ruleRecords: [[SavedRoundUp]]
        var floor: Int64?
        var edited = false
    }

    let bounds: Bounds
    /// For the model's own tests: the settler skips the floor, or the limit.
    var ignoreFloor = false
    var ignoreLimit = false

    static let calendar = Week.calendar(in: TimeZone(identifier: "Europe/London")!)
    static let week = Week(containing: fixedNow, calendar: calendar).previous
    static let now = week.end.addingTimeInterval(86_400 + 3_600)
    /// $9.00: every rule's week fits ($8.45), but with coffee edited to $3.00 the last does not.
    static let opening: Int64 = 900
    static let floors: [Int64?] = [nil, 300, 650]
    static let goals = [Goal(id: 1, name: "Alpha", ownerId: 7, target: nil, balance: Money(minorUnits: 0, currency: .usd)),
                        Goal(id: 2, name: "Beta", ownerId: 7, target: nil, balance: Money(minorUnits: 0, currency: .usd))]
    /// The week's card payments: Pret's $4.35 (rounds up 65¢, a coffee) and $5.20 (80¢).
    static let payments = [
        Transaction(id: "p0", timestamp: week.start.addingTimeInterval(7_200), amount: Money(minorUnits: -435, currency: .usd), counterparty: "Pret"),
        Transaction(id: "p1", timestamp: week.start.addingTimeInterval(90_000), amount: Money(minorUnits: -520, currency: .usd), counterparty: "Shop"),
    ]
    /// What each rule may move for the week: its figure under either version of the file.
    static let figures: [String: Set<Int64>] = ["round-ups": [145], "coffee": [200, 300], "weekly": [500]]

    static func file(floor: Int64?, edited: Bool, limit: Int64?) -> RulesFile {
        let usd = { (minor: Int64) in Money(minorUnits: minor, currency: .usd) }
        return RulesFile(weeklyLimit: limit.map(usd), keepAtLeast: floor.map(usd), rules: [
            Rule(name: "round-ups", kind: .roundUp(step: nil), goal: "Alpha", since: week.start),
            Rule(name: "coffee", kind: .guiltyPleasure(amount: usd(edited ? 300 : 200), match: ["pret"]), goal: "Alpha", since: week.start),
            Rule(name: "weekly", kind: .setAndForget(amount: usd(500), every: .week), goal: "Beta", since: week.start),
        ])
    }

    var initial: State {
        State(roundUpRecords: Array(repeating: [], count: bounds.machines), ruleRecords: Array(repeating: [], count: bounds.machines))
    }

    func actions(_ state: State) -> [Action] {
        var faults: [Fault] = [.none]
        for n in 0..<3 { faults += [.lostRequest(n), .lostAnswer(n)] }
        faults += (0..<12).map { .crash(after: $0) }
        var actions = (0..<bounds.machines).flatMap { machine in faults.map { Action.run(machine: machine, fault: $0) } }
        actions += Self.floors.filter { $0 != state.floor }.map(Action.floor)
        if !state.edited { actions.append(.edit) }
        return actions
    }

    /// One action from `state`; what it leads to, or a broken invariant in words.
    func apply(_ action: Action, to state: State) async -> Result<State, SaveProtocolModel.Violation> {
        var next = state
        switch action {
        case .floor(let floor): next.floor = floor
        case .edit: next.edited = true
        case .run(let machine, let fault):
            let life: Life = if case .crash(let after) = fault { Life(fault: .crash(after: after)) } else { Life(fault: .none) }
            let roundUps = ModelRecord(next.roundUpRecords[machine], life: life)
            let rules = ModelRuleRecord(ModelRecord(next.ruleRecords[machine], life: life))
            let sentBefore = Set((next.roundUpRecords[machine] + next.ruleRecords[machine]).map(\.key))
            let appliedBefore = Set(next.applied.map(\.key))
            let bank = RulesModelBank(applied: next.applied, records: [roundUps, rules.parts], life: life, fault: fault,
                                      floor: next.floor, sentBefore: sentBefore)
            let saver = RoundUpSaver(identity: SaveIdentity.forSaving(sourceName: "qapital", baseURL: "http://model.test", account: nil),
                                     record: roundUps)
            var context = CommandContext(api: bank, sourceKind: "qapital", currency: .usd, format: .table,
                                         output: OutputSink { _ in }, calendar: Self.calendar, now: { Self.now }, saver: saver)
            context.rules = rules
            // The model's own test takes the floor out of the file the settler reads; the bank still checks it.
            let file = Self.file(floor: ignoreFloor ? nil : next.floor, edited: next.edited, limit: ignoreLimit ? nil : bounds.limit)
            do {
                try await RulesCommands.save(context, file: file, through: Self.week, dryRun: false, yes: true, confirm: { _ in nil })
            } catch {
                // Held, refused, lost or crashed: what matters is what it left behind.
            }
            if let problem = bank.problem { return .failure(.init(problem)) }
            next.roundUpRecords[machine] = roundUps.stored
            next.ruleRecords[machine] = rules.parts.stored
            next.applied = bank.appliedNow
            // Another run's transfer, met for the first time here, is the bank's replay: never this run's own.
            for part in next.roundUpRecords[machine] + next.ruleRecords[machine]
            where part.state == .saved && appliedBefore.contains(part.key) && !sentBefore.contains(part.key) {
                return .failure(.init("machine \(machine) recorded \(part.rule ?? "round-ups") \(part.week) as saved by itself; another run had moved it"))
            }
        }
        if let broken = check(next) { return .failure(broken) }
        return .success(next)
    }

    /// At most once per (rule, period), each for a figure of its rule, and no record claiming a
    /// transfer that never moved.
    func check(_ state: State) -> SaveProtocolModel.Violation? {
        var moved: [String: Int] = [:]
        for transfer in state.applied {
            moved["\(transfer.rule) \(transfer.period)", default: 0] += 1
            if !(Self.figures[transfer.rule] ?? []).contains(transfer.amount) {
                return .init("\(transfer.rule) \(transfer.period) moved \(transfer.amount)¢, none of its figures")
            }
        }
        if let twice = moved.first(where: { $0.value > 1 }) {
            return .init("\(twice.key) moved \(twice.value) times")
        }
        let total = Money.sum(state.applied.map(\.amount))
        if let limit = bounds.limit, total > limit {
            return .init("the week moved \(total)¢, past the \(limit)¢ weekly limit")
        }
        let keys = Set(state.applied.map(\.key))
        for (machine, record) in zip(state.roundUpRecords, state.ruleRecords).enumerated() {
            for part in record.0 + record.1 where part.isDone && !keys.contains(part.key) {
                return .init("machine \(machine)'s record claims \(part.rule ?? "round-ups") \(part.week) \(part.state), and it never moved")
            }
        }
        return nil
    }

    /// From `state`: the floor is lifted and every machine runs once without a fault; then every
    /// rule's week has moved exactly once.
    func eventually(_ state: State) async -> SaveProtocolModel.Violation? {
        var state = state
        state.floor = nil
        for machine in 0..<bounds.machines {
            switch await apply(.run(machine: machine, fault: .none), to: state) {
            case .success(let next): state = next
            case .failure(let violation): return violation
            }
        }
        let total = Money.sum(state.applied.map(\.amount))
        let figures = ["round-ups": 145, "coffee": state.edited ? 300 : 200, "weekly": 500] as [String: Int64]
        for rule in Self.figures.keys.sorted() {
            let count = state.applied.filter { $0.rule == rule }.count
            // Held by the limit or the balance: only where this week's moves leave no room for it.
            let figure = figures[rule] ?? 0
            if count == 0, let limit = bounds.limit, total + figure > limit { continue }
            if count == 0, Self.opening - total < figure { continue }
            if count != 1 {
                return .init("after the floor was lifted and every machine ran once, \(rule) moved \(count) times")
            }
        }
        return nil
    }

    /// Every state within the bound (`ModelExploration.explore`): the first broken invariant
    /// with the actions that led to it, and how many states were explored.
    func explore() async -> (states: Int, violation: String?) {
        await ModelExploration.explore(initial: initial, depth: bounds.depth, actions: actions, apply: apply, eventually: eventually)
    }
}

/// A machine's rules record: its parts in a `ModelRecord` (writes after a crash never land).
/// Every model rule has its `since`, so no first-read week is ever asked for.
final class ModelRuleRecord: RuleRecord, @unchecked Sendable {
    let parts: ModelRecord
    private let starts = Locked<[String: String]>([:])

    init(_ parts: ModelRecord) { self.parts = parts }

    func parts(week: String) -> [SavedRoundUp] { parts.parts(week: week) }
    func allParts() -> [SavedRoundUp] { parts.allParts() }
    func keep(_ part: SavedRoundUp) throws { try parts.keep(part) }
    func forget(key: UUID) throws { try parts.forget(key: key) }
    func start(of rule: String) -> String? { starts.withLock { $0[rule] } }
    func keepStart(_ week: String, of rule: String) throws { starts.withLock { $0[rule] = $0[rule] ?? week } }
}

/// The bank: applies a transfer key once (the same key again with the same goal and amount is
/// answered as before; another goal or amount is 409), lists the week's payments, and answers the
/// account's balance: the opening less what moved.
final class RulesModelBank: ModelBank, @unchecked Sendable {
    private let state: Locked<(applied: [RulesProtocolModel.Applied], requests: Int, problem: String?)>
    private let records: [ModelRecord]
    private let life: Life
    private let fault: RulesProtocolModel.Fault
    private let floor: Int64?
    private let sentBefore: Set<UUID>

    init(applied: [RulesProtocolModel.Applied], records: [ModelRecord], life: Life, fault: RulesProtocolModel.Fault,
         floor: Int64?, sentBefore: Set<UUID>) {
        state = Locked((applied, 0, nil))
        self.records = records
        self.life = life
        self.fault = fault
        self.floor = floor
        self.sentBefore = sentBefore
    }

    var appliedNow: [RulesProtocolModel.Applied] { state.withLock { $0.applied } }
    var problem: String? { state.withLock { $0.problem } }
    var sourceName: String { "model" }

    private var balance: Int64 { RulesProtocolModel.opening - Money.sum(appliedNow.map(\.amount)) }

    func goals() async throws -> [Goal] {
        let applied = appliedNow
        return RulesProtocolModel.goals.map { goal in
            var goal = goal
            goal.balance.minorUnits = Money.sum(applied.filter { $0.goal == goal.id }.map(\.amount))
            return goal
        }
    }

    func account() async throws -> Account? {
        Account(id: "model", name: "Model", currency: .usd, createdAt: RulesProtocolModel.week.start.addingTimeInterval(-86_400 * 365),
                effectiveBalance: Money(minorUnits: balance, currency: .usd))
    }

    func transactions(from: Date, to: Date) async throws -> [Transaction] {
        RulesProtocolModel.payments.filter { $0.timestamp >= from && $0.timestamp < to }
    }

    func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
        let label = "POST /savingsgoals/\(goalId)/transfers"
        let number = state.withLock { state in
            defer { state.requests += 1 }
            return state.requests
        }
        if fault == .lostRequest(number) { throw APIError(kind: .cannotConnect, request: label, message: "\(label): lost") }
        try life.step()
        let balance = self.balance
        let conflict: Bool = state.withLock { state in
            if let earlier = state.applied.first(where: { $0.key == transferId }) {
                return earlier.goal != goalId || earlier.amount != amount.minorUnits
            }
            guard records.contains(where: { $0.stored.contains { $0.key == transferId } }) else {
                state.problem = "a transfer was sent that the record did not hold first: \(attempt.rule ?? "?") \(attempt.week)"
                return false
            }
            // Whatever the record held before, a transfer the bank applies now is decided now.
            if balance - amount.minorUnits < (floor ?? 0) {
                state.problem = "\(attempt.rule ?? "?") \(attempt.week) left \(balance - amount.minorUnits)¢, under the \(floor ?? 0)¢ floor"
                return false
            }
            state.applied.append(.init(key: transferId, goal: goalId, amount: amount.minorUnits, rule: attempt.rule ?? "round-ups",
                                       period: attempt.week))
            return false
        }
        if conflict { throw APIError(kind: .http(status: 409), request: label, message: "\(label): HTTP 409", status: 409) }
        if fault == .lostAnswer(number) { throw APIError(kind: .timedOut, request: label, message: "\(label): timed out") }
        try life.step()
        let goals = try await goals()
        return goals.first { $0.id == goalId } ?? goals[0]
    }

}
