import Foundation

/// Spaces requests out: a burst of `burst` at once, then at most `perSecond` a second, whatever
/// the answers do (a generic cell rate algorithm, as a pure value: times in, delays out).
///
/// The activity feed paces its windows with it, so that a server answering instantly, a filter
/// that matches nothing, or a key held down cannot make hundreds of requests a second.
public struct RequestPacer: Sendable {
    public let burst: Int
    public let perSecond: Double
    /// When the next request would start if the bucket were empty (the "theoretical arrival time").
    private var nextSlot: TimeInterval?

    public init(burst: Int = 32, perSecond: Double = 20) {
        self.burst = max(1, burst)
        self.perSecond = max(0.001, perSecond)
    }

    /// Reserves a start for one request asked for at `now` (seconds on a monotonic clock) and
    /// returns how long it must wait before it starts: 0 while the burst lasts.
    public mutating func reserve(now: TimeInterval) -> TimeInterval {
        let interval = 1 / perSecond
        let slot = max(nextSlot ?? now, now)
        let start = max(now, slot - Double(burst - 1) * interval)
        nextSlot = max(slot, start) + interval
        // Sums of 1/perSecond drift by a few ulps: a microsecond is no wait.
        let wait = start - now
        return wait < 1e-6 ? 0 : wait
    }
}
