/// One line of the help: keys, what they do, and the section they are listed under.
public struct HelpEntry: Hashable, Sendable {
    public var section: String
    public var keys: [Key]
    public var help: String

    public init(section: String, keys: [Key], help: String) {
        self.section = section
        self.keys = keys
        self.help = help
    }

    /// The keys as the help shows them, e.g. "j ↓".
    public var keyLabel: String { keys.map(\.displayName).joined(separator: " ") }
}

/// The help screen, generated from the `KeyMap`s that dispatch keys.
public enum HelpOverlay {
    /// Sections with a bold heading, then one line per binding: keys in a column, then help.
    public static func lines<Action>(for keyMap: KeyMap<Action>) -> [[Span]] {
        lines(for: keyMap.helpEntries)
    }

    /// The same for entries gathered from several maps; sections keep the order they first appear in.
    /// `width`: the cells a line has; a description longer than its room wraps at words under
    /// itself (its keys' column left blank), read whole at any width.
    public static func lines(for helpEntries: [HelpEntry], width: Int? = nil) -> [[Span]] {
        let entries = helpEntries.map { (section: $0.section, keys: $0.keyLabel, help: $0.help) }
        let keyColumn = entries.map { TextWidth.of($0.keys) }.max() ?? 0
        var lines: [[Span]] = []
        var sections: [String] = []
        for entry in entries where !sections.contains(entry.section) { sections.append(entry.section) }
        for (i, section) in sections.enumerated() {
            if i > 0 { lines.append([]) }
            lines.append([Span(section, .bold)])
            for entry in entries where entry.section == section {
                let indent = keyColumn + 4
                guard let width, width - indent >= 12, indent + TextWidth.of(entry.help) > width else {
                    lines.append([
                        Span("  " + TextWidth.pad(entry.keys, to: keyColumn), Style(fg: .role(.accent))),
                        Span("  " + entry.help),
                    ])
                    continue
                }
                for (index, part) in SpanWrap.wrap([Span(entry.help)], width: width - indent).enumerated() {
                    let keys = index == 0 ? entry.keys : ""
                    lines.append([Span("  " + TextWidth.pad(keys, to: keyColumn), Style(fg: .role(.accent))),
                                  Span("  " + part.map(\.text).joined())])
                }
            }
        }
        return lines
    }

    public static func modal<Action>(for keyMap: KeyMap<Action>, title: String = "Keys", scroll: Int = 0) -> Modal {
        modal(for: keyMap.helpEntries, title: title, scroll: scroll)
    }

    public static func modal(for entries: [HelpEntry], title: String = "Keys", scroll: Int = 0, width: Int? = nil) -> Modal {
        var modal = Modal(title: title, lines: lines(for: entries, width: width), footer: "Esc to close")
        modal.scroll = scroll
        return modal
    }

    @discardableResult
    public static func draw<Action>(_ keyMap: KeyMap<Action>, into buffer: inout CellBuffer, in area: Rect,
                                    title: String = "Keys", scroll: Int = 0) -> Rect {
        modal(for: keyMap, title: title, scroll: scroll).draw(into: &buffer, in: area)
    }
}
