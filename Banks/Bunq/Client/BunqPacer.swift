import FeedModel
import Foundation

/// bunq's classic rate limits, kept on the client's side so an ordinary session never meets a
/// 429: per method and endpoint pattern (ids replaced by `{id}`), GET 3 per 3 s, POST 5 per 3 s,
/// PUT 2 per 3 s, and `POST /session-server` 1 per 30 s.
///
/// A sliding window per endpoint: `reserve` answers how long to wait before sending so that no
/// window of the limit's length plus `margin` holds more than the limit's count of sends, and
/// books the send at that time. Time is a number of seconds on a clock the caller gives (tests
/// script it).
///
/// Why a margin: bunq counts a request when it arrives, the pacer when it books it. Between the
/// two lie the signing, a new TLS connection or a reused one, the network and a busy machine,
/// and they differ from request to request: when the first of a window's sends arrives 100 ms
/// later than the one booked exactly a window after it, bunq sees both inside one window and
/// answers 429. Counting each window a tenth longer (0.3 s for the 3 s windows, 3 s for the
/// session's 30 s) covers such differences and clock skew many times over, and costs a burst
/// to one endpoint a tenth of its pace (GETs at 3 per 3.3 s); an ordinary session, whose
/// requests to one endpoint rarely come four in 3 s, never notices.
public final class BunqPacer: Sendable {
    public struct Limit: Hashable, Sendable {
        public var count: Int
        public var seconds: Double
        public init(count: Int, seconds: Double) {
            self.count = count
            self.seconds = seconds
        }

        /// The window the pacer keeps: the limit's plus its margin.
        public var paced: Double { seconds * (1 + BunqPacer.margin) }
    }

    /// The share of a window added to it before booking (see above).
    public static let margin = 0.1

    private let sent = Locked<[String: [Double]]>([:])
    /// Off: every `reserve` answers 0 (tests against a look-alike without limits).
    public let enabled: Bool

    public init(enabled: Bool = true) { self.enabled = enabled }

    /// The limit of `method` on `path` (a path under the base URL, without its query).
    public static func limit(method: String, path: String) -> Limit {
        let method = method.uppercased()
        if method == "POST", endpoint(path) == "/session-server" { return Limit(count: 1, seconds: 30) }
        switch method {
        case "GET": return Limit(count: 3, seconds: 3)
        case "PUT": return Limit(count: 2, seconds: 3)
        default: return Limit(count: 5, seconds: 3)
        }
    }

    /// `/user/{id}/monetary-account/{id}/payment`: the path with every all-digit segment replaced.
    public static func endpoint(_ path: String) -> String {
        let bare = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? path
        return "/" + bare.split(separator: "/").map { $0.allSatisfy(\.isNumber) ? "{id}" : String($0) }.joined(separator: "/")
    }

    /// Seconds to wait from `now` before sending `method path`; the send is booked at `now + wait`.
    public func reserve(method: String, path: String, now: Double) -> Double {
        guard enabled else { return 0 }
        let limit = BunqPacer.limit(method: method, path: path)
        let key = method.uppercased() + " " + BunqPacer.endpoint(path)
        return sent.withLock { table in
            let window = limit.paced
            var times = table[key, default: []].filter { $0 > now - window - 0.000_001 }
            var at = now
            if times.count >= limit.count {
                // The send that leaves the window first frees a place.
                let sorted = times.sorted()
                at = max(now, sorted[sorted.count - limit.count] + window)
            }
            times.append(at)
            table[key] = times
            return at - now
        }
    }

    /// Seconds to wait after a 429: a `Retry-After` of whole seconds if bunq sends one (it
    /// documents none), else what its text names ("… X calls per Y seconds …"), else 3 (30 for
    /// the session endpoint); never more than a minute.
    public static func waitAfter429(text: String?, path: String, retryAfter: String? = nil) -> Double {
        if let header = retryAfter?.trimmingCharacters(in: .whitespaces), let seconds = Int(header), seconds >= 0 {
            return min(Double(seconds), 60)
        }
        let fallback: Double = endpoint(path) == "/session-server" ? 30 : 3
        guard let text, let range = text.range(of: " per ") else { return fallback }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        guard let seconds = Double(digits), seconds > 0 else { return fallback }
        return min(seconds, 60)
    }
}
