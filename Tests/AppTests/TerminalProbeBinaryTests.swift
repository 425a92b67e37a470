import Foundation
import Testing
import TestSupport
import TermUI
#if canImport(Glibc)
import Glibc
#endif

extension BlockingTests {
    /// The real binary asks its pseudo-terminal what it can do; the test answers as a terminal
    /// emulator would (or not at all) and reads what the app made of it.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct TerminalProbeBinaryTests {
        static let esc = "\u{1B}"
        /// The last query: once it has arrived, the whole batch has.
        static let closingQuery = "\u{1B}[c"
        static let kittyReplies = "\(esc)_Gi=31;OK\(esc)\\\(esc)[?2026;2$y\(esc)[6;20;10t\(esc)P>|kitty(0.35.2)\(esc)\\\(esc)[?62;c"

        @Test func doctorSaysWhatAKittyTerminalCanDo() throws {
            let terminal = try TerminalSession(arguments: ["doctor"], environment: ["TERM": "xterm-kitty", "COLORTERM": "truecolor"])
            #expect(terminal.read(until: { $0.contains(Self.closingQuery) }, timeout: 5))
            #expect(terminal.text.contains(TerminalProbe.queries))
            terminal.send(Self.kittyReplies)
            #expect(terminal.waitForExit() == 0)
            let text = terminal.text
            #expect(text.contains("terminal: xterm-kitty, kitty(0.35.2) (answered in "), "\(text)")
            #expect(text.contains("pictures: kitty graphics (the terminal answered the kitty graphics query)"))
            #expect(text.contains("synchronized output: yes (DECRQM 2026 answered 2)"))
            #expect(text.contains("truecolor: yes (COLORTERM=truecolor)"))
            #expect(text.contains("cell: 10 × 20 pixels"))
        }

        @Test func aTerminalThatAnswersNothingCostsOnlyTheDeadline() throws {
            let terminal = try TerminalSession(arguments: ["doctor"], environment: ["TERM": "xterm-256color", "COLORTERM": ""])
            // Not a speed target (qapital-bench has those): a probe without its deadline would
            // wait for an answer that never comes, so that it ends at all is the check; the wait
            // is the suite's time limit's worth, for a loaded CI machine.
            #expect(terminal.waitForExit(timeout: 50) == 0)
            #expect(terminal.text.contains("terminal: xterm-256color (no answer)"), "\(terminal.text)")
            #expect(terminal.text.contains("pictures: half blocks (the terminal did not answer)"))
            #expect(terminal.text.contains("synchronized output: no"))
        }

