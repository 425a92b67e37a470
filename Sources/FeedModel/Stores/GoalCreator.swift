import Foundation

/// Creates goals (`POST /savingsgoals`); a created goal is shown in the `GoalStore` at once.
@MainActor
public final class GoalCreator {
    public enum Phase: Hashable, Sendable {
        case idle
        case sending
        case failed(String)
        case created(Goal)
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

    public var isBusy: Bool { phase == .sending }

    /// Sends the goal unless one is already on its way.
    public func create(_ goal: NewGoal) {
        guard phase != .sending else { return }
        generation += 1
        let generation = self.generation
        phase = .sending
        let api = self.api
        Task { [weak self] in
            let result: Result<Goal, Error>
            do {
                result = .success(try await api.createGoal(name: goal.name, target: goal.target, photo: goal.photo))
            } catch {
                result = .failure(error)
            }
            self?.finish(result, generation: generation)
        }
        events.send(.goalCreation)
    }

    /// Back to idle (the form was closed). An answer still on its way is applied to the goals
    /// but no longer reported.
    public func reset() {
        generation += 1
        if phase != .sending { phase = .idle }
        events.send(.goalCreation)
    }

    private func finish(_ result: Result<Goal, Error>, generation: Int) {
        if case .success(let goal) = result { goals.apply(goal) }
        guard generation == self.generation else {
            if phase == .sending { phase = .idle }
            events.send(.goalCreation)
            return
        }
        switch result {
        case .success(let goal):
            phase = .created(goal)
            events.send(.goalCreated(goal))
        case .failure(let error):
            phase = .failed(GoalStore.message(error, request: "POST /savingsgoals"))
            events.send(.goalCreation)
        }
    }
}
