import Foundation

/// Offline, when to ask the server again: every `interval`, never while a load is in flight.
struct ReconnectPolicy {
    static let interval: TimeInterval = 10
    private(set) var lastAttempt = Date.distantPast

    /// Whether to try now; a yes counts as the attempt.
    mutating func shouldTry(offline: Bool, busy: Bool, now: Date) -> Bool {
        guard offline, !busy, now.timeIntervalSince(lastAttempt) >= Self.interval else { return false }
        lastAttempt = now
        return true
    }
}
