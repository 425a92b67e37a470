import Testing
@testable import TermUI

/// Capabilities from recorded terminal replies: what each terminal answered to
/// `TerminalProbe.queries`, byte for byte, then what the app decides from it.
@Suite struct TerminalCapabilityTests {
    static let esc = "\u{1B}"
    static let st = "\u{1B}\\"

    /// Replies as real terminals send them (kitty 0.35, xterm 390 with `-ti vt340`, foot 1.16,
    /// WezTerm 20240203, iTerm2 3.5, tmux 3.3a).
    static let kitty = "\(esc)_Gi=31;OK\(st)\(esc)[?2026;2$y\(esc)[6;20;10t\(esc)[4;600;1000t\(esc)P>|kitty(0.35.2)\(st)\(esc)[?62;c"
    static let xtermSixel = "\(esc)[?2026;0$y\(esc)[6;17;9t\(esc)[4;510;720t\(esc)P>|XTerm(390)\(st)\(esc)[?63;1;2;4;6;9;15;22c"
    static let foot = "\(esc)[?2026;2$y\(esc)[6;18;9t\(esc)[4;540;900t\(esc)P>|foot(1.16.2)\(st)\(esc)[?62;4;22;28c"
    static let wezterm = "\(esc)[?2026;2$y\(esc)[6;19;9t\(esc)P>|WezTerm 20240203-110809-5046fc22\(st)\(esc)[?65;4;6;18;22c"
    static let iterm2 = "\(esc)[?2026;2$y\(esc)[6;34;16t\(esc)P>|iTerm2 3.5.0\(st)\(esc)[?62;4c"
    static let tmux = "\(esc)P>|tmux 3.3a\(st)\(esc)[?1;2c"

    static func parse(_ text: String) -> TerminalReplyParser {
        var parser = TerminalReplyParser()
        parser.feed(Array(text.utf8))
        parser.finish()
        return parser
    }

    static func decide(_ text: String, _ environment: [String: String] = ["TERM": "xterm-256color"],
                       overrides: TerminalCapabilities.Overrides = .init()) -> TerminalCapabilities {
        TerminalCapabilities.resolve(replies: parse(text).replies, environment: environment, overrides: overrides)
    }

    @Test func kittyAnswersItsGraphicsQueryAndGetsKittyPictures() {
        let parser = Self.parse(Self.kitty)
        #expect(parser.isComplete)
        #expect(parser.input.isEmpty)
        #expect(parser.replies.kittyGraphics)
        #expect(parser.replies.cellPixels == PixelSize(width: 10, height: 20))
        #expect(parser.replies.windowPixels == PixelSize(width: 1000, height: 600))
        #expect(parser.replies.version == "kitty(0.35.2)")
        let capabilities = Self.decide(Self.kitty, ["TERM": "xterm-kitty"])
        #expect(capabilities.graphics == .kitty)
        #expect(capabilities.synchronizedOutput)
        #expect(capabilities.name == "kitty(0.35.2)")
    }

    @Test func xtermWithSixelGetsSixelAndNoBrackets() {
        let capabilities = Self.decide(Self.xtermSixel)
        #expect(capabilities.replies.deviceAttributes == [63, 1, 2, 4, 6, 9, 15, 22])
        #expect(capabilities.graphics == .sixel)
        #expect(capabilities.replies.synchronizedOutputMode == 0)
        #expect(!capabilities.synchronizedOutput)
        #expect(capabilities.cellPixels == PixelSize(width: 9, height: 17))
    }

    @Test func footGetsSixelAndSynchronizedOutput() {
        let capabilities = Self.decide(Self.foot, ["TERM": "foot"])
        #expect(capabilities.graphics == .sixel)
        #expect(capabilities.synchronizedOutput)
        #expect(capabilities.name == "foot(1.16.2)")
    }

