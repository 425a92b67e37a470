import FeedModel
import TermUI

/// "Move $1.58 of round-ups … into Dog?": yes starts the transfer, no closes.
@MainActor
final class SaveConfirmation: Overlay {
    enum Action: Sendable { case yes, no }

    nonisolated static let keyMap: KeyMap<Action> = {
        var map = KeyMap<Action>()
        let section = "Confirmation"
        map.bind([.enter, .char("y")], to: .yes, help: "yes", section: section)
        map.bind([.escape, .char("n"), .char("q"), .backspace], to: .no, help: "no, close it", section: section)
        return map
    }()
    nonisolated static var help: [HelpEntry] { keyMap.helpEntries }

    let goalId: GoalID

    init(goalId: GoalID) {
        self.goalId = goalId
    }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        switch Self.keyMap.action(for: key) {
        case .yes:
            guard data.goals.goal(id: goalId) != nil else { return .close() }
            return .run([.save(into: goalId)], then: .close())
        case .no:
            return .close()
        case nil:
            return .consumed
        }
    }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        guard let goal = data.goals.goal(id: goalId) else { return }
        let store = data.roundUps
        let amount = store.unsavedTotal ?? .zero(store.accountCurrency)
        let lines: [[Span]] = [
            [Span("Move "), Span(amount.formatted, DisplayFormat.moneyStyle.adding(.bold)), Span(" of round-ups")],
            [Span("from the week of " + RoundUpsScreen.weekLabel(store.week))],
            [Span("into "), Span(goal.name, .bold), Span(" (saved now: \(goal.balance.formatted))?")],
            [],
            [Span("Enter or y: save    Esc or n: cancel", Style(fg: .role(.muted)))],
        ]
        Modal(title: "Save round-ups", lines: lines).draw(into: &buffer, in: area)
    }
}
