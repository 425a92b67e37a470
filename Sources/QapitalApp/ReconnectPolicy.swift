import Foundation

/// Offline, when to ask the server again: first `firstInterval` after the failure that took the
/// app offline, then twice as long after each attempt that failed too, up to `longestInterval`;
/// never while a load is in flight. Back online, it starts over. `r` asks at once, whatever this says.
struct ReconnectPolicy {
    static let firstInterval: TimeInterval = 20
    static let longestInterval: TimeInterval = 300
    private(set) var lastAttempt: Date?
    private(set) var interval = ReconnectPolicy.firstInterval

    /// When the next attempt is due (nil online); an offline app sleeps until then.
    func nextAttempt(offline: Bool, busy: Bool, now: Date) -> Date? {
        guard offline, !busy else { return nil }
        guard let lastAttempt else { return now }
        return lastAttempt.addingTimeInterval(interval)
    }

    /// Called as each store event is handled: going offline starts the clock (the load that just
    /// failed was the attempt); back online, it starts over.
    mutating func observe(offline: Bool, now: Date) {
        if !offline {
            lastAttempt = nil
            interval = Self.firstInterval
        } else if lastAttempt == nil {
            lastAttempt = now
        }
    }

    /// Whether to try now; a yes counts as the attempt. The first call offline only starts the
    /// clock: the load that just failed was the attempt.
    mutating func shouldTry(offline: Bool, busy: Bool, now: Date) -> Bool {
        guard offline else {
            lastAttempt = nil
            interval = Self.firstInterval
            return false
        }
        guard !busy else { return false }
        guard let last = lastAttempt else {
            lastAttempt = now
            return false
        }
        guard now.timeIntervalSince(last) >= interval else { return false }
        lastAttempt = now
        interval = min(interval * 2, Self.longestInterval)
        return true
    }
}
