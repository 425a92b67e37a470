import Foundation

/// Creates goals (`POST /savingsgoals`); a created goal is shown in the `GoalStore` at once.
///
/// Creating has no idempotency key on any source: a request whose answer was lost is never
/// sent again by itself. The creator looks first: a goal of that name that was not there before
/// is the one it made; none found, it says so and the user decides (Enter creates it again).
@MainActor
public final class GoalCreator {
    public enum Phase: Hashable, Sendable {
        case idle
        case sending
        /// The answer was lost: looking for the goal among the source's goals.
        case checking
        case failed(String)
        /// `found`: its answer was lost, and the goal was found by looking.
        case created(Goal, found: Bool = false)
    }

    public private(set) var phase: Phase = .idle
    private let events: EventSink<StoreEvent>

    private let api: any SavingsAPI
    private let goals: GoalStore
    private var generation = 0

    public init(api: any SavingsAPI, goals: GoalStore, events: EventSink<StoreEvent> = .ignored) {
        self.api = api
        self.events = events
        self.goals = goals
    }

    public var isBusy: Bool { phase == .sending || phase == .checking }

    /// Sends the goal unless one is already on its way.
    public func create(_ goal: NewGoal) {
        guard !isBusy else { return }
        generation += 1
        let generation = self.generation
        phase = .sending
        let api = self.api
        // What was there before: a goal of the same name made earlier is not this one. Without
        // a list that loaded, what was there is not known.
        let known = goals.status == .loaded ? Set(goals.goals.map(\.id)) : nil
        Task { [weak self] in
            let result: Result<(Goal, found: Bool), Error>
            do {
                result = .success((try await api.createGoal(name: goal.name, target: goal.target, photo: goal.photo), false))
            } catch let error as APIError where error.mayHaveActed {
                self?.checking(generation: generation)
                result = await GoalCreator.look(for: goal, api: api, known: known, lost: error)
            } catch {
                result = .failure(error)
            }
            self?.finish(result, generation: generation)
        }
        events.send(.goalCreation)
    }

    /// After a lost answer: the source's goals, for one named `goal.name` that `known` did not have.
    nonisolated static func look(for goal: NewGoal, api: any SavingsAPI, known: Set<GoalID>?,
                                 lost: APIError) async -> Result<(Goal, found: Bool), Error> {
        let name = TextSanitizer.clean(goal.name)
        do {
            let now = try await api.goals().filter { $0.name == name }
            guard let known else {
                if now.isEmpty { return .failure(LostCreation(message: "\(lost.message). No goal “\(name)” was made: Enter creates it")) }
                return .failure(LostCreation(message: "\(lost.message). A goal “\(name)” is there, but the goals had not loaded "
                                             + "before, so it may be an older one: r shows them before Enter makes another"))
            }
            if let made = now.first(where: { !known.contains($0.id) }) { return .success((made, true)) }
            return .failure(LostCreation(message: "\(lost.message). No goal “\(name)” was made: Enter creates it"))
        } catch {
            return .failure(LostCreation(message: "\(lost.message), and the goals could not be read to see (\(error)): "
                                         + "r shows whether “\(name)” was made before Enter creates it again"))
        }
    }

    /// A goal whose answer was lost, in words: whether looking found it, and what Enter does.
    public struct LostCreation: Error, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }

    private func checking(generation: Int) {
        guard generation == self.generation, phase == .sending else { return }
        phase = .checking
        events.send(.goalCreation)
    }

    /// Back to idle (the form was closed). An answer still on its way is applied to the goals
    /// but no longer reported.
    public func reset() {
        generation += 1
        if phase != .sending { phase = .idle }
        events.send(.goalCreation)
    }

    private func finish(_ result: Result<(Goal, found: Bool), Error>, generation: Int) {
        if case .success(let made) = result { goals.apply(made.0) }
        guard generation == self.generation else {
            if isBusy { phase = .idle }
            events.send(.goalCreation)
            return
        }
        switch result {
        case .success(let made):
            phase = .created(made.0, found: made.found)
            events.send(.goalCreated(made.0))
        case .failure(let error as LostCreation):
            phase = .failed(error.message)
            events.send(.goalCreation)
        case .failure(let error):
            phase = .failed(GoalStore.message(error, request: "POST /savingsgoals"))
            events.send(.goalCreation)
        }
    }
}
