/// The help screen, generated from the `KeyMap` that dispatches keys.
public enum HelpOverlay {
    /// Sections with a bold heading, then one line per binding: keys in a column, then help.
    public static func lines<Action>(for keyMap: KeyMap<Action>) -> [[Span]] {
        let keyColumn = keyMap.bindings.map { TextWidth.of($0.keyLabel) }.max() ?? 0
        var lines: [[Span]] = []
        for (i, section) in keyMap.sections.enumerated() {
            if i > 0 { lines.append([]) }
            lines.append([Span(section.name, .bold)])
            for binding in section.bindings {
                lines.append([
                    Span("  " + TextWidth.pad(binding.keyLabel, to: keyColumn), Style(fg: .role(.accent))),
                    Span("  " + binding.help),
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
