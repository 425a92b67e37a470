/// Takes the terminal's answers to the start-up queries out of what arrives on the input, in
/// pieces as they are read. Replies (device attributes, kitty graphics, pixel sizes, XTVERSION,
/// DECRPM) are consumed and never reach the keys; any other string sequence (DCS, APC, OSC, PM,
/// SOS) is consumed as noise; everything else (keys typed meanwhile, arrow keys, mouse reports)
/// is kept in `input`, in order, for the key decoder. `isComplete` once the device attributes,
/// the query every terminal answers and which is asked last, have come.
public struct TerminalReplyParser: Sendable {
    public private(set) var replies = TerminalReplies()
    /// Bytes that were not replies: keys typed while the terminal was asked.
    public private(set) var input: [UInt8] = []
    public private(set) var isComplete = false
    /// Sequences dropped as garbage (too long, malformed, unfinished at the deadline).
    public private(set) var dropped = 0

    /// The kitty graphics query's image id; an answer for another id is not ours.
    public static let kittyQueryID = 31
    /// A control sequence longer than this is garbage; a string (DCS, APC, OSC) longer than
    /// `maxStringLength` too.
    static let maxSequenceLength = 64
    static let maxStringLength = 4096

    private enum State: Sendable {
        case ground
        case escape
        case csi
        /// A control sequence too long to be a reply: skipped up to its final byte.
        case skippingControlSequence
        /// DCS, APC, OSC, PM or SOS: up to ST (`ESC \`) or, for OSC, BEL.
        case string(introducer: UInt8)
        case stringEscape(introducer: UInt8)
    }

    private var state = State.ground
    private var sequence: [UInt8] = []

    public init() {}

    public mutating func feed<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        for byte in bytes { step(byte) }
    }

    /// The deadline passed (or the terminal answered): an unfinished sequence is dropped, except
    /// a lone Esc, which is the key.
    public mutating func finish() {
        switch state {
        case .ground: break
        case .escape: input.append(0x1B)
        default: dropped += 1
        }
        state = .ground
        sequence = []
    }

    private mutating func step(_ byte: UInt8) {
        switch state {
        case .ground:
            if byte == 0x1B {
                state = .escape
            } else {
                input.append(byte)
            }
        case .escape:
            switch byte {
            case UInt8(ascii: "["):
                state = .csi
                sequence = []
            case UInt8(ascii: "P"), UInt8(ascii: "_"), UInt8(ascii: "]"), UInt8(ascii: "^"), UInt8(ascii: "X"):
                state = .string(introducer: byte)
                sequence = []
            case 0x1B:
                // Esc pressed twice: the first is a key.
                input.append(0x1B)
            default:
                // Alt+key or SS3 (ESC O A): a key, for the key decoder.
                input.append(0x1B)
                input.append(byte)
                state = .ground
            }
        case .csi:
            sequence.append(byte)
            if (0x40...0x7E).contains(byte) {
                endControlSequence()
            } else if byte == 0x1B || byte < 0x20 {
                // Not a control sequence after all: dropped, and an Esc starts again.
                dropped += 1
                sequence = []
                state = byte == 0x1B ? .escape : .ground
            } else if sequence.count > Self.maxSequenceLength {
                dropped += 1
                sequence = []
                state = .skippingControlSequence
            }
        case .skippingControlSequence:
            if (0x40...0x7E).contains(byte) {
                state = .ground
            } else if byte == 0x1B || byte < 0x20 {
                state = byte == 0x1B ? .escape : .ground
            }
        case .string(let introducer):
            if byte == 0x1B {
                state = .stringEscape(introducer: introducer)
            } else if byte == 0x07 && introducer == UInt8(ascii: "]") {
                endString(introducer)
            } else if sequence.count >= Self.maxStringLength {
                dropped += 1
                sequence = []
                state = .ground
            } else {
                sequence.append(byte)
            }
        case .stringEscape(let introducer):
            if byte == UInt8(ascii: "\\") {
                endString(introducer)
            } else {
                // ESC inside a string ends it badly: drop it, and the ESC begins something new.
                dropped += 1
                sequence = []
                state = .escape
                step(byte)
            }
        }
    }

    /// `CSI` `sequence` (parameters, intermediates, final byte) is complete.
    private mutating func endControlSequence() {
        defer {
            sequence = []
            state = .ground
        }
        guard let final = sequence.last else { return }
        let body = Array(sequence.dropLast())
        let text = String(decoding: body, as: UTF8.self)
        switch final {
        case UInt8(ascii: "c") where text.hasPrefix("?"):
            replies.deviceAttributes = Self.numbers(text.dropFirst())
            isComplete = true
        case UInt8(ascii: "t"):
            let values = Self.numbers(Substring(text))
            if values.count == 3, (1...4096).contains(values[1]), (1...4096).contains(values[2]) {
                if values[0] == 6 { replies.cellPixels = PixelSize(width: values[2], height: values[1]) }
                if values[0] == 4 { replies.windowPixels = PixelSize(width: values[2], height: values[1]) }
            } else {
                dropped += 1
            }
        case UInt8(ascii: "y") where text.hasPrefix("?") && text.hasSuffix("$"):
            let values = Self.numbers(text.dropFirst().dropLast())
            if values.count == 2, values[0] == 2026 { replies.synchronizedOutputMode = values[1] }
        default:
            // A key (arrows, function keys, a mouse report): the key decoder's.
            input.append(0x1B)
            input.append(UInt8(ascii: "["))
            input.append(contentsOf: sequence)
        }
    }

    private mutating func endString(_ introducer: UInt8) {
        defer {
            sequence = []
            state = .ground
        }
        let text = String(decoding: sequence, as: UTF8.self)
        switch introducer {
        case UInt8(ascii: "P") where text.hasPrefix(">|"):
            // Printable ASCII only: the name is shown by `doctor`.
            var name = String.UnicodeScalarView()
            name.append(contentsOf: text.dropFirst(2).unicodeScalars.filter { (0x20..<0x7F).contains($0.value) }.prefix(80))
            replies.version = name.isEmpty ? nil : String(name)
        case UInt8(ascii: "_") where text.hasPrefix("G"):
            // "Gi=31;OK" or "Gi=31;ENOENT:…"
            let parts = text.dropFirst().split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            let keys = parts.first.map { $0.split(separator: ",") } ?? []
            guard keys.contains("i=\(Self.kittyQueryID)") else { return }
            if parts.count == 2, parts[1] == "OK" {
                replies.kittyGraphics = true
            } else {
                replies.kittyGraphicsRefused = true
            }
        default:
            break
        }
    }

    /// The numbers of a parameter list ("62;4;22"); a parameter that is not a number is -1.
    private static func numbers(_ text: Substring) -> [Int] {
        text.split(separator: ";", omittingEmptySubsequences: false).map { Int($0).map { min($0, 1_000_000) } ?? -1 }
    }
}
