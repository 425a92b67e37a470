import Testing
@testable import TermUI

/// Terminal replies that come after the probe's deadline reach the key decoding (`KeyStream`,
/// fed what `get_wch` returns): none of them may become a key, and real keys stay as they were.
/// Raw values as ncurses 6.4 reports them: OK = 0 with a character, KEY_CODE_YES = 0o400 with a
/// key code.
@Suite struct LateReplyTests {
    static let ok: Int32 = 0
    static let keyCode: Int32 = 0o400
    static let keyUp: UInt32 = 0o403
    static let keyResize: UInt32 = 0o632
    static func keyF(_ n: UInt32) -> UInt32 { 0o410 + n }

    static let esc = "\u{1B}"
    static let st = "\u{1B}\\"

    /// What each recorded terminal answers (`TerminalCapabilityTests`), and other replies a
    /// terminal may send late: DA2, an OSC colour answer, kitty's refusal, DECRPM for another
    /// mode, the text area in characters, an empty DCS, a kitty keyboard answer.
    static let recorded: [(name: String, text: String)] = [
        ("kitty", TerminalCapabilityTests.kitty),
        ("xterm-sixel", TerminalCapabilityTests.xtermSixel),
        ("foot", TerminalCapabilityTests.foot),
        ("WezTerm", TerminalCapabilityTests.wezterm),
        ("iTerm2", TerminalCapabilityTests.iterm2),
        ("tmux", TerminalCapabilityTests.tmux),
        ("others", "\(esc)[>1;10;0c\(esc)]11;rgb:0000/0000/0000\u{07}\(esc)]10;rgb:ffff/ffff/ffff\(st)"
            + "\(esc)_Gi=31;ENOTSUPPORTED:no\(st)\(esc)[?1049;1$y\(esc)[8;40;120t\(esc)P\(st)\(esc)[?0u\(esc)[>0;276;0c"),
    ]

    /// What ncurses gives for text no terminfo key matches: one character at a time.
    static func characters(_ text: String) -> [(Int32, UInt32)] {
        text.unicodeScalars.map { (ok, $0.value) }
    }

    static func keys(_ items: [(Int32, UInt32)], stream: inout KeyStream) -> [Key] {
        items.flatMap { stream.feed(status: $0.0, value: $0.1) }
    }

    /// Fed whole, then flushed (the input went quiet).
    static func decode(_ items: [(Int32, UInt32)]) -> (keys: [Key], stream: KeyStream) {
        var stream = KeyStream()
        var keys = keys(items, stream: &stream)
        keys += stream.flush()
        return (keys, stream)
    }

    @Test(arguments: recorded.map(\.name))
    func aLateReplyIsNoKeyWhereverTheReadsCutIt(name: String) throws {
        let text = try #require(Self.recorded.first { $0.name == name }).text
        let items = Self.characters(text)
        let whole = Self.decode(items)
        #expect(whole.keys.isEmpty)
        #expect(whole.stream.dropped == 0)
        #expect(whole.stream.swallowed > 0)
        // What it said is kept, as the probe would have read it.
        var parser = TerminalReplyParser()
        parser.feed(Array(text.utf8))
        parser.finish()
        #expect(whole.stream.lateReplies == parser.replies)
        for cut in 1..<items.count {
            // Two reads: the stream holds the first's unfinished sequence until the second.
            var stream = KeyStream()
            var keys = Self.keys(Array(items[..<cut]), stream: &stream)
            #expect(keys.isEmpty)
            keys += Self.keys(Array(items[cut...]), stream: &stream)
            #expect(!stream.isPending, "cut at \(cut)")
            keys += stream.flush()
            #expect(keys.isEmpty, "\(name) cut at \(cut): \(keys)")
            #expect(stream.lateReplies == parser.replies, "cut at \(cut)")
        }
    }

    @Test func keysAroundLateRepliesStillCount() {
        let text = "j" + TerminalCapabilityTests.kitty + "k" + TerminalCapabilityTests.foot + "?"
        #expect(Self.decode(Self.characters(text)).keys == [.char("j"), .char("k"), .char("?")])
        // An arrow and a function key that ncurses decoded, between replies.
        let items = Self.characters(TerminalCapabilityTests.tmux) + [(Self.keyCode, Self.keyUp)]
            + Self.characters(TerminalCapabilityTests.xtermSixel) + [(Self.keyCode, Self.keyF(5))]
        #expect(Self.decode(items).keys == [.up, .function(5)])
    }

