import FeedModel
import Foundation

/// What Up's rate limit (1,000 requests an hour per token) has left, as its answers say
/// (`X-RateLimit-Remaining`), and whether a 429 has stopped fetching until a given time.
///
/// A 429 whose `Retry-After` names a short wait (`longestWait` at most) is waited out and the
/// request sent once more. Otherwise (no `Retry-After`: Up's window is the hour), or when the
/// second try meets a 429 too, every request fails at once, without reaching Up, with the same
/// one-line message saying when to try again, until that time has passed. Never a loop.
public final class UpRateLimit: Sendable {
    /// Below this many requests left, the status bar shows the count.
    public static let lowWatermark = 100
    /// How long a 429 stops fetching when Up does not say (`Retry-After`): the limit is per hour.
    public static let defaultPause: TimeInterval = 3_600
    /// The longest `Retry-After` waited out in place before the one more try; a longer one stops
    /// fetching instead (a screen that loads for minutes says less than "try again after 14:35").
    public static let longestWait: TimeInterval = 30

    private let state = Locked<(remaining: Int?, stoppedUntil: Date?)>((nil, nil))
    private let now: @Sendable () -> Date
    /// Waits a short `Retry-After` out (tests script it).
    let sleep: @Sendable (TimeInterval) async -> Void

    public init(now: @escaping @Sendable () -> Date = { Date() },
                sleep: @escaping @Sendable (TimeInterval) async -> Void = { seconds in
                    try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
                }) {
        self.now = now
        self.sleep = sleep
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
        let until = now().addingTimeInterval(pause(retryAfter: retryAfter) ?? UpRateLimit.defaultPause)
        state.withLock {
            $0.stoppedUntil = until
            $0.remaining = 0
        }
        return until
    }

    /// The seconds a 429's `Retry-After` asks for when they are few enough to wait in place
    /// (`longestWait` at most); nil when it names none or a longer wait.
    public func shortWait(retryAfter: String?) -> TimeInterval? {
        guard let pause = pause(retryAfter: retryAfter), pause <= UpRateLimit.longestWait else { return nil }
        return pause
    }

    /// `Retry-After` as seconds from now (a whole number, or an HTTP date), a day at most; nil
    /// when absent or unreadable.
    private func pause(retryAfter: String?) -> TimeInterval? {
        let text = retryAfter?.trimmingCharacters(in: .whitespaces) ?? ""
        if let seconds = Int(text), seconds >= 0 { return TimeInterval(min(seconds, 86_400)) }
        if let date = UpRateLimit.httpDate(text) { return max(0, min(date.timeIntervalSince(now()), 86_400)) }
        return nil
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
