import Testing
@testable import TermUI

/// Raw values as `get_wch` reports them (ncurses 6.4): OK = 0 with a character,
/// KEY_CODE_YES = 0o400 with a key code, ERR = -1.
@Suite struct KeyTests {
    let ok: Int32 = 0
    let keyCode: Int32 = 0o400

    @Test func enterBackspaceTabEscape() {
        #expect(KeyDecoder.decode(status: ok, value: 10) == .enter)
        #expect(KeyDecoder.decode(status: ok, value: 13) == .enter)
        #expect(KeyDecoder.decode(status: keyCode, value: 0o527) == .enter)       // KEY_ENTER
        #expect(KeyDecoder.decode(status: ok, value: 127) == .backspace)
        #expect(KeyDecoder.decode(status: ok, value: 8) == .backspace)
        #expect(KeyDecoder.decode(status: keyCode, value: 0o407) == .backspace)   // KEY_BACKSPACE
        #expect(KeyDecoder.decode(status: ok, value: 9) == .tab)
        #expect(KeyDecoder.decode(status: keyCode, value: 0o541) == .backTab)     // KEY_BTAB
        #expect(KeyDecoder.decode(status: ok, value: 27) == .escape)
    }

    @Test func controlLetters() {
        #expect(KeyDecoder.decode(status: ok, value: 6) == .ctrl("f"))
        #expect(KeyDecoder.decode(status: ok, value: 2) == .ctrl("b"))
        #expect(KeyDecoder.decode(status: ok, value: 1) == .ctrl("a"))
        #expect(KeyDecoder.decode(status: ok, value: 26) == .ctrl("z"))
        #expect(KeyDecoder.decode(status: ok, value: 3) == .ctrl("c"))
        #expect(KeyDecoder.decode(status: ok, value: 0) == .unknown(0))
    }

    @Test func charactersIncludingNonASCII() {
        #expect(KeyDecoder.decode(status: ok, value: 0x6A) == .char("j"))
        #expect(KeyDecoder.decode(status: ok, value: 0x47) == .char("G"))
        #expect(KeyDecoder.decode(status: ok, value: 0x20) == .char(" "))
        #expect(KeyDecoder.decode(status: ok, value: 0xE9) == .char("é"))
        #expect(KeyDecoder.decode(status: ok, value: 0x4E2D) == .char("中"))
        #expect(KeyDecoder.decode(status: ok, value: 0x1F389) == .char("🎉"))
        #expect(KeyDecoder.decode(status: ok, value: 0xD800) == .unknown(0xD800))  // lone surrogate
    }

    @Test func functionKeys() {
        #expect(KeyDecoder.decode(status: keyCode, value: 0o403) == .up)
        #expect(KeyDecoder.decode(status: keyCode, value: 0o402) == .down)
        #expect(KeyDecoder.decode(status: keyCode, value: 0o404) == .left)
        #expect(KeyDecoder.decode(status: keyCode, value: 0o405) == .right)
        #expect(KeyDecoder.decode(status: keyCode, value: 0o523) == .pageUp)
        #expect(KeyDecoder.decode(status: keyCode, value: 0o522) == .pageDown)
        #expect(KeyDecoder.decode(status: keyCode, value: 0o406) == .home)
        #expect(KeyDecoder.decode(status: keyCode, value: 0o550) == .end)
        #expect(KeyDecoder.decode(status: keyCode, value: 0o512) == .delete)
        #expect(KeyDecoder.decode(status: keyCode, value: 0o411) == .function(1))
        #expect(KeyDecoder.decode(status: keyCode, value: 0o410 + 12) == .function(12))
        #expect(KeyDecoder.decode(status: keyCode, value: 0o632) == .resize)
        #expect(KeyDecoder.decode(status: keyCode, value: 0o777) == .unknown(0o777))
        #expect(KeyDecoder.decode(status: -1, value: 0) == .unknown(-1))
    }

    @Test func mouseWheel() {
        // NCURSES_MOUSE_MASK(b, PRESSED) = 0o2 << ((b - 1) * 5) with NCURSES_MOUSE_VERSION 2.
        #expect(KeyDecoder.decodeMouse(buttonState: 0o2 << 15) == .mouseWheelUp)
        #expect(KeyDecoder.decodeMouse(buttonState: 0o2 << 20) == .mouseWheelDown)
        #expect(KeyDecoder.decodeMouse(buttonState: 0o2, x: 4, y: 2) == .click(x: 4, y: 2))   // BUTTON1_PRESSED
        #expect(KeyDecoder.decodeMouse(buttonState: 0o1) == nil)   // BUTTON1_RELEASED
    }

