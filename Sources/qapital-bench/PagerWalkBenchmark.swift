import QapitalClient
import DemoServer
import DemoData
import FeedModel
import Foundation
import QapitalApp
import TestSupport

/// First activity after K empty windows at latency L, through `serve` (the demo server over
/// loopback HTTP, in process) and the HTTP client: the pipelined pager against one window at a time.
enum PagerWalkBenchmark {
    struct Figure {
        let maxInFlight: Int
        let requests: Int
        let seconds: Double
    }

    @MainActor
    static func run(emptyWindows k: Int, latency: Duration, maxInFlight: Int) async throws -> Figure {
        let now = Date()
        let backend = DemoBackend(now: now, options: .init(emptyRecentDays: k * 14))
        let server = try DemoHTTPServer(backend: backend, port: 0, options: .init(latency: latency))
        try await server.start()
        let api = QapitalHTTPAPI(baseURL: await server.baseURL)
        // One request first, so the connection is up before the clock starts.
        _ = try? await api.rules()
        let probe = EventProbe<StoreEvent>()
        let feed = ActivityFeed(api: api, maxInFlight: maxInFlight, now: { now }, events: probe.sink)
        let clock = ContinuousClock()
        let start = clock.now
        feed.start()
        await probe.wait(timeout: .seconds(600)) { !feed.activities.isEmpty || feed.phase == .atEnd }
        let elapsed = clock.now - start
        let requests = feed.pager.requestCount
        await server.stop()
        return Figure(maxInFlight: maxInFlight, requests: requests, seconds: elapsed.milliseconds / 1_000)
    }
}