    @Test func ordinaryKeysAreUnchanged() {
        #expect(Self.decode([(Self.keyCode, Self.keyUp)]).keys == [.up])
        #expect(Self.decode([(Self.keyCode, Self.keyF(12))]).keys == [.function(12)])
        #expect(Self.decode(Self.characters("jé\u{06}\r")).keys == [.char("j"), .char("é"), .ctrl("f"), .enter])
        // Alt-x is Esc and x, at once.
        var stream = KeyStream()
        #expect(Self.keys(Self.characters("\(Self.esc)x"), stream: &stream) == [.escape, .char("x")])
        #expect(!stream.isPending)
        // Esc alone: held until the input is quiet (ncurses has waited its Esc delay), then the key.
        #expect(Self.keys(Self.characters(Self.esc), stream: &stream).isEmpty)
        #expect(stream.isPending && !stream.waitsForMore)
        #expect(stream.flush() == [.escape])
        // Esc twice, Esc then an arrow (ncurses decoded the arrow after the first Esc).
        #expect(Self.decode(Self.characters("\(Self.esc)\(Self.esc)")).keys == [.escape, .escape])
        #expect(Self.decode(Self.characters(Self.esc) + [(Self.keyCode, Self.keyUp)]).keys == [.escape, .up])
        // Alt with a sequence's introducer, alone: Esc and that key.
        for introducer in ["[", "P", "_", "]", "^", "X"] {
            #expect(Self.decode(Self.characters(Self.esc + introducer)).keys == [.escape, .char(Character(introducer))])
        }
        // A control sequence ncurses did not know: Esc and its characters, as before.
        #expect(Self.decode(Self.characters("\(Self.esc)[1;5P")).keys
                == [.escape, .char("["), .char("1"), .char(";"), .char("5"), .char("P")])
        // SS3 keys are decoded whatever TERM says (HomeEndKeyTests): ESC O Q is xterm's F2.
        #expect(Self.decode(Self.characters("\(Self.esc)OQ")).keys == [.function(2)])
    }

    @Test func mouseReportsAreTheirKeysWhereverTheReadsCutThem() {
        let text = "\(Self.esc)[<0;12;5M\(Self.esc)[<0;12;5m\(Self.esc)[<64;3;4M\(Self.esc)[<65;3;4M\(Self.esc)[<32;9;9M"
        let expected: [Key] = [.click(x: 11, y: 4), .mouseWheelUp, .mouseWheelDown]
        let items = Self.characters(text)
        #expect(Self.decode(items).keys == expected)
        for cut in 1..<items.count {
            var stream = KeyStream()
            let keys = Self.keys(Array(items[..<cut]), stream: &stream) + Self.keys(Array(items[cut...]), stream: &stream)
            #expect(keys == expected, "cut at \(cut)")
        }
    }

    @Test func aResizeInsideAReplyPassesAndTheReplyStaysWhole() {
        let items = Self.characters("\(Self.esc)[?62;") + [(Self.keyCode, Self.keyResize)] + Self.characters("4c")
        let result = Self.decode(items)
        #expect(result.keys == [.resize])
        #expect(result.stream.lateReplies.sixel)
    }

    @Test func anUnfinishedReplyIsDroppedWhenTheInputGoesQuiet() {
        var stream = KeyStream()
        #expect(Self.keys(Self.characters("\(Self.esc)[?62;4"), stream: &stream).isEmpty)
        #expect(stream.waitsForMore)
        #expect(stream.flush().isEmpty)
        #expect(stream.dropped == 1)
        #expect(!stream.isPending)
        #expect(Self.keys(Self.characters("j"), stream: &stream) == [.char("j")])
        #expect(Self.decode(Self.characters("\(Self.esc)P>|kitty(0.35")).keys.isEmpty)
        // The ESC of a cut ST is the Esc key: what the terminal sends never ends with it.
        #expect(Self.decode(Self.characters("\(Self.esc)_Gi=31;OK\(Self.esc)")).keys == [.escape])
    }

    /// A string that never ends keeps at most `maxStringContent` bytes; an arrow or Esc (an ESC
    /// that is not ST) ends it, CAN cancels it, and so does the input going quiet.
    @Test func aStringThatNeverEndsIsBoundedAndKeysGetOut() {
        var stream = KeyStream()
        #expect(Self.keys(Self.characters("\(Self.esc)P"), stream: &stream).isEmpty)
        let garbage = Self.characters(String(repeating: "garbage0123456789", count: 6_000))
        var most = 0, produced = 0
        for item in garbage {
            produced += stream.feed(status: item.0, value: item.1).count
            most = max(most, stream.bufferedCount)
        }
        #expect(produced == 0)
        #expect(most <= EscapeSequenceScanner.maxStringContent)
        #expect(stream.bufferedCount == 0)
        // The user presses ↑ (ncurses decodes it inside the string): the string is dropped, the key counts.
        #expect(Self.keys([(Self.keyCode, Self.keyUp)], stream: &stream) == [.up])
        #expect(stream.dropped == 1)
        // Esc then j inside a string: the string is dropped, Esc and j are keys.
        #expect(Self.decode(Self.characters("\(Self.esc)_Gabc\(Self.esc)j")).keys == [.escape, .char("j")])
        // CAN cancels; what follows is keys.
        #expect(Self.decode(Self.characters("\(Self.esc)]11;rgb\u{18}q")).keys == [.char("q")])
        // Quiet: dropped, and the next keys are keys.
        var quiet = KeyStream()
        _ = Self.keys(Self.characters("\(Self.esc)Pxyz"), stream: &quiet)
        #expect(quiet.flush().isEmpty)
        #expect(Self.keys(Self.characters("q"), stream: &quiet) == [.char("q")])
    }

    /// A control sequence longer than `maxControlSequence` is skipped to its final byte.
    @Test func anOverlongControlSequenceIsSkipped() {
        let long = "\(Self.esc)[?" + String(repeating: "1;", count: 5_000) + "c" + "j"
        let result = Self.decode(Self.characters(long))
        #expect(result.keys == [.char("j")])
        #expect(result.stream.dropped == 1)
        #expect(result.stream.lateReplies.deviceAttributes == nil)
    }

    /// Random bytes (a fixed seed), in random reads with random quiet spells: no crash, no hang,
    /// the buffer within its bounds, nothing pending after a flush; and each recorded reply
    /// slipped into the noise right after a flush still yields no key.
    @Test func garbageNeitherCrashesNorHangsNorGrows() {
        var generator = SplitMix64(seed: 0x5EED)
        for round in 0..<60 {
            var stream = KeyStream()
            var produced = 0
            let length = Int(generator.next() % 2_000)
            var items: [(Int32, UInt32)] = []
            for _ in 0..<length {
                let roll = generator.next()
                switch roll % 20 {
                case 0: items.append((Self.ok, 0x1B))
                case 1: items.append((Self.ok, UInt32(Array("[P_]^X\\?;$<>t\u{07}\u{18}".unicodeScalars)[Int(roll / 20 % 15)].value)))
                case 2: items.append((Self.keyCode, [Self.keyUp, Self.keyResize, Self.keyF(1)][Int(roll / 20 % 3)]))
                default: items.append((Self.ok, UInt32(roll / 20 % 0x250)))
                }
            }
            var most = 0
            for item in items {
                produced += stream.feed(status: item.0, value: item.1).count
                most = max(most, stream.bufferedCount)
                if generator.next() % 50 == 0 { produced += stream.flush().count }
            }
            #expect(most <= EscapeSequenceScanner.maxStringContent)
            produced += stream.flush().count
            #expect(!stream.isPending)
            #expect(produced <= 2 * items.count + 1, "round \(round)")
            let reply = Self.recorded[round % Self.recorded.count].text
            #expect(Self.keys(Self.characters(reply), stream: &stream).isEmpty, "round \(round)")
            #expect(stream.flush().isEmpty)
        }
    }
}