    @Test func weztermAndITerm2() {
        // WezTerm lists sixel; iTerm2 lists it too but draws its own protocol best.
        #expect(Self.decide(Self.wezterm, ["TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"]).graphics == .sixel)
        let iterm = Self.decide(Self.iterm2, ["TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"])
        #expect(iterm.graphics == .iterm2)
        #expect(iterm.synchronizedOutput)
        #expect(iterm.cellPixels == PixelSize(width: 16, height: 34))
    }

    @Test func insideTmuxItIsHalfBlocksUnlessTmuxSaysSixel() {
        let environment = ["TERM": "tmux-256color", "TMUX": "/tmp/tmux-1000/default,123,0", "TERM_PROGRAM": "tmux"]
        let capabilities = Self.decide(Self.tmux, environment)
        #expect(capabilities.multiplexer == "tmux")
        #expect(capabilities.graphics == .halfBlocks)
        #expect(!capabilities.synchronizedOutput)
        // kitty's answer does not count inside tmux (it would not pass the pictures through).
        #expect(Self.decide(Self.kitty, environment).graphics == .halfBlocks)
        // tmux 3.4 built with sixel says so itself, and draws it.
        #expect(Self.decide("\(Self.esc)[?1;2;4c", environment).graphics == .sixel)
        #expect(Self.decide(Self.foot, ["TERM": "screen-256color", "STY": "1.pts-0"]).graphics == .halfBlocks)
    }

    @Test func aTerminalThatAnswersNothing() {
        let parser = Self.parse("")
        #expect(!parser.isComplete)
        #expect(!parser.replies.answered)
        let capabilities = Self.decide("")
        #expect(capabilities.graphics == .halfBlocks)
        #expect(!capabilities.synchronizedOutput)
        #expect(capabilities.cellPixels == nil)
        #expect(capabilities.pictureCellPixels == TerminalCapabilities.assumedCellPixels)
        // Its environment still says kitty: pictures by TERM.
        #expect(Self.decide("", ["TERM": "xterm-kitty"]).graphics == .kitty)
    }

    @Test func aReplySplitAcrossReadsIsTheSameAsOneRead() {
        for split in [1, 2, 3, 7, 13] {
            var parser = TerminalReplyParser()
            let bytes = Array(Self.kitty.utf8)
            var index = 0
            while index < bytes.count {
                let end = min(bytes.count, index + split)
                #expect(!parser.isComplete || end > bytes.count - 5)
                parser.feed(bytes[index..<end])
                index = end
            }
            #expect(parser.isComplete)
            #expect(parser.replies == Self.parse(Self.kitty).replies, "split every \(split) bytes")
            #expect(parser.input.isEmpty)
        }
    }

    @Test func keysTypedMeanwhileAreKeptAndNoReplyReachesThem() {
        let text = "j\(Self.esc)[A" + Self.foot.prefix(20) + Self.foot.dropFirst(20) + "k\(Self.esc)"
        let parser = Self.parse(String(text))
        #expect(parser.input == Array("j\u{1B}[Ak\u{1B}".utf8))
        #expect(parser.replies.sixel)
        // A mouse report and Alt-x are keys too.
        #expect(Self.parse("\(Self.esc)[<0;3;4M\(Self.esc)x").input == Array("\u{1B}[<0;3;4M\u{1B}x".utf8))
    }

    @Test func garbageIsDroppedAndTheAnswerStillCounts() {
        let long = "\(Self.esc)[" + String(repeating: "9", count: 100) + "t"
        let unterminated = "\(Self.esc)P>|never ends"
        let badSizes = "\(Self.esc)[6;0;99999t\(Self.esc)[6;;t"
        let otherKitty = "\(Self.esc)_Gi=7;OK\(Self.st)"
        let hostileName = "\(Self.esc)P>|evil\u{07}\u{9B}31m\(Self.st)"
        let text = long + badSizes + otherKitty + hostileName + unterminated + "\(Self.esc)[?62;4c" + "\(Self.esc)]11;rgb:0/0/0\u{07}"
        let parser = Self.parse(text)
        #expect(parser.isComplete)
        #expect(parser.replies.sixel)
        #expect(parser.replies.cellPixels == nil)
        #expect(!parser.replies.kittyGraphics)
        #expect(parser.replies.version == "evil31m")
        #expect(parser.dropped >= 3)
        // Nothing of it reaches the keys.
        #expect(parser.input.isEmpty)
        // A kitty error answer is a refusal.
        #expect(Self.parse("\(Self.esc)_Gi=31;ENOTSUPPORTED:no\(Self.st)").replies.kittyGraphicsRefused)
    }

