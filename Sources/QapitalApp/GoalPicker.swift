import FeedModel
import TermUI

/// Choosing the goal to save `offer` into, among the active goals (Round-ups' `s`: the week's
/// round-ups). Moves with the list keys (the one list navigation); Enter opens the confirmation
/// of the same offer.
@MainActor
final class GoalPicker: Overlay {
    enum Action: Sendable { case choose, cancel }

    nonisolated static let keyMap: KeyMap<Action> = {
        var map = KeyMap<Action>()
        let section = "Goal picker (Round-ups s; moves as lists do)"
        map.bind([.enter], to: .choose, help: "save into the selected goal (asks first)", section: section)
        map.bind([.escape, .backspace, .char("h"), .char("q")], to: .cancel, help: "cancel", section: section)
        return map
    }()
    nonisolated static var help: [HelpEntry] { keyMap.helpEntries }

    /// The list's model, as every list's (moves, pages, ends); no filter here, so `n` and `N` move nothing.
    var model = ListModel()
    /// What is saved into the chosen goal; the picker knows no store of it.
    let offer: SaveOffer

    init(offer: SaveOffer) {
        self.offer = offer
    }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        let goals = data.goals.goals
        switch Self.keyMap.action(for: key) {
        case .choose:
            guard let goal = model.selected(in: goals) else { return .consumed }
            return .replace(with: SaveConfirmation(offer, into: goal.id))
        case .cancel:
            return .close()
        case nil:
            if let action = AppAction.keyMap.action(for: key), action != .nextMatch, action != .previousMatch {
                _ = model.navigate(action, count: goals.count)
            }
            return .consumed
        }
    }

    func layOut(area: Rect, _ data: ScreenData) {
        model.list.update(visibleRows: max(1, area.height - 4), count: data.goals.goals.count)
    }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        let choices = data.goals.goals
        var lines: [[Span]] = []
        if choices.isEmpty {
            let text = switch data.goals.status {
            case .failed: "The goals could not be loaded: r in tab 1 retries."
            case .idle, .loading: "Loading goals…"
            case .loaded: "No active goals yet: n creates one."
            }
            lines = [[Span(text, Style(fg: .role(.muted)))]]
        }
        let nameWidth = min(32, choices.map { TextWidth.of($0.name) }.max() ?? 0)
        for (index, goal) in choices.enumerated() {
            let text = " " + TextWidth.pad(TextWidth.truncate(DisplayFormat.fitted(goal.name, to: nameWidth), to: nameWidth), to: nameWidth) + "  "
                + DisplayFormat.amountColumn(goal.balance.formatted, to: 12) + " "
            lines.append([Span(text, index == model.list.selected ? Style(fg: .role(.selection), attributes: .reverse) : .plain)])
        }
        var modal = Modal(title: "Save \(offer.amount.formatted) into…", lines: lines, footer: "Enter choose · Esc cancel")
        modal.scroll = model.list.offset
        modal.draw(into: &buffer, in: area)
    }
}
