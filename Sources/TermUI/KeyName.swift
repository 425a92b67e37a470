extension Key {
    /// A key as a config file names it: one character (`j`, `G`, `?`), or a name, case aside:
    /// `Up` `Down` `Left` `Right` `PgUp` `PgDn` `Home` `End` `Enter` `Esc` `Backspace` `Tab`
    /// `Shift-Tab` `Del` `Space` `Ctrl-f` `F1`…`F63`, and the arrows as help shows them (`↓`).
    /// Nil for anything else.
    public init?(name: String) {
        if name.count == 1, let c = name.first {
            switch c {
            case "↑": self = .up
            case "↓": self = .down
            case "←": self = .left
            case "→": self = .right
            default:
                guard !c.isWhitespace || c == " ", c.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
                    return nil
                }
                self = .char(c)
            }
            return
        }
        let lower = name.lowercased()
        switch lower {
        case "up": self = .up
        case "down": self = .down
        case "left": self = .left
        case "right": self = .right
        case "pgup", "pageup", "page-up": self = .pageUp
        case "pgdn", "pagedown", "page-down": self = .pageDown
        case "home": self = .home
        case "end": self = .end
        case "enter", "return": self = .enter
        case "esc", "escape": self = .escape
        case "backspace": self = .backspace
        case "tab": self = .tab
        case "shift-tab", "backtab": self = .backTab
        case "del", "delete": self = .delete
        case "space": self = .char(" ")
        default:
            if lower.hasPrefix("ctrl-"), lower.count == 6, let c = lower.last, ("a"..."z").contains(c),
               !["h", "i", "j", "m"].contains(c) {
                // Ctrl-h, -i, -j and -m arrive as Backspace, Tab and Enter.
                self = .ctrl(c)
            } else if lower.hasPrefix("f"), let n = Int(lower.dropFirst()), (1...63).contains(n) {
                self = .function(n)
            } else {
                return nil
            }
        }
    }
}
