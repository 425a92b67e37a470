import FeedModel
import TermUI

/// Enter on a row (an activity, a card payment, an achievement): what the row holds, in full,
/// in a card. Values wrap under their label, so a message is read whole at any width. An
/// activity that names a goal opens it on Enter; any other key closes the card.
@MainActor
final class DetailCard: Overlay {
    enum Action: Sendable { case close, open }

    nonisolated static let keyMap: KeyMap<Action> = {
        var map = KeyMap<Action>()
        let section = "Details (Enter on an activity, payment or achievement)"
        map.bind([.enter], to: .open, help: "open the goal the activity names (else close)", section: section)
        map.bind([.escape, .char("q")], to: .close, help: "close (any other key too)", section: section)
        return map
    }()
    nonisolated static var help: [HelpEntry] { keyMap.helpEntries }

    /// A label and its value (the value wraps under itself, the label stays in its column).
    struct Field {
        var label: String
        var value: [Span]
    }

    let title: String
    let fields: [Field]
    /// What Enter opens, named in the footer ("Enter opens Emergency"), if anything.
    let opens: (name: String, outcome: @MainActor (ScreenData) -> Outcome)?

    init(title: String, fields: [Field], opens: (name: String, outcome: @MainActor (ScreenData) -> Outcome)? = nil) {
        self.title = title
        self.fields = fields
        self.opens = opens
    }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        if key == .resize { return .consumed }
        if Self.keyMap.action(for: key) == .open, let opens { return .run([], then: opens.outcome(data)) }
        return .close()
    }

    var footer: String { opens.map { "Enter opens \($0.name) · Esc closes" } ?? "Esc closes" }
    /// Where the footer does not fit: the keys and the goal's name, still.
    var shortFooter: String { opens.map { "↵ \($0.name) · Esc" } ?? "Esc" }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        var modal = Modal(title: title, lines: lines(width: area.width - 4), footer: footer)
        modal.shortFooter = shortFooter
        modal.draw(into: &buffer, in: area)
    }

    /// The labels in a column as wide as the longest and two cells, the values wrapped to `width`
    /// cells in all (the box's inside).
    func lines(width: Int) -> [[Span]] {
        let column = (fields.map { TextWidth.of($0.label) }.max() ?? 0) + 2
        let muted = Style(fg: .role(.muted))
        var lines: [[Span]] = []
        for field in fields {
            let wrapped = SpanWrap.wrap(field.value, width: max(1, width - column))
            for (index, line) in wrapped.enumerated() {
                lines.append([Span(TextWidth.pad(index == 0 ? field.label : "", to: column), muted)] + line)
            }
        }
        return lines
    }

    /// A label and its value.
    static func field(_ label: String, _ value: [Span]) -> Field {
        Field(label: label, value: value)
    }
}
