import FeedModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One transfer the demo applied, as kept in the data folder.
public struct DemoSave: Codable, Hashable, Sendable {
    public let transferId: UUID
    public let goalId: GoalID
    public let minorUnits: Int64
    public let currency: String
    public let at: Date
    /// The demo's savings rule that moved it, which its feed item names (absent in files of
    /// earlier versions, and for the round-ups' week).
    public var savingsRuleId: Int?
}

/// A goal the user made on the demo, as kept in the data folder (its photo is not kept).
public struct DemoGoalKept: Codable, Hashable, Sendable {
    public let id: GoalID
    public let name: String
    public let targetMinorUnits: Int64?
    public let currency: String
    public let at: Date
}

/// The demo's saves, kept in the data folder (`demo-saves.json`, 0600), so the demo behaves as an
/// account does: a week saved stays saved, its goal keeps the money, the next run knows.
/// Written whole (a new file renamed over the old) under an exclusive `flock`.
public final class DemoSavesFile: Sendable {
    public let fileURL: URL
    /// The goals the user made (`demo-goals.json`): a goal saved into must be there next run too.
    public let goalsURL: URL
    private let lockURL: URL

    public init(directory: URL) {
        fileURL = directory.appendingPathComponent("demo-saves.json")
        goalsURL = directory.appendingPathComponent("demo-goals.json")
        lockURL = directory.appendingPathComponent("demo-saves.lock")
    }