    @Test func theConfigForcesOrForbidsEach() {
        let forced = Self.decide("", overrides: .init(graphics: .sixel, synchronizedOutput: true, truecolor: true))
        #expect(forced.graphics == .sixel)
        #expect(forced.synchronizedOutput)
        #expect(forced.truecolor)
        let forbidden = Self.decide(Self.kitty, ["TERM": "xterm-kitty", "COLORTERM": "truecolor"],
                                    overrides: .init(graphics: .halfBlocks, synchronizedOutput: false, truecolor: false))
        #expect(forbidden.graphics == .halfBlocks)
        #expect(!forbidden.synchronizedOutput)
        #expect(!forbidden.truecolor)
        #expect(forbidden.reasons["graphics"] == "set in the config file")
    }

    @Test func truecolorFollowsCOLORTERM() {
        #expect(Self.decide("", ["TERM": "xterm-256color", "COLORTERM": "truecolor"]).truecolor)
        #expect(Self.decide("", ["TERM": "xterm-256color", "COLORTERM": "24bit"]).truecolor)
        #expect(!Self.decide("", ["TERM": "xterm-256color", "COLORTERM": "yes"]).truecolor)
        #expect(!Self.decide("", ["TERM": "xterm-256color"]).truecolor)
    }

    @Test func theCellSizeComesFromTheTextAreaWhenNotAnswered() {
        let replies = Self.parse("\(Self.esc)[4;600;1000t\(Self.esc)[?62c").replies
        let capabilities = TerminalCapabilities.resolve(replies: replies, environment: [:], size: TerminalSize(width: 100, height: 30))
        #expect(capabilities.cellPixels == PixelSize(width: 10, height: 20))
    }

    @Test func overSSHTheProbeWaitsLonger() {
        #expect(TerminalProbe.deadline(environment: ["TERM": "xterm"]) == .milliseconds(150))
        #expect(TerminalProbe.deadline(environment: ["SSH_TTY": "/dev/pts/3"]) == .milliseconds(600))
        #expect(TerminalProbe.deadline(environment: ["SSH_CONNECTION": "10.0.0.1 5000 10.0.0.2 22"]) == .milliseconds(600))
    }

    @Test func theDoctorReportSaysWhatAndWhy() {
        let lines = Self.decide(Self.kitty, ["TERM": "xterm-kitty", "COLORTERM": "truecolor"]).report(term: "xterm-kitty", elapsedMilliseconds: 3)
        #expect(lines[0] == "terminal: xterm-kitty, kitty(0.35.2) (answered in 3 ms)")
        #expect(lines.contains("pictures: kitty graphics (the terminal answered the kitty graphics query)"))
        #expect(lines.contains("synchronized output: yes (DECRQM 2026 answered 2)"))
        #expect(lines.contains("truecolor: yes (COLORTERM=truecolor)"))
        #expect(lines.contains("cell: 10 × 20 pixels"))
        #expect(!lines.contains { $0.hasPrefix("note: TERM") }, "TERM matches kitty")
    }

