import DemoData
import DemoServer
import FeedModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `qapital-tui export` of a long history through a real HTTP server: the real binary, its
/// peak resident memory (VmHWM, read while it runs) and activities per second, stdout to
/// /dev/null. The server makes each window's activities when asked, so it holds none.
enum ExportBenchmark {
    struct Figure {
        let activities: Int
        let seconds: Double
        let peakResidentBytes: Int
        let windows: Int
        /// The child's own CPU time (user + system): the rate without the server's share of the cores.
        let cpuSeconds: Double
        var perSecond: Double { Double(activities) / seconds }
        var perCPUSecond: Double { Double(activities) / cpuSeconds }
    }

    /// The demo API, except that `/activities` has `count` activities, one every `spacing`
    /// seconds back from `now`, made window by window.
    actor LongHistory: ServeHandler {
        let demo: DemoAPIHandler
        let count: Int
        let now: Date
        let spacing: TimeInterval
        private(set) var windows = 0

        init(demo: DemoAPIHandler, count: Int, now: Date, spacing: TimeInterval) {
            self.demo = demo
            self.count = count
            self.now = now
            self.spacing = spacing
        }

        func handle(_ request: ServeRequest) async -> ServeResponse {
            guard request.path == "/activities" else { return await demo.handle(request) }
            let items = URLComponents(string: "?" + request.rawQuery)?.queryItems ?? []
            guard let from = items.first(where: { $0.name == "from" })?.value.flatMap(Timestamp.parse),
                  let to = items.first(where: { $0.name == "to" })?.value.flatMap(Timestamp.parse) else {
                return .error(400, "from and to are needed")
            }
            windows += 1
            // Activity i is at now − i·spacing − 1 s.
            let first = max(0, Int(((now.timeIntervalSince(to) - 1) / spacing).rounded(.up)))
            let last = min(count - 1, Int(((now.timeIntervalSince(from) - 1) / spacing).rounded(.down)))
            var activities: [Activity] = []
            if first <= last {
                activities.reserveCapacity(last - first + 1)
                for i in first...last {
                    let timestamp = now.addingTimeInterval(-Double(i) * spacing - 1)
                    guard timestamp >= from && timestamp < to else { continue }
                    activities.append(Activity(message: MarkupText(parsing: BulkActivityAPI.message(i)),
                                               amount: Money(minorUnits: Int64(i % 997 + 3), currency: .usd),
                                               userId: i % 8 + 1, timestamp: timestamp))
                }
            }
            let oldest = now.addingTimeInterval(-Double(count) * spacing - 86_400)
            return .json(ActivityPage(oldest: oldest, activities: activities))
        }
    }

    static func run(activities count: Int, appPath: String) async throws -> Figure? {
        guard FileManager.default.isExecutableFile(atPath: appPath) else { return nil }
        let now = Date()
        let handler = LongHistory(demo: DemoAPIHandler(backend: DemoBackend(now: now)), count: count, now: now, spacing: 300)
        let server = try DemoHTTPServer(handler: handler)
        try await server.start()
        let base = await server.baseURL
        let process = Process()
        process.executableURL = URL(fileURLWithPath: appPath)
        process.arguments = ["export", "--output", "csv", "--api-url", base.absoluteString, "--no-cache"]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle.standardError
        process.standardInput = FileHandle.nullDevice
        let start = ContinuousClock.now
        let before = childrenCPUSeconds()
        try process.run()
        var peak = 0
        while process.isRunning {
            peak = max(peak, highWaterMark(pid: process.processIdentifier) ?? 0)
            try await Task.sleep(for: .milliseconds(5))
        }
        let seconds = (ContinuousClock.now - start).milliseconds / 1_000
        process.waitUntilExit()
        let cpu = childrenCPUSeconds() - before
        await server.stop()
        guard process.terminationStatus == 0 else { return nil }
        return Figure(activities: count, seconds: seconds, peakResidentBytes: peak, windows: await handler.windows, cpuSeconds: cpu)
    }

    /// User and system time of every child reaped so far.
    static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// VmHWM of a running process: its peak resident memory so far.
    static func highWaterMark(pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }
}