    /// The data folder: `$XDG_DATA_HOME/qapital-tui`, else `~/.local/share/qapital-tui`.
    public static func defaultDirectory(environment: [String: String]) -> URL? {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data).appendingPathComponent("qapital-tui")
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/qapital-tui")
    }

    /// Every save kept (none when there is no file; a damaged file is refused, never replaced).
    public func saves() throws -> [DemoSave] { try read(fileURL) }

    /// A kept list (empty when there is no file); a damaged file is refused, never replaced.
    private func read<Record: Decodable>(_ url: URL) throws -> [Record] {
        guard let data = try? Data(contentsOf: url) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode([Record].self, from: data)
        } catch {
            throw Damaged(description: "\(url.path) cannot be read; move it aside, or start the demo again with --reset-demo")
        }
    }

    public struct Damaged: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Adds `save` unless a save with its id is kept already.
    public func keep(_ save: DemoSave) throws {
        try withLock {
            var saves = try saves()
            guard !saves.contains(where: { $0.transferId == save.transferId }) else { return }
            saves.append(save)
            try write(saves)
        }
    }

    /// Every goal the user made, in the order made (none when there is no file).
    public func goals() throws -> [DemoGoalKept] { try read(goalsURL) }

    /// Adds `goal` to the goals made.
    public func keep(goal: DemoGoalKept) throws {
        try withLock {
            var goals = try goals()
            guard !goals.contains(where: { $0.id == goal.id }) else { return }
            goals.append(goal)
            try write(goals, to: goalsURL)
        }
    }

    /// Forgets every save and every goal made (`--reset-demo`).
    public func reset() throws {
        try withLock {
            for url in [fileURL, goalsURL] where unlink(url.path) != 0 && errno != ENOENT {
                throw CocoaError(.fileWriteNoPermission)
            }
        }
    }

    private func write(_ saves: [DemoSave]) throws { try write(saves, to: fileURL) }

    private func write(_ value: some Encodable, to fileURL: URL) throws {
        let directory = fileURL.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(value)
        let temporary = directory.appendingPathComponent(".\(fileURL.lastPathComponent).\(getpid())")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]),
              rename(temporary.path, fileURL.path) == 0 else {
            unlink(temporary.path)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    private func withLock<T>(_ body: () throws -> T) throws -> T {
        try FileManager.default.createDirectory(at: lockURL.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        return try FileLock.exclusively(lockURL, body)
    }
}

/// The demo with what the user did kept (`DemoSavesFile`): the goals made and the saves of earlier
/// runs are made and applied again (in order, at their times) before the first answer, and each
/// new one is kept before it is answered, so a goal saved into never vanishes while its week
/// stays saved (issue 50.3). `--reset-demo` forgets both.
public final class KeptDemoAPI: SavingsAPI {
    public let base: DemoSavingsAPI
    public let file: DemoSavesFile
    private let restored: Task<String?, Never>

    public init(base: DemoSavingsAPI, file: DemoSavesFile) {
        self.base = base
        self.file = file
        restored = Task { [backend = base.backend, file] in
            do {
                // The goals made first, each under the id it had (made again in the same order,
                // the demo gives the same ids; where it does not, the saves follow the new ones).
                var ids: [GoalID: GoalID] = [:]
                for kept in try file.goals() {
                    let currency = Currency.from(code: kept.currency) ?? .usd
                    let target = kept.targetMinorUnits.map { Money(minorUnits: $0, currency: currency) }
                    if let made = try? await backend.createGoal(name: kept.name, target: target) { ids[kept.id] = made.id }
                }
                for save in try file.saves() {
                    let amount = Money(minorUnits: save.minorUnits, currency: Currency.from(code: save.currency) ?? .usd)
                    // A save into a goal this run does not have is skipped.
                    _ = try? await backend.transfer(goalId: ids[save.goalId] ?? save.goalId, transferId: save.transferId,
                                                    amount: amount, at: save.at, savingsRuleId: save.savingsRuleId)
                }
                return nil
            } catch {
                return "\(error)"
            }
        }
    }

    private func ready() async throws {
        if let problem = await restored.value {
            throw APIError(kind: .rejected, request: "demo", message: problem)
        }
    }

    public var sourceName: String { base.sourceName }
    public var answersUsersAndRulesItself: Bool { base.answersUsersAndRulesItself }
    public var saysFeedBalance: Bool { base.saysFeedBalance }

    public func goals() async throws -> [Goal] {
        try await ready()
        return try await base.goals()
    }

    public func feed(goalId: GoalID) async throws -> [FeedItem] {
        try await ready()
        return try await base.feed(goalId: goalId)
    }

    public func rules() async throws -> [SavingsRule] { try await base.rules() }
    public func user(id: Int) async throws -> User { try await base.user(id: id) }

    public func activities(from: Date, to: Date) async throws -> ActivityPage {
        try await ready()
        return try await base.activities(from: from, to: to)
    }

    public func transactions(from: Date, to: Date) async throws -> [Transaction] { try await base.transactions(from: from, to: to) }
    public func createGoal(name: String, target: Money?) async throws -> Goal {
        try await createGoal(name: name, target: target, photo: nil)
    }

    /// Made, then kept: a goal the file could not keep is said (it would vanish next run).
    public func createGoal(name: String, target: Money?, photo: Data?) async throws -> Goal {
        try await ready()
        let goal = try await base.createGoal(name: name, target: target, photo: photo)
        do {
            try file.keep(goal: DemoGoalKept(id: goal.id, name: goal.name, targetMinorUnits: goal.target?.minorUnits,
                                             currency: (goal.target?.currency ?? goal.balance.currency).code, at: Date()))
        } catch {
            let label = "POST /savingsgoals"
            throw APIError(kind: .rejected, request: label, message: "\(label): the goal was made for this run only: the demo's goals "
                           + "cannot be kept (\(error))", status: 400)
        }
        return goal
    }

    public func imageData(at url: URL) async throws -> Data { try await base.imageData(at: url) }

    /// Kept in the file before it is answered: a save the file could not keep is refused (nothing moved).
    public func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
        try await ready()
        let label = "POST /savingsgoals/\(goalId)/transfers"
        let at = Date()
        let rule = await base.backend.ruleId(of: attempt.serverKind)
        do {
            try file.keep(DemoSave(transferId: transferId, goalId: goalId, minorUnits: amount.minorUnits, currency: amount.currency.code, at: at,
                                   savingsRuleId: rule))
        } catch {
            throw APIError(kind: .rejected, request: label, message: "\(label): the demo's saves cannot be kept (\(error))", status: 400)
        }
        return try await base.backend.transfer(goalId: goalId, transferId: transferId, amount: amount, at: at, savingsRuleId: rule)
    }
}