    @Test func displayNames() {
        #expect(Key.ctrl("f").displayName == "Ctrl-f")
        #expect(Key.pageDown.displayName == "PgDn")
        #expect(Key.char(" ").displayName == "Space")
        #expect(Key.backTab.displayName == "Shift-Tab")
    }
}

@Suite struct KeyMapTests {
    enum Action: Equatable, Sendable { case down, up, page, quit, help }

    let keyMap = KeyMap<Action>([
        KeyBinding([.char("j"), .down], .down, help: "Move down", section: "Navigation"),
        KeyBinding([.char("k"), .up], .up, help: "Move up", section: "Navigation"),
        KeyBinding([.pageDown, .ctrl("f")], .page, help: "Next page", section: "Navigation"),
        KeyBinding([.char("?")], .help, help: "This help", section: "General"),
        KeyBinding([.char("q"), .char("j")], .quit, help: "Quit", section: "General"),
    ])

    @Test func dispatchesBoundKeys() {
        #expect(keyMap.action(for: .char("j")) == .down)
        #expect(keyMap.action(for: .down) == .down)
        #expect(keyMap.action(for: .ctrl("f")) == .page)
        #expect(keyMap.action(for: .char("q")) == .quit)
        #expect(keyMap.action(for: .char("x")) == nil)
    }

    @Test func aKeyBoundTwiceKeepsItsFirstActionAndHelpAgrees() {
        #expect(keyMap.action(for: .char("j")) == .down)
        #expect(keyMap.bindings.last?.keys == [.char("q")])
    }

    @Test func helpOverlayIsBuiltFromTheKeyMap() {
        var buffer = CellBuffer(width: 34, height: 12)
        let box = HelpOverlay.draw(keyMap, into: &buffer, in: buffer.area)
        #expect(box == Rect(x: 3, y: 1, width: 28, height: 10))
        #expect(buffer.lines == [
            "                                  ",
            "   ┌─ Keys ───────────────────┐   ",
            "   │ Navigation               │   ",
            "   │   j ↓          Move down │   ",
            "   │   k ↑          Move up   │   ",
            "   │   PgDn Ctrl-f  Next page │   ",
            "   │                          │   ",
            "   │ General                  │   ",
            "   │   ?            This help │   ",
            "   │   q            Quit      │   ",
            "   └─────────── Esc to close ─┘   ",
            "                                  ",
        ])
        #expect(buffer.style(atX: 5, y: 2).attributes.contains(.bold))
        #expect(buffer.style(atX: 7, y: 3).fg == .role(.accent))
        #expect(buffer.style(atX: 20, y: 3).fg == .default)
    }

    @Test func everyBindingAppearsInTheHelp() {
        let text = HelpOverlay.lines(for: keyMap).map { $0.map(\.text).joined() }.joined(separator: "\n")
        for binding in keyMap.bindings {
            #expect(text.contains(binding.help))
            for key in binding.keys { #expect(text.contains(key.displayName)) }
        }
    }

    /// SGR mouse reports (1006), read from the characters after an Esc under every TERM.
    @Test func sgrMouseReports() {
        #expect(MouseReports.parse("[<0;12;5M") == .report(.click(x: 11, y: 4)))
        #expect(MouseReports.parse("[<0;230;5M") == .report(.click(x: 229, y: 4)))  // past X10's 223
        #expect(MouseReports.parse("[<64;3;4M") == .report(.mouseWheelUp))
        #expect(MouseReports.parse("[<65;3;4M") == .report(.mouseWheelDown))
        #expect(MouseReports.parse("[<0;12;5m") == .report(nil))   // a release
        #expect(MouseReports.parse("[<32;13;5M") == .report(nil))  // a drag
        #expect(MouseReports.parse("[<2;12;5M") == .report(nil))   // the right button
        for partial in ["", "[", "[<", "[<0", "[<0;", "[<0;12;5"] { #expect(MouseReports.parse(Substring(partial)) == .partial, "\(partial)") }
        for other in ["q", "[A", "[<x", "[<0;0;5M", "[<0;1M", "[<0;1;2;3M"] { #expect(MouseReports.parse(Substring(other)) == .notAReport, "\(other)") }
    }
}