/// Reply parsing shares the scanner: what changed for the probe.
@Suite struct ReplyParserSharedTests {
    static let esc = "\u{1B}"

    @Test func da2AndOtherPrivateRepliesNeverReachTheKeys() {
        var parser = TerminalReplyParser()
        parser.feed(Array("\(Self.esc)[>1;10;0c\(Self.esc)[?1u\(Self.esc)[?1049;2$y\(Self.esc)[8;40;120t\(Self.esc)[?62;4c".utf8))
        parser.finish()
        #expect(parser.input.isEmpty)
        #expect(parser.isComplete)
    }

    /// A string longer than the scanner keeps is skipped to its end, not turned into keys.
    @Test func anOverlongStringIsSkippedToItsEnd() {
        var parser = TerminalReplyParser()
        let long = "\(Self.esc)P>|" + String(repeating: "x", count: 10_000) + "\(Self.esc)\\"
        parser.feed(Array((long + "j\(Self.esc)[?62;4c").utf8))
        parser.finish()
        #expect(parser.input == Array("j".utf8))
        #expect(parser.replies.version == nil)
        #expect(parser.replies.sixel)
    }

    /// The probe reads on while a sequence is in progress.
    @Test func aSequenceInProgressIsKnown() {
        var parser = TerminalReplyParser()
        parser.feed(Array("\(Self.esc)[?62".utf8))
        #expect(parser.isInsideSequence && parser.isPending)
        parser.feed(Array(";4c\(Self.esc)".utf8))
        #expect(parser.isComplete && !parser.isInsideSequence && parser.isPending)
        parser.finish()
        #expect(parser.input == [0x1B])
    }
}

/// A small deterministic generator for the garbage and model-terminal tests.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
