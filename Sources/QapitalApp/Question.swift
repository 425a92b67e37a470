import FeedModel
import TermUI

/// A question with its lines (what will move, what will go) and the commands a yes runs: the
/// Rules tab's save and delete. y or Enter runs them and closes; n, Esc or q closes, nothing run.
/// A `[y/N]` question (`r` past a bank's budget of reads) takes only y: Enter is no there.
@MainActor
final class Question: Overlay {
    nonisolated static let keyMap = YesOrNo.keyMap(section: "Questions (Rules' s and x; r past a bank's reads)")
    nonisolated static var help: [HelpEntry] { keyMap.helpEntries }

    let title: String
    let lines: [[Span]]
    let yes: [Command]
    /// What y does, in the footer ("save", "delete").
    let verb: String
    /// Only y is yes (a `[y/N]` question): Enter closes it too, nothing run.
    let onlyY: Bool

    init(title: String, lines: [[Span]], verb: String, yes: [Command], onlyY: Bool = false) {
        self.title = title
        self.lines = lines
        self.verb = verb
        self.yes = yes
        self.onlyY = onlyY
    }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        if onlyY && key == .enter { return .close() }
        return switch Self.keyMap.action(for: key) {
        case .yes: .run(yes, then: .close())
        case .no: .close()
        case nil: .consumed
        }
    }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        let footer = [Span(onlyY ? "y: \(verb)    Enter, Esc or n: cancel" : "Enter or y: \(verb)    Esc or n: cancel", Style(fg: .role(.muted)))]
        Modal(title: title, lines: lines + [[], footer]).draw(into: &buffer, in: area)
    }
}

/// The answer keys of every yes-or-no question (`Question`, `SaveConfirmation`): y or Enter, n, Esc, q.
enum YesOrNo: Sendable {
    case yes, no

    static func keyMap(section: String) -> KeyMap<YesOrNo> {
        var map = KeyMap<YesOrNo>()
        map.bind([.enter, .char("y")], to: .yes, help: "yes", section: section)
        map.bind([.escape, .char("n"), .char("q"), .backspace], to: .no, help: "no, close it", section: section)
        return map
    }
}
