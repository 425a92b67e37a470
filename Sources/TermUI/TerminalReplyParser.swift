/// Takes the terminal's answers to the start-up queries out of what arrives on the input, in
/// pieces as they are read. Replies (device attributes, kitty graphics, pixel sizes, XTVERSION,
/// DECRPM; `TerminalReplies.isReply`) are consumed and never reach the keys; any other string
/// sequence (DCS, APC, OSC, PM, SOS) is consumed as noise; everything else (keys typed meanwhile,
/// arrow keys, mouse reports) is kept in `input`, in order, for the key decoder. `isComplete`
/// once the device attributes, the query every terminal answers and which is asked last, have
/// come. The sequences are found by `EscapeSequenceScanner`, as `KeyStream` finds them later.
public struct TerminalReplyParser: Sendable {
    public private(set) var replies = TerminalReplies()
    /// Bytes that were not replies: keys typed while the terminal was asked.
    public private(set) var input: [UInt8] = []
    public private(set) var isComplete = false
    /// Sequences dropped as garbage (too long, malformed, unfinished at the deadline, a reply
    /// that said nothing usable).
    public private(set) var dropped = 0

    /// The kitty graphics query's image id; an answer for another id is not ours.
    public static let kittyQueryID = TerminalReplies.kittyQueryID

    private var scanner = EscapeSequenceScanner()
    private var events: [EscapeSequenceScanner.Event] = []

    public init() {}

    /// A sequence has begun (ESC and its introducer) and not ended: the probe reads on for it.
    public var isInsideSequence: Bool { scanner.isPending && !scanner.isLoneEscape }
    /// A sequence, or an ESC that may begin one, waits for more: at the deadline, the probe
    /// reads a little longer (`TerminalProbe.sequenceGrace`).
    public var isPending: Bool { scanner.isPending }

    public mutating func feed<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        for byte in bytes {
            scanner.scan(UInt32(byte), into: &events)
            if !events.isEmpty { take() }
        }
    }

    /// The deadline passed (or the terminal answered): an unfinished sequence is dropped, except
    /// a lone Esc, which is the key (and ESC with an introducer alone, its Alt key).
    public mutating func finish() {
        scanner.finish(into: &events)
        take()
    }

    private mutating func take() {
        for index in events.indices {
            switch events[index] {
            case .character(let value):
                input.append(UInt8(truncatingIfNeeded: value))
            case .escape:
                input.append(0x1B)
            case .escaped(let value):
                input.append(0x1B)
                input.append(UInt8(truncatingIfNeeded: value))
            case .singleShift(let value):
                input.append(contentsOf: [0x1B, 0x4F, UInt8(truncatingIfNeeded: value)])
            case .controlSequence(let sequence):
                if TerminalReplies.isReply(controlSequence: sequence) {
                    if !replies.record(controlSequence: sequence) { dropped += 1 }
                    isComplete = isComplete || replies.answered
                } else {
                    // A key (arrows, function keys, a mouse report): the key decoder's.
                    input.append(0x1B)
                    input.append(UInt8(ascii: "["))
                    input.append(contentsOf: sequence)
                }
            case .string(let introducer, let content):
                replies.record(string: content, introducer: introducer)
            case .dropped:
                dropped += 1
            }
        }
        events.removeAll(keepingCapacity: true)
    }
}
