import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension BlockingTests {
    /// Issue 30, items 1 and 12, on the real binary in a pseudo-terminal: keys from the terminal
    /// when stdin is a pipe, and the mouse in SGR reports with button events under every TERM.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct NewcomerTerminalTests {
        /// The exit status of `pid` once it ended (the pty drained meanwhile), nil at the deadline.
        static func exitStatus(_ process: TerminalProcess, timeout: Duration = .seconds(10)) -> Int32? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                _ = process.terminal.read(timeoutMs: 5)
                var status: Int32 = 0
                if waitpid(process.pid, &status, WNOHANG) == process.pid {
                    return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                }
            }
            return nil
        }

        static func text(_ bytes: [UInt8]?) -> String { bytes.map { String(decoding: $0, as: UTF8.self) } ?? "" }

        @Test func keysComeFromTheTerminalWhenStdinIsAPipe() throws {
            let binary = TerminalSession.binary.path
            let process = try #require(TerminalProcess(["/bin/sh", "-c", "echo | exec '\(binary)' --no-images"], rows: 30, columns: 100))
            defer { process.finish(quitKeys: "") }
            let pty = process.terminal
            #expect(pty.read(until: "Balloons", deadline: .now + .seconds(10)) != nil)
            pty.send("2")
            #expect(pty.read(until: "savings per week", deadline: .now + .seconds(10)) != nil, "a key reached the app")
            pty.send("q")
            #expect(Self.exitStatus(process) == 0, "q quits")
        }

        @Test func withoutAnyTerminalToReadKeysFromItRefusesInOneLine() throws {
            let binary = TerminalSession.binary.path
            // A session of its own has no controlling terminal: /dev/tty cannot be opened.
            let process = try #require(TerminalProcess(["/usr/bin/setsid", "-w", "/bin/sh", "-c", "echo | exec '\(binary)'"], rows: 30, columns: 100))
            defer { process.finish(quitKeys: "") }
            let said = Self.text(process.terminal.read(until: "\n", deadline: .now + .seconds(10)))
            #expect(said.contains("qapital-tui: standard input is not a terminal"), "\(said)")
            #expect(Self.exitStatus(process) == 64)
        }

        /// Item 5: PgDn and Space page the help as in less (they used to close it, the key swallowed).
        @Test func theHelpPagesLikeLess() throws {
            let terminal = try TerminalSession(arguments: ["--no-images"], width: 100, height: 30)
            #expect(terminal.read(until: { $0.contains("Balloons") && $0.contains("? help") }))
            terminal.send("?")
            #expect(terminal.read(until: { $0.contains("Keys") && $0.contains("1–26 of") }))
            terminal.send("\u{1b}[6~")  // PgDn
            terminal.send(" ")
            #expect(terminal.read(until: { $0.contains("the next person") }), "two pages on: the third page of the help")
            // Still open: `2` is swallowed by the help, not a switch to Activity; `q` closes it, and
            // Tab moves on from where the help was: to Activity from Goals, to Round-ups had `2`
            // switched (and had the help closed before, `q` would have quit, showing neither).
            #expect(!terminal.text.contains("savings per week") && !terminal.text.contains("Week of"))
            terminal.send("2")
            terminal.send("q")
            terminal.send("\t")
            #expect(terminal.read(until: { $0.contains("savings per week") || $0.contains("Week of") }), "Tab after the help moved on")
            #expect(terminal.text.contains("savings per week") && !terminal.text.contains("Week of"), "the help took 2: Tab went from Goals to Activity")
            terminal.send("q")
            #expect(terminal.waitForExit() == 0)
        }

        @Test(arguments: ["tmux-256color", "screen-256color", "xterm-256color"])
        func theMouseSpeaksSGRWithButtonEvents(term: String) throws {
            let terminal = try TerminalSession(arguments: ["--no-images"], width: 240, height: 30, environment: ["TERM": term])
            #expect(terminal.read(until: { $0.contains("Balloons") && $0.contains("? help") }))
            #expect(terminal.text.contains("\u{1b}[?1002h") && terminal.text.contains("\u{1b}[?1006h"), "\(term) asks for SGR button events")
            #expect(!terminal.text.contains("\u{1b}[?1003h"), "\(term): not every movement")
            // A click on the tab "2 Activity" (column 14 of row 1, counted from 1), press and release.
            terminal.send("\u{1b}[<0;14;1M\u{1b}[<0;14;1m")
            #expect(terminal.read(until: { $0.contains("savings per week") }), "\(term): the click reached the tab bar")
            // The wheel, then a drag (press, move, release): nothing typed, no tab switched by their digits.
            terminal.send("\u{1b}[<65;50;10M\u{1b}[<64;50;10M")
            terminal.send("\u{1b}[<0;51;10M\u{1b}[<32;52;10M\u{1b}[<0;52;10m")
            // Two clicks at column 230 (past X10's 223) on the second activity: selected, then opened.
            terminal.send("\u{1b}[<0;230;5M\u{1b}[<0;230;5m")
            terminal.send("\u{1b}[<0;230;5M\u{1b}[<0;230;5m")
            // (Its details card: the whole message, and the goal it names on Enter.)
            #expect(terminal.read(until: { $0.contains("Esc closes") }), "\(term): a click past column 223 opened the activity")
            terminal.send("q")
            terminal.send("q")
            #expect(terminal.waitForExit() == 0)
            let tail = terminal.text.components(separatedBy: "Esc closes").last ?? ""
            #expect(tail.contains("\u{1b}[?1006l") || tail.contains("\u{1b}[?1002l"), "\(term): the reports are switched off on quit")
        }
    }
}
