import BunqClient
import Commands
import FeedModel
import Foundation
import TestSupport

/// What the model reads of a server after a run.
protocol ModelServing: ModelBank {
    var problem: String? { get }
    var appliedNow: [SaveProtocolModel.Applied] { get }
}

extension SaveProtocolModel {
    /// The identity a machine saves under: where the variant names the account (bunq: the user
    /// and main account), the same on every machine.
    func identity(token: Int) -> SaveIdentity {
        markedServer ? SaveIdentity.forSaving(sourceName: "bunq", baseURL: Self.server, account: "4242/101") : Self.identity(token: token)
    }

    /// Machines 0 and 1 save at once: machine 1's whole run happens between machine 0's look and
    /// its send. A transfer that lands twice must have been said by machine 0's run.
    func race(goal: GoalID, _ next: inout State) async -> Violation? {
        let box = AppliedBox(next.applied)
        let name = Self.goals.first { $0.id == goal }?.name ?? ""
        let now = next.weekOver ? Self.week.end.addingTimeInterval(86_400 + 3_600) : Self.week.start.addingTimeInterval(3 * 86_400)
        func context(_ machine: Int, _ record: ModelRecord, _ server: MarkedModelServer) -> CommandContext {
            CommandContext(api: server, sourceKind: "bunq", currency: .usd, format: .table, output: OutputSink { _ in },
                           calendar: Self.calendar, now: { now },
                           saver: RoundUpSaver(identity: identity(token: next.tokens[machine]), record: record))
        }
        let listed = (0..<next.arrived).map(payment)
        let lifeB = Life(fault: .none)
        let recordB = ModelRecord(next.records[1], life: lifeB)
        let serverB = MarkedModelServer(box: box, goals: Self.goals, listed: listed, record: recordB, life: lifeB, skipCheck: skipCheck)
        let contextB = context(1, recordB, serverB)
        let lifeA = Life(fault: .none)
        let recordA = ModelRecord(next.records[0], life: lifeA)
        let serverA = MarkedModelServer(box: box, goals: Self.goals, listed: listed, record: recordA, life: lifeA, skipCheck: skipCheck)
        serverA.beforeSend = {
            _ = try? await RoundUpsCommands.save(contextB, week: Self.week, goal: name, dryRun: false, yes: true) { _ in true }
        }
        var said: String?
        do {
            try await RoundUpsCommands.save(context(0, recordA, serverA), week: Self.week, goal: name, dryRun: false, yes: true) { _ in true }
        } catch let failure as CommandFailure {
            said = failure.message
        } catch {}
        if let problem = serverA.problem ?? serverB.problem { return Violation(problem) }
        next.records[0] = recordA.stored
        next.records[1] = recordB.stored
        let before = next.applied.count
        next.applied = box.applied
        let fresh = next.applied.dropFirst(before)
        let keys = Dictionary(grouping: next.applied, by: \.key).filter { $0.value.count > 1 }
        if fresh.count > 1, !keys.isEmpty {
            guard let said, said.hasPrefix("saved twice by two runs at once") else {
                return Violation("two runs at once moved a week twice and nobody said so (machine 0 said: \(said ?? "nothing"))")
            }
            for transfer in fresh { next.detected.formUnion(transfer.payments) }
        }
        return nil
    }
}

/// The applied transfers one server holds, shared by the two runs of a race.
final class AppliedBox: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [SaveProtocolModel.Applied]

    init(_ list: [SaveProtocolModel.Applied]) { self.list = list }

    var applied: [SaveProtocolModel.Applied] { lock.withLock { list } }
    func append(_ transfer: SaveProtocolModel.Applied) { lock.withLock { list.append(transfer) } }
}

/// bunq's variant of the model's server: a transfer moves money every time it is sent (no
/// idempotency key); the source's own steps (`BunqSaveProtocol`: look for the mark, send, look
/// again after a lost answer, look after sending) run on top, as `BunqAPI.transfer` runs them.
/// The mark of a transfer is its key, and the server lists every transfer it applied.
final class MarkedModelServer: ModelServing, @unchecked Sendable {
    private let lock = NSLock()
    private let box: AppliedBox
    private let baseGoals: [Goal]
    private let listed: [Transaction]
    private let record: ModelRecord
    private let life: Life
    private let skipCheck: Bool
    /// Runs once, just before the first send (a race: another run's whole save).
    var beforeSend: (@Sendable () async -> Void)?
    private(set) var problem: String?

    init(box: AppliedBox, goals: [Goal], listed: [Transaction], record: ModelRecord, life: Life, skipCheck: Bool) {
        self.box = box
        baseGoals = goals
        self.listed = listed
        self.record = record
        self.life = life
        self.skipCheck = skipCheck
    }

    var appliedNow: [SaveProtocolModel.Applied] { box.applied }
    var sourceName: String { "model bunq" }

    func goals() async throws -> [Goal] { SaveProtocolModel.goals(baseGoals, holding: box.applied) }

    func transactions(from: Date, to: Date) async throws -> [Transaction] { listed.filter { $0.timestamp >= from && $0.timestamp < to } }

    func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
        let label = "POST /user/{id}/monetary-account/{id}/payment"
        let resent = attempt.resent
        var looked = 0
        let outcome = try await BunqSaveProtocol.run(
            find: { () async throws -> [Date?] in
                looked += 1
                if skipCheck && looked == 1 { return [] }
                return box.applied.filter { $0.key == transferId }.map { _ in nil }
            },
            send: { () async throws in try await send(goalId: goalId, transferId: transferId, amount: amount, label: label) },
            isLost: { ($0 as? APIError).map { $0.kind == .timedOut || $0.kind == .cannotConnect } ?? false },
            wait: {})
        let goal = try await goals().first { $0.id == goalId } ?? baseGoals[0]
        switch outcome {
        case .foundBefore:
            if resent { return goal }
            throw AlreadySaved(message: "already saved")
        case .sent(let count):
            if count >= 2 {
                throw SavedTwice(goal: goal, message: BunqSaveProtocol.twiceMessage(extra: amount, goal: goal.name))
            }
            return goal
        }
    }

    private func send(goalId: GoalID, transferId: UUID, amount: Money, label: String) async throws {
        let hook: (@Sendable () async -> Void)? = lock.withLock {
            defer { beforeSend = nil }
            return beforeSend
        }
        if let hook { await hook() }
        if life.fault == .lostRequest { throw APIError(kind: .cannotConnect, request: label, message: "\(label): lost") }
        try life.step()
        guard let part = record.stored.first(where: { $0.key == transferId }) else {
            lock.withLock { problem = "a transfer was sent that the record did not hold first: \(transferId)" }
            return
        }
        box.append(.init(key: transferId, goal: goalId, amount: amount, payments: part.payments.sorted()))
        if life.fault == .lostAnswer { throw APIError(kind: .timedOut, request: label, message: "\(label): timed out") }
        try life.step()
    }

}
