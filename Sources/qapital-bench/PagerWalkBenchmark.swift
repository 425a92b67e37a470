import FeedModel
import Foundation

/// First activity after K empty windows at latency L: the pipelined pager against one window
/// at a time, through the demo API with simulated latency.
enum PagerWalkBenchmark {
    struct Figure {
        let maxInFlight: Int
        let requests: Int
        let seconds: Double
    }

    @MainActor
    static func run(emptyWindows k: Int, latency: Duration, maxInFlight: Int) async -> Figure {
        let now = Date()
        let backend = DemoBackend(now: now, options: .init(emptyRecentDays: k * 14))
        let feed = ActivityFeed(api: DemoSavingsAPI(backend: backend, latency: latency), maxInFlight: maxInFlight, now: { now })
        let clock = ContinuousClock()
        let start = clock.now
        let (changes, continuation) = AsyncStream<Void>.makeStream()
        feed.onChange = { continuation.yield() }
        feed.start()
        for await _ in changes where !feed.activities.isEmpty || feed.phase == .atEnd { break }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Figure(maxInFlight: maxInFlight, requests: feed.pager.requestCount, seconds: seconds)
    }
}
