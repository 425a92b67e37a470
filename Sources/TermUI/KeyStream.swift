import CNcurses

/// Turns what `get_wch` returns, one result after another, into keys, and keeps the terminal's
/// own answers out of them. ncurses decodes the keys its terminfo knows (arrows, function keys);
/// what it does not know comes as an Esc and the characters after it, and this finds the
/// sequences in them (`EscapeSequenceScanner`, the one the start-up probe uses):
///
/// - a terminal's reply that arrives after the probe's deadline (DA1/DA2 `CSI ? … c`,
///   `CSI > … c`, window reports `CSI 4;h;w t`, DECRPM `CSI ? n ; m $ y`, any other
///   `TerminalReplies.isReply`) and every string (XTVERSION `DCS > | … ST`, kitty's
///   `APC G … ST`, OSC, PM, SOS) is swallowed, never a key; what it says is kept in
///   `lateReplies` (nothing shows them yet);
/// - an SGR mouse report (`CSI < b ; x ; y M`) is its key (`MouseReports.parse`);
/// - any other control sequence is Esc and its characters, as ncurses gave them;
/// - Esc followed by a character that starts no sequence is Esc and that key (Alt-x).
///
/// A sequence cut across reads is held (`isPending`) until its rest comes. When the input goes
/// quiet the caller says so with `flush`: a lone Esc is then the Esc key, ESC and an introducer
/// alone (`ESC [`, `ESC P`, …) Esc and that key, anything longer unfinished is dropped.
/// `NcursesTerminal` flushes a lone Esc at once (ncurses has waited its Esc delay for more) and
/// anything longer after `quietFlushMilliseconds` without input. Memory is bounded by the scanner's limits.
public struct KeyStream: Sendable {
    /// How long (ms) an unfinished sequence waits for its rest before it is given up.
    public static let quietFlushMilliseconds = 100

    /// What the replies that came late said.
    public private(set) var lateReplies = TerminalReplies()
    /// Replies and strings swallowed.
    public private(set) var swallowed = 0
    /// Sequences dropped (malformed, overlong, unfinished when the input went quiet).
    public private(set) var dropped = 0

    private var scanner = EscapeSequenceScanner(unicode: true)
    private var events: [EscapeSequenceScanner.Event] = []

    public init() {}

    /// A sequence (or an Esc) waits for more characters.
    public var isPending: Bool { scanner.isPending }
    /// More than a lone Esc is pending: worth waiting `quietFlush` for.
    public var waitsForMore: Bool { scanner.isPending && !scanner.isLoneEscape }
    /// What the scanner holds (bounded; for the fuzz harness and tests).
    var bufferedCount: Int { scanner.bufferedCount }

    /// `status` and `value` as `get_wch` returned them (`OK` and a character, or `KEY_CODE_YES`
    /// and a key code). Returns the keys they complete, in order.
    public mutating func feed(status: Int32, value: UInt32) -> [Key] {
        if status == OK {
            scanner.scan(value, into: &events)
            return events.isEmpty ? [] : take()
        }
        let key = KeyDecoder.decode(status: status, value: value)
        // A resize is not typed: whatever sequence is in progress goes on.
        if key == .resize { return [.resize] }
        // A key ncurses decoded ends the sequence in progress.
        scanner.finish(into: &events)
        var keys = take()
        keys.append(key)
        return keys
    }

    /// The input went quiet: what is pending ends here.
    public mutating func flush() -> [Key] {
        scanner.finish(into: &events)
        return take()
    }

    private mutating func take() -> [Key] {
        var keys: [Key] = []
        for index in events.indices {
            switch events[index] {
            case .character(let value):
                keys.append(KeyDecoder.decodeCharacter(value))
            case .escape:
                keys.append(.escape)
            case .escaped(let value):
                keys.append(.escape)
                keys.append(KeyDecoder.decodeCharacter(value))
            case .controlSequence(let sequence):
                if sequence.first == UInt8(ascii: "<") {
                    let text = "[" + String(decoding: sequence, as: UTF8.self)
                    if case .report(let key) = MouseReports.parse(text[...]) {
                        if let key { keys.append(key) }
                        continue
                    }
                }
                if TerminalReplies.isReply(controlSequence: sequence) {
                    lateReplies.record(controlSequence: sequence)
                    swallowed += 1
                    continue
                }
                keys.append(.escape)
                keys.append(.char("["))
                keys.append(contentsOf: sequence.map { KeyDecoder.decodeCharacter(UInt32($0)) })
            case .string(let introducer, let content):
                lateReplies.record(string: content, introducer: introducer)
                swallowed += 1
            case .dropped:
                dropped += 1
            }
        }
        events.removeAll(keepingCapacity: true)
        return keys
    }
}
