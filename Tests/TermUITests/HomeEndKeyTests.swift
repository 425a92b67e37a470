import CNcurses
import Testing
@testable import TermUI

/// Issue 50.1: Home and End as terminals send them, whatever `TERM` says. tmux and PuTTY with
/// `TERM=xterm` send `ESC [1~` and `ESC [4~`, which xterm's terminfo does not list: ncurses passes
/// them on as characters, and they were Esc (closing a form, losing its text) plus `1~`.
@Suite struct HomeEndKeyTests {
    /// What terminals send, from `infocmp -1` (khome/kend) on this machine and xterm's ctlseqs
    /// (normal and application cursor mode, modifiers as `1;m`).
    static let table: [(terminal: String, sequence: String, key: Key)] = [
        ("xterm normal mode", "\u{1B}[H", .home), ("xterm normal mode", "\u{1B}[F", .end),
        ("xterm (terminfo), application mode", "\u{1B}OH", .home), ("xterm (terminfo), application mode", "\u{1B}OF", .end),
        ("screen, tmux-256color, linux, PuTTY", "\u{1B}[1~", .home), ("screen, tmux-256color, linux, PuTTY", "\u{1B}[4~", .end),
        ("rxvt", "\u{1B}[7~", .home), ("rxvt", "\u{1B}[8~", .end),
        ("xterm Ctrl-Home", "\u{1B}[1;5H", .home), ("xterm Shift-End", "\u{1B}[1;2F", .end),
        ("rxvt-style with a modifier", "\u{1B}[1;5~", .home), ("with a modifier", "\u{1B}[4;3~", .end),
        ("VT220 PgUp", "\u{1B}[5~", .pageUp), ("VT220 PgDn", "\u{1B}[6~", .pageDown), ("VT220 Delete", "\u{1B}[3~", .delete),
        ("xterm arrow", "\u{1B}[A", .up), ("xterm application arrow", "\u{1B}OB", .down),
        ("xterm Ctrl-Right", "\u{1B}[1;5C", .right), ("xterm F1", "\u{1B}OP", .function(1)), ("xterm F5", "\u{1B}[15~", .function(5)),
        ("back tab", "\u{1B}[Z", .backTab),
    ]

    /// Fed as `get_wch` gives them, one character a call, then the input goes quiet.
    static func decode(_ text: String) -> [Key] {
        var stream = KeyStream()
        var keys: [Key] = []
        for scalar in text.unicodeScalars { keys += stream.feed(status: OK, value: scalar.value) }
        return keys + stream.flush()
    }

    @Test(arguments: table.indices)
    func eachFormIsItsKey(index: Int) {
        let (terminal, sequence, key) = Self.table[index]
        #expect(Self.decode(sequence) == [key], "\(terminal): \(sequence.debugDescription)")
    }

    /// Typed in a form: a name, Home, more text. Nothing but the name's characters and Home.
    @Test func homeInTypedTextIsNoEsc() {
        let keys = Self.decode("Bike\u{1B}[1~!")
        #expect(keys == [.char("B"), .char("i"), .char("k"), .char("e"), .home, .char("!")])
        #expect(!keys.contains(.escape))
    }

    /// What is not a key stays as it was: Alt-O (ESC O, then quiet), and control sequences no key sends.
    @Test func whatIsNoKeyStaysAsItWas() {
        #expect(Self.decode("\u{1B}O") == [.escape, .char("O")])
        #expect(Self.decode("\u{1B}[2;3;4H") == [.escape, .char("["), .char("2"), .char(";"), .char("3"), .char(";"), .char("4"), .char("H")])
        #expect(Self.decode("\u{1B}[99~") == [.escape, .char("["), .char("9"), .char("9"), .char("~")])
        // ESC O and a control character: Alt-O, then that character as it comes.
        #expect(Self.decode("\u{1B}O\u{1B}") == [.escape, .char("O"), .escape])
    }
}
