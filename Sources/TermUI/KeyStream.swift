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
/// - the keys terminals send whatever `TERM` says (`CSI 1~`/`7~`/`H` and SS3 `O H` for Home,
///   `4~`/`8~`/`F`/`O F` for End, arrows, pages, Delete, F1–F12, with or without modifiers)
///   are those keys (`KeyStream.key(controlSequence:)`): tmux and PuTTY send `CSI 1~` and
///   `CSI 4~`, which ncurses with `TERM=xterm` does not know, and an Esc there would close a form;
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
            case .singleShift(let value):
                if let key = Self.key(singleShift: value) {
                    keys.append(key)
                } else {
                    keys.append(.escape)
                    keys.append(.char("O"))
                    keys.append(KeyDecoder.decodeCharacter(value))
                }
            case .controlSequence(let sequence):
                if let key = Self.key(controlSequence: sequence) {
                    keys.append(key)
                    continue
                }
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

    /// The key of a control sequence after `ESC [` that terminals send for a key: `1~` … `24~`
    /// (VT220 and xterm), `H F A B C D Z` (xterm's normal mode), each with a modifier parameter or
    /// not (`1;5H` is Ctrl-Home: Home here). Nil for anything else (a reply, a mouse report…).
    static func key(controlSequence sequence: [UInt8]) -> Key? {
        guard let final = sequence.last else { return nil }
        let parameters = sequence.dropLast()
        // Only digits and `;`: a private marker (`?`, `<`, `>`) or an intermediate is no key.
        guard parameters.allSatisfy({ (0x30...0x39).contains($0) || $0 == 0x3B }) else { return nil }
        let numbers = String(decoding: parameters, as: UTF8.self).split(separator: ";", omittingEmptySubsequences: false)
        guard numbers.count <= 2, numbers.allSatisfy({ $0.count <= 3 }) else { return nil }
        let first = numbers.first.flatMap { Int($0) }
        switch final {
        case UInt8(ascii: "~"):
            switch first {
            case 1, 7: return .home
            case 4, 8: return .end
            case 3: return .delete
            case 5: return .pageUp
            case 6: return .pageDown
            case let code?:
                // F1–F12 as xterm numbers them (11–15, 17–21, 23, 24).
                let functions = [11: 1, 12: 2, 13: 3, 14: 4, 15: 5, 17: 6, 18: 7, 19: 8, 20: 9, 21: 10, 23: 11, 24: 12]
                return functions[code].map(Key.function)
            case nil: return nil
            }
        case UInt8(ascii: "Z") where numbers.count <= 1 && (first ?? 1) == 1: return .backTab
        default:
            // Letters take no first parameter but 1 (`CSI H`, `CSI 1;5H`).
            guard first == nil || first == 1 else { return nil }
            return key(letter: final)
        }
    }

    /// SS3 and a character: keys in the terminal's application mode (`ESC O H` Home, `ESC O P` F1).
    static func key(singleShift value: UInt32) -> Key? {
        guard let byte = UInt8(exactly: value) else { return nil }
        switch byte {
        case UInt8(ascii: "P"): return .function(1)
        case UInt8(ascii: "Q"): return .function(2)
        case UInt8(ascii: "R"): return .function(3)
        case UInt8(ascii: "S"): return .function(4)
        case UInt8(ascii: "M"): return .enter
        default: return key(letter: byte)
        }
    }

    private static func key(letter: UInt8) -> Key? {
        switch letter {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        default: nil
        }
    }
}
