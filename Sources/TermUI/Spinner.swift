/// A loading indicator that appears only after `delay` (tig waits a second), so quick loads
/// never flicker. It takes the time as a parameter: no timers, easy to test.
public struct Spinner: Hashable, Sendable {
    public static let brailleFrames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    public static let asciiFrames = ["|", "/", "-", "\\"]

    public var startedAt: ContinuousClock.Instant
    public var delay: Duration
    public var interval: Duration
    public var frames: [String]

    public init(startedAt: ContinuousClock.Instant, delay: Duration = .seconds(1),
                interval: Duration = .milliseconds(100), frames: [String] = Spinner.brailleFrames) {
        self.startedAt = startedAt
        self.delay = delay
        self.interval = interval
        self.frames = frames.isEmpty ? Spinner.asciiFrames : frames
    }

    /// The frame to show `elapsed` after the start, or nil while still within the delay.
    public func frame(elapsed: Duration) -> String? {
        guard elapsed >= delay else { return nil }
        let step = Int((elapsed - delay) / interval)
        return frames[step % frames.count]
    }

    public func frame(at now: ContinuousClock.Instant) -> String? {
        frame(elapsed: startedAt.duration(to: now))
    }
}
