/// The help screen, generated from the `KeyMap` that dispatches keys.
public enum HelpOverlay {
    /// Sections with a bold heading, then one line per binding: keys in a column, then help.
    public static func lines<Action>(for keyMap: KeyMap<Action>) -> [[Span]] {
        let entries: [(section: String, keys: String, help: String)] =
            keyMap.sections.flatMap { section in section.bindings.map { (section.name, $0.keyLabel, $0.help) } }
            + keyMap.descriptions.map { ($0.section, $0.keyLabel, $0.help) }
        let keyColumn = entries.map { TextWidth.of($0.keys) }.max() ?? 0
        var lines: [[Span]] = []
        var sections: [String] = []
        for entry in entries where !sections.contains(entry.section) { sections.append(entry.section) }
        for (i, section) in sections.enumerated() {
            if i > 0 { lines.append([]) }
            lines.append([Span(section, .bold)])
            for entry in entries where entry.section == section {
                lines.append([
                    Span("  " + TextWidth.pad(entry.keys, to: keyColumn), Style(fg: .role(.accent))),
                    Span("  " + entry.help),
                ])
            }
        }
        return lines
    }

    public static func modal<Action>(for keyMap: KeyMap<Action>, title: String = "Keys", scroll: Int = 0) -> Modal {
        var modal = Modal(title: title, lines: lines(for: keyMap), footer: "Esc to close")
        modal.scroll = scroll
        return modal
    }

    @discardableResult
    public static func draw<Action>(_ keyMap: KeyMap<Action>, into buffer: inout CellBuffer, in area: Rect,
                                    title: String = "Keys", scroll: Int = 0) -> Rect {
        modal(for: keyMap, title: title, scroll: scroll).draw(into: &buffer, in: area)
    }
}
