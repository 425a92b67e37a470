import FeedModel
import Foundation

/// What Up's rate limit (1,000 requests an hour per token) has left, as its answers say
/// (`X-RateLimit-Remaining`), and whether a 429 has stopped fetching until a given time.
///
/// Nothing retries: after a 429 every request fails at once, without reaching Up, with the same
/// one-line message saying when to try again, until that time has passed.
public final class UpRateLimit: Sendable {
    /// Below this many requests left, the status bar shows the count.
    public static let lowWatermark = 100
    /// How long a 429 stops fetching when Up does not say (`Retry-After`): the limit is per hour.
    public static let defaultPause: TimeInterval = 3_600

    private let state = Locked<(remaining: Int?, stoppedUntil: Date?)>((nil, nil))
    private let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// Requests left in this hour, as the last answer said; nil before any answer said.
    public var remaining: Int? { state.withLock { $0.remaining } }

    /// Until when fetching is stopped (a 429 came), or nil.
    public var stoppedUntil: Date? {
        state.withLock { current in
            guard let until = current.stoppedUntil else { return nil }
            if until <= now() { current.stoppedUntil = nil }
            return current.stoppedUntil
        }
    }

    /// "Up: 42 requests left this hour" when fewer than `lowWatermark` are left; nil otherwise.
    public var statusNote: String? {
        if let until = stoppedUntil { return "Up: rate limit reached; try again after \(UpRateLimit.clock(until))" }
        guard let remaining, remaining < UpRateLimit.lowWatermark else { return nil }
        return "Up: \(remaining) \(remaining == 1 ? "request" : "requests") left this hour"
    }

    /// Reads `X-RateLimit-Remaining` (a whole number; anything else is ignored).
    public func observe(remainingHeader: String?) {
        guard let text = remainingHeader?.trimmingCharacters(in: .whitespaces), let value = Int(text), value >= 0 else { return }
        state.withLock { $0.remaining = value }
    }

    /// A 429: stops fetching for `Retry-After` seconds (or an HTTP date), else for an hour.
    public func stop(retryAfter: String?) -> Date {
        let pause: TimeInterval
        let text = retryAfter?.trimmingCharacters(in: .whitespaces) ?? ""
        if let seconds = Int(text), seconds >= 0 {
            pause = TimeInterval(min(seconds, 86_400))
        } else if let date = UpRateLimit.httpDate(text) {
            pause = max(0, min(date.timeIntervalSince(now()), 86_400))
        } else {
            pause = UpRateLimit.defaultPause
        }
        let until = now().addingTimeInterval(pause)
        state.withLock {
            $0.stoppedUntil = until
            $0.remaining = 0
        }
        return until
    }

    /// The one-line message of a stop: what happened and when to try again.
    public func message(label: String, until: Date) -> String {
        "\(label): Up's rate limit (1,000 requests an hour) is used up; try again after \(UpRateLimit.clock(until))"
    }

    /// "14:35" in the local time zone (a time later today or tomorrow).
    static func clock(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    static func httpDate(_ text: String) -> Date? {
        guard !text.isEmpty else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
