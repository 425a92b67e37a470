import CNcurses

/// Turns what `get_wch` returned into a `Key`, without a terminal.
public enum KeyDecoder {
    /// `status` is `get_wch`'s result (`OK` for a character, `KEY_CODE_YES` for a function key),
    /// `value` the character or key code it stored.
    public static func decode(status: Int32, value: UInt32) -> Key {
        switch status {
        case KEY_CODE_YES: return decodeKeyCode(Int32(bitPattern: value))
        case OK: return decodeCharacter(value)
        default: return .unknown(status)
        }
    }

    static func decodeCharacter(_ value: UInt32) -> Key {
        switch value {
        case 10, 13: return .enter
        case 127, 8: return .backspace
        case 9: return .tab
        case 27: return .escape
        case 1...26:
            // Ctrl-a is 1 … Ctrl-z is 26 (8, 9, 10 and 13 were taken above).
            return .ctrl(Character(Unicode.Scalar(UInt8(value) + 0x60)))
        case 0..<32: return .unknown(Int32(value))
        default:
            guard let scalar = Unicode.Scalar(value) else { return .unknown(Int32(bitPattern: value)) }
            return .char(Character(scalar))
        }
    }

    static func decodeKeyCode(_ code: Int32) -> Key {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME, KEY_A1: return .home
        case KEY_END, KEY_C1: return .end
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_BTAB: return .backTab
        case KEY_DC: return .delete
        case KEY_RESIZE: return .resize
        case qt_key_f(1)...qt_key_f(63): return .function(Int(code - qt_key_f(0)))
        default: return .unknown(code)
        }
    }

    /// Decodes a mouse event (from `getmouse`): the wheel, or a left click at `x`, `y`; nil for
    /// anything else (releases, other buttons, moves).
    public static func decodeMouse(buttonState: UInt, x: Int32 = 0, y: Int32 = 0) -> Key? {
        if buttonState & UInt(qt_button4_pressed()) != 0 { return .mouseWheelUp }
        if buttonState & UInt(qt_button5_pressed()) != 0 { return .mouseWheelDown }
        if buttonState & UInt(qt_button1_press_or_click()) != 0, x >= 0, y >= 0 { return .click(x: Int(x), y: Int(y)) }
        return nil
    }
}
