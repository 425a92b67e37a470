import FeedModel
import TermUI

/// Enter on a row that opens no screen of its own (an activity that names no goal, a card
/// payment, an achievement): what the row holds, in full, in a card. Any key closes it.
@MainActor
final class DetailCard: Overlay {
    enum Action: Sendable { case close }

    nonisolated static let keyMap: KeyMap<Action> = {
        var map = KeyMap<Action>()
        map.bind([.escape, .char("q"), .enter], to: .close, help: "close (any other key too)", section: "Details (Enter on an activity, payment or achievement)")
        return map
    }()
    nonisolated static var help: [HelpEntry] { keyMap.helpEntries }

    let title: String
    let lines: [[Span]]

    init(title: String, lines: [[Span]]) {
        self.title = title
        self.lines = lines
    }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        key == .resize ? .consumed : .close()
    }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        Modal(title: title, lines: lines, footer: "Esc closes").draw(into: &buffer, in: area)
    }

    /// A label and its value, the label muted in a column.
    static func field(_ label: String, _ value: [Span]) -> [Span] {
        [Span(TextWidth.pad(label, to: 8), Style(fg: .role(.muted)))] + value
    }
}
