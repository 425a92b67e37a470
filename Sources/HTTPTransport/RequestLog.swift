import FeedModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `--log-file`: one line per request (method, path, the query's names without their values,
/// status, milliseconds) and one per failure, for a bug report. Never a header, a token, a body
/// or a query value (dates and ids that could be personal), so never an amount either.
public final class RequestLog: Sendable {
    /// The open file; writes are serialised (requests finish on many tasks).
    private let descriptor: Locked<Int32>

    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// Opens `path` for appending (created 0600).
    public init(path: String) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(message: "--log-file: cannot write \(TextSanitizer.clean(path))") }
        descriptor = Locked(fd)
    }

    deinit {
        descriptor.withLock { _ = close($0) }
    }

    /// A request that got an answer (`status`) or failed (`failure`, a one-line reason).
    public func request(_ method: String, _ path: String, query: [URLQueryItem], status: Int?, milliseconds: Int,
                        failure: String? = nil) {
        let names = query.map { "\($0.name)=…" }.joined(separator: "&")
        let target = TextSanitizer.clean(path) + (names.isEmpty ? "" : "?" + TextSanitizer.clean(names))
        let outcome = status.map(String.init) ?? "failed: " + RequestLog.redacted(TextSanitizer.clean(failure ?? "no answer"))
        write("\(method) \(target) \(outcome) \(milliseconds) ms")
    }

    /// Any other line (an error the app showed).
    public func note(_ text: String) {
        write(RequestLog.redacted(TextSanitizer.clean(text)))
    }

    /// Text with anything that looks like an amount ($4.00, 1,250.50, £3) replaced by `…`: an
    /// error may quote a server's words, and those may name money. What is no amount stays: an
    /// IPv4 address and its port (`127.0.0.1:8080`) is matched first and kept as it is.
    public static func redacted(_ text: String) -> String {
        text.replacing(/\d{1,3}(\.\d{1,3}){3}(:\d+)?|[$£€¥₹]\s?\d[\d,.]*|\d[\d,]*[.,]\d+|\d+\s?(USD|GBP|EUR|SEK|kr)/) { match in
            let found = String(match.output.0)
            return found.wholeMatch(of: /\d{1,3}(\.\d{1,3}){3}(:\d+)?/) != nil ? found : "…"
        }
    }

    private func write(_ line: String) {
        let stamp = Date().formatted(.iso8601)
        let bytes = Array("\(stamp) \(line)\n".utf8)
        descriptor.withLock { fd in
            _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        }
    }
}
