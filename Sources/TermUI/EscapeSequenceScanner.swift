/// Splits what arrives on a terminal's input into characters and escape sequences, one
/// character at a time (a byte, or a character ncurses decoded), keeping its place between
/// calls, so a sequence cut across reads comes out whole. Shared by the start-up probe
/// (`TerminalReplyParser`, on bytes) and the key decoding (`KeyStream`, on what `get_wch`
/// returns): both see the same sequences the same way, and the `replies` fuzz harness runs both.
///
/// Bounded: a control sequence is at most `maxControlSequence` bytes (a longer one is skipped to
/// its final byte and dropped); a string (DCS, APC, OSC, PM, SOS) keeps its first
/// `maxStringContent` bytes and is skipped, unbuffered, up to its end (ST, BEL after OSC, or
/// CAN/SUB, which cancel it), then dropped. An ESC inside a string that is not ST ends the
/// string (dropped) and starts what follows, so an arrow key or Esc breaks out of a string that
/// never ends; and whoever feeds the scanner calls `finish` when the input goes quiet.
struct EscapeSequenceScanner: Sendable {
    /// A control sequence longer than this (parameters, intermediates, final byte) is garbage.
    static let maxControlSequence = 64
    /// A string's content kept for reading; the rest of a longer one is skipped.
    static let maxStringContent = 1024

    static let escape: UInt32 = 0x1B

    enum Event: Equatable, Sendable {
        /// A character outside any sequence.
        case character(UInt32)
        /// An ESC that starts nothing: the Esc key.
        case escape
        /// ESC and a character that starts no sequence (Alt+key, or SS3's `O`); also ESC and an
        /// introducer (`[`, `P`, `_`, `]`, `^`, `X`) with nothing after it (Alt+`[` …).
        case escaped(UInt32)
        /// A whole control sequence after `ESC [`: parameters, intermediates and the final byte.
        case controlSequence([UInt8])
        /// SS3 (`ESC O`) and the one character after it: keys in application mode (`ESC O H` Home).
        case singleShift(UInt32)
        /// A whole string: its introducer (`P` DCS, `_` APC, `]` OSC, `^` PM, `X` SOS) and content.
        case string(introducer: UInt8, content: [UInt8])
        /// A malformed, overlong or unfinished sequence, swallowed.
        case dropped
    }

    private enum State: Sendable {
        case ground
        case escape
        case controlSequence
        /// After `ESC O`: one character ends it (`ESC O` alone is Alt-O).
        case singleShift
        /// A control sequence too long to be anything: skipped up to its final byte.
        case skippingControlSequence
        case string
        /// An ESC inside a string: ST if `\` follows.
        case stringEscape
    }

    private var state = State.ground
    /// The control sequence or the string content so far.
    private var buffer: [UInt8] = []
    private var introducer: UInt8 = 0
    /// The string is longer than `maxStringContent`: skipped to its end, then dropped.
    private var overflowed = false

    /// Whether the characters are Unicode scalars (ncurses' wide characters) rather than bytes:
    /// a string's content is kept as UTF-8 either way.
    private let unicode: Bool

    init(unicode: Bool = false) {
        self.unicode = unicode
    }

    /// Inside a sequence (or after an ESC): more characters are wanted to finish it.
    var isPending: Bool {
        if case .ground = state { return false }
        return true
    }

    /// Only an ESC is pending (no introducer after it yet).
    var isLoneEscape: Bool {
        if case .escape = state { return true }
        return false
    }

    /// What is held for the sequence in progress; never more than the limits above.
    var bufferedCount: Int { buffer.count }

    static func isIntroducer(_ value: UInt32) -> Bool {
        switch value {
        case 0x50, 0x5F, 0x5D, 0x5E, 0x58: return true  // P _ ] ^ X
        default: return false
        }
    }

