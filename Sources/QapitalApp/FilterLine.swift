import FeedModel
import TermUI

/// `/`: the filter line over the status bar. Every edit filters the screen's list at once;
/// Enter keeps the filter, Esc clears it.
@MainActor
final class FilterLine: Overlay {
    enum Action: Sendable { case keep, clear, edit }

    nonisolated static let keyMap: KeyMap<Action> = {
        var map = KeyMap<Action>()
        let section = "Filter line (/; other keys type)"
        map.bind([.enter], to: .keep, help: "keep the filter, close the line", section: section)
        map.bind([.escape], to: .clear, help: "clear the filter, close the line", section: section)
        map.bind([.ctrl("u")], to: .edit, help: "clear the line", section: section)
        map.bind([.left, .right, .home, .end], to: .edit, help: "move in the line", section: section)
        map.bind([.backspace, .delete], to: .edit, help: "delete", section: section)
        return map
    }()
    nonisolated static var help: [HelpEntry] { keyMap.helpEntries }

    private let screen: any Screen
    private(set) var input: TextInput

    init(screen: any Screen) {
        self.screen = screen
        input = TextInput(screen.filter)
    }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        switch Self.keyMap.action(for: key) {
        case .keep:
            return .close()
        case .clear:
            screen.clearFilter(data)
            return .close()
        case .edit, nil:
            if input.handle(key) == .edited {
                if input.text.isEmpty { screen.clearFilter(data) } else { screen.filter = input.text }
            }
            return .consumed
        }
    }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar rect: Rect, _ data: ScreenData) {
        // The filter line takes the whole bar so the cursor is visible.
        buffer.fill(rect, style: .reverse)
        buffer.write("/", x: rect.x, y: rect.y, style: .reverse)
        input.draw(into: &buffer, x: rect.x + 1, y: rect.y, width: rect.width - 1, style: .reverse,
                   cursorStyle: Style(attributes: .underline))
    }
}
