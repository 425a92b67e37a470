import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// The mouse as terminals expect it: button-event tracking (mode 1002: presses, releases and
/// drags, not every movement as 1003 would) with SGR reports (mode 1006: `ESC [ < b ; x ; y M`,
/// any column, where X10's bytes end at column 223), asked for under every TERM whose terminfo
/// knows a mouse (`kmous`). The reports are decoded here (`parse`, from the keys after an Esc),
/// the same under every TERM: ncurses' own decoding is left out (`kmous` is taken off its keys),
/// as it knows only X10 reports under some (tmux-256color, screen) and lost clicks after a drag
/// under xterm's.
public enum MouseReports {
    static let enableSequence = "\u{1b}[?1002h\u{1b}[?1006h"
    static let disableSequence = "\u{1b}[?1006l\u{1b}[?1002l"

    /// Whether the terminal has a mouse to ask for (terminfo's `kmous`).
    @MainActor static var terminalHasMouse: Bool {
        guard let mouse = tigetstr("kmous"), Int(bitPattern: mouse) != -1 else { return false }
        return mouse.pointee != 0
    }

    /// Takes the terminal's mouse prefix off ncurses' keys, so a report reaches `parse` as the
    /// characters after an Esc (after `keypad`).
    @MainActor static func takeOverFromNcurses() {
        guard let mouse = tigetstr("kmous"), Int(bitPattern: mouse) != -1, mouse.pointee != 0 else { return }
        _ = define_key(mouse, 0)
    }

    /// Writes `sequence` to the terminal at once, past ncurses' buffer: the enabling one after
    /// the first `doupdate` (which sends ncurses' own mode, so these win), the disabling one
    /// before `endwin`.
    static func send(_ sequence: String, to descriptor: Int32) {
        let bytes = Array(sequence.utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// What the characters after an Esc make so far.
    public enum Parse: Equatable, Sendable {
        /// A report's beginning: read on.
        case partial
        /// A whole report: its key, or nil for what the app takes no key from (a release, a
        /// drag, another button).
        case report(Key?)
        /// Not a mouse report: the characters are keys of their own.
        case notAReport
    }

    /// `text`: what followed an Esc, e.g. `[<0;12;5M` (left press at column 12, row 5, counted
    /// from 1), `[<64;3;4M` (wheel up).
    public static func parse(_ text: Substring) -> Parse {
        let prefix = "[<"
        if text.count < prefix.count { return prefix.hasPrefix(text) ? .partial : .notAReport }
        guard text.hasPrefix(prefix) else { return .notAReport }
        let body = text.dropFirst(prefix.count)
        guard let last = body.last else { return .partial }
        if last.isNumber || last == ";" {
            return body.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ";") } && body.count < 24 ? .partial : .notAReport
        }
        guard last == "M" || last == "m" else { return .notAReport }
        let fields = body.dropLast().split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        guard fields.count == 3, let button = fields[0], let column = fields[1], let row = fields[2], column >= 1, row >= 1 else {
            return .notAReport
        }
        guard last == "M" else { return .report(nil) }  // a release
        switch button {
        case 0: return .report(.click(x: column - 1, y: row - 1))
        case 64: return .report(.mouseWheelUp)
        case 65: return .report(.mouseWheelDown)
        default: return .report(nil)  // drags (32 and up), other buttons, with modifiers
        }
    }
}
