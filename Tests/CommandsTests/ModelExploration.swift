import FeedModel
import Foundation

/// What the save protocols' models share: the exploration of every state within a bound, and
/// the answers of a model bank to what a save never asks.
enum ModelExploration {
    /// Every state within `depth` actions of `initial`, depth first (a state already seen is not
    /// explored again): in each, `eventually` holds; each action either leads on or breaks an
    /// invariant. The first broken one with the actions that led to it, and how many states
    /// were explored.
    static func explore<State: Hashable, Action: CustomStringConvertible>(
        initial: State, depth: Int, actions: (State) -> [Action],
        apply: (Action, State) async -> Result<State, SaveProtocolModel.Violation>,
        eventually: (State) async -> SaveProtocolModel.Violation?
    ) async -> (states: Int, violation: String?) {
        var seen: Set<State> = [initial]
        var stack: [(State, [Action])] = [(initial, [])]
        while let (state, path) = stack.popLast() {
            if let late = await eventually(state) {
                return (seen.count, describe(path, late))
            }
            guard path.count < depth else { continue }
            for action in actions(state) {
                switch await apply(action, state) {
                case .failure(let violation):
                    return (seen.count, describe(path + [action], violation))
                case .success(let next):
                    if seen.insert(next).inserted { stack.append((next, path + [action])) }
                }
            }
        }
        return (seen.count, nil)
    }

    static func describe<Action: CustomStringConvertible>(_ path: [Action], _ violation: SaveProtocolModel.Violation) -> String {
        (path.map(\.description) + ["→ \(violation)"]).joined(separator: "; ")
    }
}

/// A model bank: only goals, payments and transfers matter to a save; the rest answers nothing.
protocol ModelBank: SavingsAPI {}

extension ModelBank {
    func feed(goalId: GoalID) async throws -> [FeedItem] { [] }
    func rules() async throws -> [SavingsRule] { [] }
    func user(id: Int) async throws -> User { throw APIError(kind: .notFound, request: "GET /users", message: "none") }
    func activities(from: Date, to: Date) async throws -> ActivityPage { ActivityPage(oldest: from, activities: []) }
    func createGoal(name: String, target: Money?) async throws -> Goal {
        throw APIError(kind: .rejected, request: "POST /savingsgoals", message: "not here")
    }
}
