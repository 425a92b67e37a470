import FeedModel
import Foundation

/// `swift run -c release qapital-bench`: prints the figures of docs/performance.md.
@MainActor
func runBenchmarks() async {
    let k = 26
    let latencyMs = 20
    print("first activity after \(k) empty windows at \(latencyMs) ms latency (demo API in process)")
    print("  mode                 requests   time      round trips")
    for maxInFlight in [1, 8] {
        let figure = await PagerWalkBenchmark.run(emptyWindows: k, latency: .milliseconds(latencyMs), maxInFlight: maxInFlight)
        let trips = figure.seconds * 1000 / Double(latencyMs)
        let mode = maxInFlight == 1 ? "one window at a time" : "pipelined (8 ahead) "
        print("  \(mode)  \(String(figure.requests).padding(toLength: 8, withPad: " ", startingAt: 0))   \(String(format: "%6.0f ms", figure.seconds * 1000))   \(String(format: "%.1f", trips))")
    }
    print("  target: (K/8 + 2)·L = \(String(format: "%.0f", (Double(k) / 8 + 2) * Double(latencyMs))) ms; one at a time: (K+1)·L = \((k + 1) * latencyMs) ms")
}

await runBenchmarks()