    /// Takes one character (a byte, or a Unicode scalar value from ncurses).
    mutating func scan(_ value: UInt32, into events: inout [Event]) {
        switch state {
        case .ground:
            if value == Self.escape {
                state = .escape
            } else {
                events.append(.character(value))
            }
        case .escape:
            if value == 0x5B {  // [
                state = .controlSequence
                buffer.removeAll(keepingCapacity: true)
            } else if Self.isIntroducer(value) {
                state = .string
                introducer = UInt8(value)
                buffer.removeAll(keepingCapacity: true)
                overflowed = false
            } else if value == Self.escape {
                // Esc twice: the first is the key; the second may start something.
                events.append(.escape)
            } else if value == 0x4F {  // O: SS3
                state = .singleShift
            } else {
                events.append(.escaped(value))
                state = .ground
            }
        case .singleShift:
            if (0x20...0x7E).contains(value) {
                events.append(.singleShift(value))
                state = .ground
            } else {
                // Not SS3 after all: Alt-O, then this character as it comes.
                events.append(.escaped(0x4F))
                state = .ground
                scan(value, into: &events)
            }
        case .controlSequence:
            if (0x20...0x3F).contains(value) {
                buffer.append(UInt8(value))
                if buffer.count >= Self.maxControlSequence {
                    events.append(.dropped)
                    buffer.removeAll(keepingCapacity: true)
                    state = .skippingControlSequence
                }
            } else if (0x40...0x7E).contains(value) {
                buffer.append(UInt8(value))
                events.append(.controlSequence(buffer))
                buffer.removeAll(keepingCapacity: true)
                state = .ground
            } else {
                // Not a control sequence after all: what came is dropped, this character counts.
                abandon(into: &events)
                scan(value, into: &events)
            }
        case .skippingControlSequence:
            if (0x40...0x7E).contains(value) {
                state = .ground
            } else if !(0x20...0x3F).contains(value) {
                state = .ground
                scan(value, into: &events)
            }
        case .string:
            if value == Self.escape {
                state = .stringEscape
            } else if value == 0x07 && introducer == 0x5D {
                // OSC may end with BEL.
                endString(into: &events)
            } else if value == 0x18 || value == 0x1A {
                // CAN and SUB cancel a sequence (ECMA-48): swallowed with it.
                events.append(.dropped)
                reset()
            } else if !overflowed {
                append(value)
            }
        case .stringEscape:
            if value == 0x5C {  // \: ST
                endString(into: &events)
            } else {
                // An ESC that is not ST ends the string badly; the ESC starts what follows.
                if buffer.isEmpty && !overflowed {
                    events.append(.escaped(UInt32(introducer)))
                } else {
                    events.append(.dropped)
                }
                reset()
                state = .escape
                scan(value, into: &events)
            }
        }
    }

    /// The input went quiet, or something that is not a character (a key ncurses decoded)
    /// arrived: the sequence in progress ends here. A lone ESC is the Esc key; ESC and an
    /// introducer with nothing after it is that Alt key; anything longer is dropped (and an ESC
    /// that ended a string's content is the Esc key).
    mutating func finish(into events: inout [Event]) {
        switch state {
        case .ground:
            return
        case .escape:
            events.append(.escape)
        case .singleShift:
            events.append(.escaped(0x4F))
        case .stringEscape:
            if buffer.isEmpty && !overflowed {
                events.append(.escaped(UInt32(introducer)))
            } else {
                events.append(.dropped)
            }
            events.append(.escape)
        case .controlSequence, .skippingControlSequence, .string:
            abandon(into: &events)
        }
        reset()
    }

    /// Ends the control sequence or string in progress as unfinished.
    private mutating func abandon(into events: inout [Event]) {
        switch state {
        case .controlSequence where buffer.isEmpty:
            events.append(.escaped(0x5B))
        case .string where buffer.isEmpty && !overflowed:
            events.append(.escaped(UInt32(introducer)))
        case .skippingControlSequence:
            // Counted as dropped when the skipping began.
            break
        default:
            events.append(.dropped)
        }
        reset()
    }

    private mutating func endString(into events: inout [Event]) {
        events.append(overflowed ? .dropped : .string(introducer: introducer, content: buffer))
        reset()
    }

    private mutating func reset() {
        state = .ground
        buffer.removeAll(keepingCapacity: true)
        overflowed = false
    }

    /// Appends `value` as UTF-8 (the probe feeds bytes, ncurses gives scalars: the same text).
    private mutating func append(_ value: UInt32) {
        if unicode, value >= 0x80, let scalar = Unicode.Scalar(value) {
            let bytes = String(Character(scalar)).utf8
            guard buffer.count + bytes.count <= Self.maxStringContent else { return overflow() }
            buffer.append(contentsOf: bytes)
        } else {
            guard buffer.count < Self.maxStringContent else { return overflow() }
            buffer.append(UInt8(truncatingIfNeeded: value))
        }
    }

    private mutating func overflow() {
        overflowed = true
        buffer = []
    }
}