    /// Issue 50.1: `doctor` notes a TERM that names another terminal than the one that answered.
    @Test func theDoctorNotesATermThatDoesNotMatch() {
        let inTmux = Self.decide(Self.tmux, ["TERM": "xterm", "TMUX": "/tmp/tmux-0/default,1,0"]).report(term: "xterm", elapsedMilliseconds: 2)
        #expect(inTmux.contains("note: TERM is xterm but the terminal is tmux: keys it sends may be missing from xterm's terminfo "
                                + "(the app reads Home, End and the others anyway); TERM=tmux-256color (tmux: set -g default-terminal tmux-256color) matches it"),
                "\(inTmux)")
        let kittyAsXterm = Self.decide(Self.kitty, ["TERM": "xterm-256color"]).report(term: "xterm-256color", elapsedMilliseconds: 2)
        #expect(kittyAsXterm.contains { $0.hasPrefix("note: TERM is xterm-256color but the terminal is kitty") }, "\(kittyAsXterm)")
        let tmuxAsScreen = Self.decide(Self.tmux, ["TERM": "screen-256color", "TMUX": "x"]).report(term: "screen-256color", elapsedMilliseconds: 2)
        #expect(!tmuxAsScreen.contains { $0.hasPrefix("note: TERM") })
    }
}


extension TerminalCapabilityTests {
    @Test func kittyFrom028AndGhosttyDrawByPlaceholdersOlderKittyByPlacements() {
        #expect(Self.decide(Self.kitty, ["TERM": "xterm-kitty"]).kittyPlaceholders)
        let old = "\(Self.esc)_Gi=31;OK\(Self.st)\(Self.esc)P>|kitty(0.26.5)\(Self.st)\(Self.esc)[?62;c"
        let oldKitty = Self.decide(old, ["TERM": "xterm-kitty"])
        #expect(oldKitty.graphics == .kitty && !oldKitty.kittyPlaceholders)
        #expect(oldKitty.report(term: "xterm-kitty", elapsedMilliseconds: 2).contains("kitty placeholders: no (kitty 0.26.5 is older than 0.28)"))
        let ghostty = "\(Self.esc)_Gi=31;OK\(Self.st)\(Self.esc)P>|ghostty 1.1.3\(Self.st)\(Self.esc)[?62;22c"
        #expect(Self.decide(ghostty, ["TERM": "xterm-ghostty"]).kittyPlaceholders)
        // kitty graphics forced inside tmux: placeholders through its passthrough.
        let tmux = Self.decide(Self.tmux, ["TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0"],
                               overrides: .init(graphics: .kitty))
        #expect(tmux.graphics == .kitty && tmux.kittyPlaceholders)
        // Forced either way; never for another protocol.
        #expect(!Self.decide(Self.kitty, ["TERM": "xterm-kitty"], overrides: .init(kittyPlaceholders: false)).kittyPlaceholders)
        #expect(Self.decide(old, ["TERM": "xterm-kitty"], overrides: .init(kittyPlaceholders: true)).kittyPlaceholders)
        #expect(!Self.decide(Self.xtermSixel, overrides: .init(kittyPlaceholders: true)).kittyPlaceholders)
    }
}

extension TerminalCapabilityTests {
    @Test func xtermScrollsItsSixelsOthersAreNotKnownTo() {
        let xterm = Self.decide(Self.xtermSixel)
        #expect(xterm.graphics == .sixel && xterm.sixelScrolls)
        #expect(xterm.report(term: "xterm", elapsedMilliseconds: 3).contains("sixel scrolls with the text: yes (xterm moves sixel pixels with the text)"))
        let foot = Self.decide(Self.foot, ["TERM": "foot"])
        #expect(foot.graphics == .sixel && !foot.sixelScrolls)
        #expect(Self.decide(Self.foot, ["TERM": "foot"], overrides: .init(sixelScrolls: true)).sixelScrolls)
        #expect(!Self.decide(Self.xtermSixel, overrides: .init(sixelScrolls: false)).sixelScrolls)
        #expect(!Self.decide(Self.kitty, ["TERM": "xterm-kitty"], overrides: .init(sixelScrolls: true)).sixelScrolls)
    }
}
