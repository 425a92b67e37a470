import FeedModel
import TermUI

/// What a confirmation moves into a goal, handed to the picker and the confirmation by whoever
/// offers it (the Round-ups tab: the week's round-ups): the amount, what and where from it is in
/// words, and the command that moves it.
struct SaveOffer {
    var amount: Money
    /// "of round-ups".
    var what: String
    /// "from the week of Mon 16 Nov – Sun 22 Nov 2026".
    var from: String
    var save: (GoalID) -> Command
}

/// "Move $1.58 of round-ups … into Dog?": yes runs the offer's command, no closes.
@MainActor
final class SaveConfirmation: Overlay {
    nonisolated static let keyMap = YesOrNo.keyMap(section: "Confirmation")
    nonisolated static var help: [HelpEntry] { keyMap.helpEntries }

    let offer: SaveOffer
    let goalId: GoalID

    init(_ offer: SaveOffer, into goalId: GoalID) {
        self.offer = offer
        self.goalId = goalId
    }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        switch Self.keyMap.action(for: key) {
        case .yes:
            guard data.goals.goal(id: goalId) != nil else { return .close() }
            return .run([offer.save(goalId)], then: .close())
        case .no:
            return .close()
        case nil:
            return .consumed
        }
    }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        guard let goal = data.goals.goal(id: goalId) else { return }
        let lines: [[Span]] = [
            [Span("Move "), Span(offer.amount.formatted, DisplayFormat.moneyStyle.adding(.bold)), Span(" " + offer.what)],
            [Span(offer.from)],
            [Span("into "), Span(goal.name, .bold), Span(" (saved now: \(goal.balance.formatted))?")],
            [],
            [Span("Enter or y: save    Esc or n: cancel", Style(fg: .role(.muted)))],
        ]
        Modal(title: "Save round-ups", lines: lines).draw(into: &buffer, in: area)
    }
}
