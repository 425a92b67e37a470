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
}

/// The demo's saves, kept in the data folder (`demo-saves.json`, 0600), so the demo behaves as an
/// account does: a week saved stays saved, its goal keeps the money, the next run knows.
/// Written whole (a new file renamed over the old) under an exclusive `flock`.
public final class DemoSavesFile: Sendable {
    public let fileURL: URL
    private let lockURL: URL

    public init(directory: URL) {
        fileURL = directory.appendingPathComponent("demo-saves.json")
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
    public func saves() throws -> [DemoSave] {
        guard let data = try? Data(contentsOf: fileURL) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode([DemoSave].self, from: data)
        } catch {
            throw Damaged(description: "\(fileURL.path) cannot be read; move it aside, or start the demo again with --reset-demo")
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

    /// Forgets every save (`--reset-demo`).
    public func reset() throws {
        try withLock {
            if unlink(fileURL.path) != 0 && errno != ENOENT { throw CocoaError(.fileWriteNoPermission) }
        }
    }

    private func write(_ saves: [DemoSave]) throws {
        let directory = fileURL.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(saves)
        let temporary = directory.appendingPathComponent(".demo-saves.json.\(getpid())")
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

/// The demo with its saves kept (`DemoSavesFile`): the saves of earlier runs are applied again
/// (at their times) before the first answer, and each new one is kept before it is answered.
public final class KeptDemoAPI: SavingsAPI {
    public let base: DemoSavingsAPI
    public let file: DemoSavesFile
    private let restored: Task<String?, Never>

    public init(base: DemoSavingsAPI, file: DemoSavesFile) {
        self.base = base
        self.file = file
        restored = Task { [backend = base.backend, file] in
            do {
                for save in try file.saves() {
                    let amount = Money(minorUnits: save.minorUnits, currency: Currency.from(code: save.currency) ?? .usd)
                    // A save into a goal this run does not have (made in an earlier run) is skipped.
                    _ = try? await backend.transfer(goalId: save.goalId, transferId: save.transferId, amount: amount, at: save.at)
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
    public func createGoal(name: String, target: Money?) async throws -> Goal { try await base.createGoal(name: name, target: target) }

    public func createGoal(name: String, target: Money?, photo: Data?) async throws -> Goal {
        try await base.createGoal(name: name, target: target, photo: photo)
    }

    public func imageData(at url: URL) async throws -> Data { try await base.imageData(at: url) }

    /// Kept in the file before it is answered: a save the file could not keep is refused (nothing moved).
    public func transfer(goalId: GoalID, transferId: UUID, amount: Money) async throws -> Goal {
        try await ready()
        let label = "POST /savingsgoals/\(goalId)/transfers"
        let at = Date()
        do {
            try file.keep(DemoSave(transferId: transferId, goalId: goalId, minorUnits: amount.minorUnits, currency: amount.currency.code, at: at))
        } catch {
            throw APIError(kind: .rejected, request: label, message: "\(label): the demo's saves cannot be kept (\(error))", status: 400)
        }
        return try await base.backend.transfer(goalId: goalId, transferId: transferId, amount: amount, at: at)
    }
}
