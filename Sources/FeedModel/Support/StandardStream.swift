import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writing to stdout and stderr that never ends the process: `serve 2>&1 | tee log` stopped by
/// Ctrl-C, or `qapital-tui export | head -1`, leave a pipe with no reader. The write then fails
/// with EPIPE (SIGPIPE is ignored: `ignoreBrokenPipes()` at start), and the bytes are dropped:
/// `FileHandle.write` would trap on that error instead.
public enum StandardStream: Sendable {
    case output
    case error

    private var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }

    /// Ignores SIGPIPE for the whole process, once at start (before any thread writes).
    public static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes `text` whole; returns false when the reader has gone (EPIPE) or the write failed.
    @discardableResult
    public func write(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            bytes = bytes.dropFirst(written)
        }
        return true
    }

    /// Writes `line` and a line break.
    @discardableResult
    public func line(_ line: String) -> Bool { write(line + "\n") }
}
