import FeedModel
import TermUI

/// The small form that `n` opens: a name and an optional target, each with its problem beside it.
/// Closes when its goal arrived (the Goals list selects it).
@MainActor
final class NewGoalForm: Overlay {
    enum Field { case name, target }
    enum Action: Sendable { case nextField, create, cancel }

    nonisolated static let keyMap: KeyMap<Action> = {
        var map = KeyMap<Action>()
        let section = "New-goal form (n; other keys type)"
        map.bind([.tab, .backTab, .down, .up], to: .nextField, help: "next or previous field", section: section)
        map.bind([.enter], to: .create, help: "create the goal", section: section)
        map.bind([.escape], to: .cancel, help: "cancel, close it", section: section)
        return map
    }()
    nonisolated static var help: [HelpEntry] { keyMap.helpEntries }

    var name = TextInput()
    var target = TextInput()
    var focus = Field.name
    var problems = NewGoal.Problems()

    static let nameWidth = 28
    static let targetWidth = 12

    /// A fresh form; whatever an earlier one sent is no longer reported.
    init(_ data: ScreenData) {
        data.goalCreator.reset()
    }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        switch Self.keyMap.action(for: key) {
        case .cancel:
            data.goalCreator.reset()
            return .close()
        case .create:
            guard !data.goalCreator.isBusy else { return .consumed }
            if let goal = validate(currency: data.currency) { data.goalCreator.create(goal) }
        case .nextField, nil:
            edit(key)
        }
        return .consumed
    }

    func receive(_ event: StoreEvent, _ data: ScreenData) -> Outcome {
        guard case .goalCreated(let goal) = event else { return .ignored }
        data.goalCreator.reset()
        return .close(notice: "Created the goal “\(goal.name)”.")
    }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        draw(phase: data.goalCreator.phase, currency: data.currency, into: &buffer, area: area)
    }

    /// Feeds a key to the focused field; Tab and the arrows move between fields.
    func edit(_ key: Key) {
        switch key {
        case .tab, .backTab, .down, .up:
            focus = focus == .name ? .target : .name
        default:
            switch focus {
            case .name:
                if name.handle(key) == .edited { problems.name = nil }
            case .target:
                if target.handle(key) == .edited { problems.target = nil }
            }
        }
    }

    /// Checks the fields; on success the goal to send, else the problems are kept for display.
    func validate(currency: Currency) -> NewGoal? {
        switch NewGoal.validate(name: name.text, target: target.text, currency: currency) {
        case .success(let goal):
            problems = NewGoal.Problems()
            return goal
        case .failure(let found):
            problems = found
            focus = found.name != nil ? .name : .target
            return nil
        }
    }

    func draw(phase: GoalCreator.Phase, currency: Currency, into buffer: inout CellBuffer, area: Rect) {
        let muted = Style(fg: .role(.muted))
        let error = Style(fg: .role(.error), attributes: .bold)
        let blankName = String(repeating: " ", count: NewGoalForm.nameWidth)
        let blankTarget = String(repeating: " ", count: NewGoalForm.targetWidth)
        var status: [Span] = []
        switch phase {
        case .sending: status = [Span("Creating…", Style(fg: .role(.warning)))]
        case .failed(let message): status = [Span("✗ " + message, error)]
        case .idle, .created: break
        }
        let lines: [[Span]] = [
            [Span("Name    " + blankName + "  "), problems.name.map { Span("✗ " + $0, error) } ?? Span(name.text.isEmpty ? "required" : "", muted)],
            [],
            [Span("Target  " + blankTarget + " " + currency.code + "  "),
             problems.target.map { Span("✗ " + $0, error) } ?? Span(target.text.isEmpty ? "optional" : "", muted)],
            [],
            status,
            [Span("Tab: next field   Enter: create   Esc: cancel", muted)],
        ]
        // A fixed width, so the box does not jump while problems come and go.
        let box = area.centered(width: 66, height: lines.count + 2)
        let body = box.inset(dx: 2, dy: 1)
        buffer.fill(box)
        Box.draw(into: &buffer, rect: box, style: Style(fg: .role(.border)), title: "New goal")
        for (row, line) in lines.prefix(body.height).enumerated() {
            buffer.write(line, x: body.x, y: body.y + row, maxWidth: body.width)
        }
        let field = Style(attributes: .underline)
        let focused = Style(attributes: .reverse)
        name.draw(into: &buffer, x: body.x + 8, y: body.y, width: NewGoalForm.nameWidth, style: field,
                  cursorStyle: focus == .name ? focused : field)
        if body.height > 2 {
            target.draw(into: &buffer, x: body.x + 8, y: body.y + 2, width: NewGoalForm.targetWidth, style: field,
                        cursorStyle: focus == .target ? focused : field)
        }
    }
}
