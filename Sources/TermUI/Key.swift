/// A key press, decoded from `get_wch` by `KeyDecoder`.
public enum Key: Hashable, Sendable {
    case char(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, backspace, tab, backTab, delete
    /// Ctrl with a letter: Ctrl-f is `.ctrl("f")` (always lower case).
    case ctrl(Character)
    case function(Int)
    case resize
    case mouseWheelUp, mouseWheelDown
    /// The left button pressed at a cell (column `x`, row `y`, from 0 at the top left).
    case click(x: Int, y: Int)
    case unknown(Int32)

    /// How the key is written in help and hints.
    public var displayName: String {
        switch self {
        case .char(" "): return "Space"
        case .char(let c): return String(c)
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        case .pageUp: return "PgUp"
        case .pageDown: return "PgDn"
        case .home: return "Home"
        case .end: return "End"
        case .enter: return "Enter"
        case .escape: return "Esc"
        case .backspace: return "Backspace"
        case .tab: return "Tab"
        case .backTab: return "Shift-Tab"
        case .delete: return "Del"
        case .ctrl(let c): return "Ctrl-\(c)"
        case .function(let n): return "F\(n)"
        case .resize: return "Resize"
        case .mouseWheelUp: return "Wheel↑"
        case .mouseWheelDown: return "Wheel↓"
        case .click: return "Click"
        case .unknown(let code): return "Key(\(code))"
        }
    }
}
