import FeedModel
import Foundation
import HTTPTransport

/// The app's default source: the demo backend in process, with optional simulated latency.
public struct DemoSavingsAPI: SavingsAPI {
    /// The source as the registry lists it: in process, nothing to sign in to.
    public static let source = SourceDescription(
        name: "demo", title: "Demo", signIn: .none, abilities: [.createGoals, .moveMoney, .sharedGoals],
        documentation: "README.md")

    public let backend: DemoBackend
    public let latency: Duration

    public init(backend: DemoBackend, latency: Duration = .zero) {
        self.backend = backend
        self.latency = latency
    }

    public var sourceName: String { "demo" }

    private func pause() async throws {
        if latency > .zero { try await Task.sleep(for: latency) }
    }

    public func goals() async throws -> [Goal] {
        try await pause()
        return await backend.goals()
    }

    public func feed(goalId: GoalID) async throws -> [FeedItem] {
        try await pause()
        return try await backend.feed(goalId: goalId)
    }

    public func rules() async throws -> [SavingsRule] {
        try await pause()
        return await backend.rules()
    }

    public func user(id: Int) async throws -> User {
        try await pause()
        return try await backend.user(id: id)
    }

    public func activities(from: Date, to: Date) async throws -> ActivityPage {
        try await pause()
        return try await backend.activities(from: from, to: to)
    }

    public func transactions(from: Date, to: Date) async throws -> [Transaction] {
        try await pause()
        return await backend.transactions(from: from, to: to)
    }

    public func createGoal(name: String, target: Money?) async throws -> Goal {
        try await pause()
        return try await backend.createGoal(name: name, target: target)
    }

    public func createGoal(name: String, target: Money?, photo: Data?) async throws -> Goal {
        try await pause()
        return try await backend.createGoal(name: name, target: target, photo: photo)
    }

    public func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
        try await pause()
        return try await backend.transfer(goalId: goalId, transferId: transferId, amount: amount,
                                          savingsRuleId: await backend.ruleId(of: attempt.serverKind))
    }

    /// The demo's own `demo:/images/…` pictures, made in process; other URLs over HTTP(S).
    public func imageData(at url: URL) async throws -> Data {
        // The demo makes no network request: only its own pictures are there.
        guard url.scheme?.lowercased() == DemoImages.scheme else {
            let label = "GET \(TextSanitizer.clean(url.absoluteString))"
            throw APIError(kind: .notFound, request: label, message: "\(label): the demo fetches nothing from the network")
        }
        try await pause()
        if let photo = await backend.photo(atPath: url.path) { return photo }
        guard let data = DemoImages.png(atPath: url.path) else {
            let label = "GET \(TextSanitizer.clean(url.absoluteString))"
            throw APIError(kind: .notFound, request: label, message: "\(label): not found (HTTP 404)")
        }
        return data
    }
}
