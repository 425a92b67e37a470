import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// Asks the terminal what it can do, once, before curses starts: one batch of queries ended by
/// the primary device attributes, which every terminal answers, read under a short deadline. A
/// terminal that answers nothing costs the deadline; keys typed meanwhile are kept (`input`)
/// for the key decoder, and no reply reaches it. A reply that comes after the deadline reaches
/// the key decoding, which takes it out too (`KeyStream`).
public enum TerminalProbe {
    /// kitty graphics (`a=q` with a 1×1 picture), DECRQM 2026, the cell size and the text area
    /// in pixels, XTVERSION, then DA1.
    public static let queries = "\u{1B}_Gi=\(TerminalReplyParser.kittyQueryID),s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\"
        + "\u{1B}[?2026$p" + "\u{1B}[16t" + "\u{1B}[14t" + "\u{1B}[>q" + "\u{1B}[c"

    /// How long a terminal may take to answer: a local terminal answers in a few milliseconds.
    public static let deadline: Duration = .milliseconds(150)
    /// Over ssh the answers cross the network: an answer later than the deadline would reach
    /// curses as keys, so the wait is longer (a terminal that answers nothing is rare: every
    /// terminal answers the device attributes).
    public static let remoteDeadline: Duration = .milliseconds(600)

    /// How much longer the probe reads when the deadline falls inside a sequence. A reply that
    /// begins after the deadline reaches the key decoding whole, which swallows it (`KeyStream`).
    public static let sequenceGrace: Duration = .milliseconds(100)

    /// The deadline for this session: longer when `SSH_TTY` or `SSH_CONNECTION` is set.
    public static func deadline(environment: [String: String]) -> Duration {
        let remote = !(environment["SSH_TTY"] ?? "").isEmpty || !(environment["SSH_CONNECTION"] ?? "").isEmpty
        return remote ? remoteDeadline : deadline
    }

    public struct Result: Sendable {
        public var replies: TerminalReplies
        /// Bytes that were not replies (keys typed during the probe).
        public var input: [UInt8]
        /// How long the answer took; nil when the terminal was not asked.
        public var elapsed: Duration?
        /// The queries were sent.
        public var asked = true
        public static let notAsked = Result(replies: TerminalReplies(), input: [], elapsed: nil, asked: false)
    }

    /// Asks the terminal on `input`/`output` (both must be terminals), unless `TERM` is dumb or
    /// linux, or the overrides turn the probe off.
    public static func run(environment: [String: String], overrides: TerminalCapabilities.Overrides,
                           input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, deadline: Duration? = nil) -> Result {
        let deadline = deadline ?? Self.deadline(environment: environment)
        let term = environment["TERM"] ?? ""
        // The Linux console prints what it does not know (the kitty query's text) and draws no pictures.
        guard overrides.probe, !term.isEmpty, term != "dumb", term != "linux", isatty(input) == 1, isatty(output) == 1 else {
            return .notAsked
        }
        var saved = termios()
        guard qt_probe_enter(input, &saved) == 0 else { return .notAsked }
        defer { qt_probe_leave(input, &saved) }
        let start = ContinuousClock.now
        let bytes = Array(queries.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
            if count <= 0 { return .notAsked }
            written += count
        }
        var parser = TerminalReplyParser()
        var chunk = [UInt8](repeating: 0, count: 4096)
        var limit = deadline
        // Until the closing answer, and any sequence begun (an answer, a key) is whole.
        while !parser.isComplete || parser.isInsideSequence {
            var left = limit - (ContinuousClock.now - start)
            if left <= .zero, parser.isPending, limit == deadline {
                // An answer cut at the deadline: its rest, briefly, so no half of it is left for the keys.
                limit = deadline + sequenceGrace
                left = limit - (ContinuousClock.now - start)
            }
            guard left > .zero else { break }
            var poller = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            parser.feed(chunk[0..<count])
        }
        parser.finish()
        var replies = parser.replies
        // No pixel sizes answered (xterm refuses window reports by default): the kernel's, if set.
        var width: Int32 = 0, height: Int32 = 0
        if replies.cellPixels == nil, replies.windowPixels == nil, qt_window_pixels(output, &width, &height) == 0 {
            replies.windowPixels = PixelSize(width: Int(width), height: Int(height))
        }
        return Result(replies: replies, input: parser.input, elapsed: parser.isComplete ? ContinuousClock.now - start : nil)
    }

    /// The window's size in cells as the kernel knows it (nil when standard output is not a terminal).
    public static func windowSize() -> TerminalSize? {
        var rows: Int32 = 0, columns: Int32 = 0
        guard qt_window_size(&rows, &columns) == 0 else { return nil }
        return TerminalSize(width: Int(columns), height: Int(rows))
    }
}