        @Test func theConfigFileCanTurnTheProbeOff() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let config = directory.appendingPathComponent("config.toml")
            try Data("[terminal]\nprobe = false\ngraphics = \"sixel\"\n".utf8).write(to: config)
            let terminal = try TerminalSession(arguments: ["doctor", "--config", config.path])
            #expect(terminal.waitForExit() == 0)
            #expect(!terminal.text.contains(Self.closingQuery))
            #expect(terminal.text.contains("pictures: sixel (set in the config file)"), "\(terminal.text)")
        }

        /// A terminal that knows mode 2026 gets every frame between `CSI ? 2026 h` and `l`: the
        /// first frame's text inside a bracket, each bracket closed before the next opens.
        @Test func everyFrameIsBracketedWhenTheTerminalKnowsMode2026() throws {
            let begin = "\u{1B}[?2026h", end = "\u{1B}[?2026l"
            let terminal = try TerminalSession(environment: ["TERM": "xterm-256color"])
            #expect(terminal.read(until: { $0.contains(Self.closingQuery) }, timeout: 5))
            terminal.send("\(Self.esc)[?2026;2$y\(Self.esc)[?62;c")
            #expect(terminal.read(until: { $0.contains("Balloons") && $0.contains("? help") }))
            terminal.send("j")
            #expect(terminal.read(until: { $0.components(separatedBy: begin).count > 2 }))
            terminal.send("q")
            #expect(terminal.waitForExit() == 0)
            let frames = terminal.text.components(separatedBy: Self.closingQuery).last ?? ""
            let parts = frames.components(separatedBy: begin)
            #expect(parts.count > 2)
            #expect(!parts[0].contains(end))
            for part in parts.dropFirst() {
                // One end in each, and the frame's drawing before it.
                #expect(part.components(separatedBy: end).count == 2, "\(part.debugDescription)")
            }
            // The drawing is inside the brackets, none of it between them.
            #expect(parts.dropFirst().contains { $0.components(separatedBy: end)[0].contains("Balloons") })
            #expect(!parts.dropFirst().contains { ($0.components(separatedBy: end).last ?? "").contains("Balloons") })
        }

        @Test func noBracketsWhenTheTerminalDoesNotKnowMode2026() throws {
            let terminal = try TerminalSession(environment: ["TERM": "xterm-256color"])
            #expect(terminal.read(until: { $0.contains(Self.closingQuery) }, timeout: 5))
            terminal.send("\(Self.esc)[?2026;0$y\(Self.esc)[?62;c")
            #expect(terminal.read(until: { $0.contains("Balloons") && $0.contains("? help") }))
            terminal.send("q")
            #expect(terminal.waitForExit() == 0)
            let frames = terminal.text.components(separatedBy: Self.closingQuery).last ?? ""
            #expect(!frames.contains("\u{1B}[?2026h"))
        }

        /// `COLORTERM=truecolor` on xterm-256color (whose terminfo has 256 colours): the pictures'
        /// colours go out as 24-bit RGB; without it, as the nearest of 256 and no RGB at all.
        @Test(arguments: [true, false])
        func truecolorFollowsCOLORTERM(truecolor: Bool) throws {
            let terminal = try TerminalSession(environment: ["TERM": "xterm-256color", "COLORTERM": truecolor ? "truecolor" : ""])
            #expect(terminal.read(until: { $0.contains("Balloons") && $0.contains("? help") }))
            // The goal thumbnails are drawn once their pictures arrive.
            #expect(terminal.read(until: { $0.contains("\u{2580}") }))
            terminal.send("q")
            #expect(terminal.waitForExit() == 0)
            let frames = terminal.text.components(separatedBy: Self.closingQuery).last ?? ""
            // One SGR may carry both colours (`ESC [ 38;2;…;48;2;… m`).
            #expect(frames.contains(try Regex("[\\[;]38;2;")) == truecolor)
            #expect(frames.contains(try Regex("[\\[;]48;2;")) == truecolor)
            // The palette's own colours (monograms, the theme) stay indices either way.
            if !truecolor { #expect(frames.contains(try Regex("[\\[;]38;5;"))) }
        }

        /// The replies arrive while the app starts; none of them is taken as a key (`?` would open
        /// the help, `q` would quit), and a key typed with them still counts.
        @Test func noReplyReachesTheKeys() throws {
            let terminal = try TerminalSession(environment: ["TERM": "xterm-256color"])
            #expect(terminal.read(until: { $0.contains(Self.closingQuery) }, timeout: 5))
            terminal.send("\(Self.kittyReplies)2")
            #expect(terminal.read(until: { $0.contains("Yesterday") }))
            #expect(!terminal.text.contains("page down"))
            terminal.send("?")
            #expect(terminal.read(until: { $0.contains("page down") }))
            terminal.send("\u{1B}q")
            #expect(terminal.waitForExit() == 0)
        }

        /// A slow terminal answers after the probe's deadline, while the app runs: the replies
        /// (one cut in two writes) reach the key decoding, which takes them out. `?` in them would
        /// open the help, `k` move, Esc go back; the key after them still counts.
        @Test func repliesThatComeLateAreNoKeys() throws {
            let terminal = try TerminalSession(environment: ["TERM": "xterm-256color"])
            #expect(terminal.read(until: { $0.contains("Balloons") && $0.contains("? help") }))
            terminal.send(Self.kittyReplies + "\(Self.esc)[>1;10;0c\(Self.esc)[4;600;1000t\(Self.esc)]11;rgb:0/0/0\u{07}\(Self.esc)[?6")
            terminal.send("2;4c2")
            #expect(terminal.read(until: { $0.contains("Yesterday") }))
            #expect(!terminal.text.contains("page down"))
            terminal.send("?")
            #expect(terminal.read(until: { $0.contains("page down") }))
            terminal.send("\u{1B}q")
            #expect(terminal.waitForExit() == 0)
        }
    }
}
