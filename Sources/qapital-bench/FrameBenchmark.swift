import DemoData
import CNcurses
import Commands
import FeedModel
import Foundation
import QapitalApp
import TermUI
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The demo API, except that `/activities` answers the newest window with `count` activities
/// (one every `spacing` seconds, demo-style messages) and says that is the whole history.
enum BulkActivityAPI {
    static let names = ["Henrik", "Johan", "Anna", "Sofia", "Erik", "Maja", "Lars", "Elin"]
    static let places = ["Starbucks", "Espresso House", "7-Eleven", "Pressbyrån", "Bakery Nº5"]

    /// The message of activity `i`, as the server would send it.
    static func message(_ i: Int) -> String {
        let who = names[i % names.count]
        switch i % 3 {
        case 0: return "<strong>\(who)</strong> made a roundup."
        case 1: return "<strong>\(who)</strong> didn't resist a guilty pleasure at <strong>\(places[i % places.count])</strong>."
        default: return "<strong>\(who)</strong> moved money into <strong>Holiday in Japan \(i % 97)</strong>."
        }
    }

    /// The ids a source gives its rows: none (the Qapital API: a short synthetic id), or a bank's.
    enum IDShape: String, CaseIterable {
        case synthetic
        /// Starling's `feedItemUid`, Up's and bunq's ids: a UUID, 36 characters.
        case uuid
        /// Monzo's `tx_` and 24 more characters.
        case monzo

        func id(_ i: Int) -> String? {
            switch self {
            case .synthetic: return nil
            case .uuid:
                let hex = String(format: "%032x", i &* 2_654_435_761 &+ 0x5bd1_e995)
                let digits = Array(String(repeating: "0", count: max(0, 32 - hex.count)) + hex)
                return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(digits[$0]) }.joined(separator: "-")
            case .monzo:
                let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
                var value = UInt64(truncatingIfNeeded: i) &* 0x9E37_79B9_7F4A_7C15
                var text = "tx_0000"
                for _ in 0..<20 {
                    text.append(alphabet[Int(value % 62)])
                    value = value / 62 &+ 0x2545_F491_4F6C_DD1D &* UInt64(text.count)
                }
                return text
            }
        }
    }

    static func activities(count: Int, newest: Date, spacing: TimeInterval, ids: IDShape = .synthetic) -> [Activity] {
        (0..<count).map { i in
            Activity(id: ids.id(i), message: MarkupText(parsing: message(i)), amount: Money(minorUnits: Int64(i % 997 + 3), currency: .usd),
                     userId: i % 8 + 1, timestamp: newest.addingTimeInterval(-Double(i) * spacing - 1))
        }
    }

    /// The demo (its avatars included, so the frames draw pictures as the app does) with the bulk feed.
    static func make(demo: DemoSavingsAPI, count: Int, now: Date, ids: IDShape = .synthetic) -> FakeSavingsAPI {
        let api = FakeSavingsAPI(base: demo, sourceName: "bench")
        let spacing = ActivityPager.windowLength * 0.99 / Double(count)
        api.script { script in
            script.activities = { _, to in
                let oldest = now.addingTimeInterval(-ActivityPager.windowLength)
                guard to > oldest else { return ActivityPage(oldest: oldest, activities: []) }
                return ActivityPage(oldest: oldest, activities: activities(count: count, newest: now, spacing: spacing, ids: ids))
            }
        }
        return api
    }
}

/// The resident memory `count` loaded activities take in the app, with ids of one shape.
enum MemoryBenchmark {
    @MainActor
    static func bytesPerActivity(count: Int, ids: BulkActivityAPI.IDShape) async -> Double {
        let now = Date()
        malloc_trim(0)
        let before = ResidentMemory.bytes()
        let api = BulkActivityAPI.make(demo: DemoSavingsAPI(backend: DemoBackend(now: now)), count: count, now: now, ids: ids)
        let core = AppCore(api: api, configuration: .init(sourceName: "bench", colors: true, timeZone: TimeZone(identifier: "UTC")!),
                           now: { now })
        core.start()
        core.handle(.key(.char("2")))
        while !core.isIdle || core.feed.activities.count < count { try? await Task.sleep(for: .milliseconds(2)) }
        var buffer = CellBuffer(width: 100, height: 30)
        core.drawFrame(into: &buffer)
        malloc_trim(0)
        let resident = ResidentMemory.bytes() - before
        withExtendedLifetime(core) {}
        return Double(resident) / Double(count)
    }
}

/// Frame cost: one `j` handled by the real `AppCore` on a tab, the frame drawn into a `CellBuffer` and
/// presented by the real `NcursesTerminal` into a 100×30 pseudo-terminal (a thread drains it).
/// Every tab reads the same loaded activities (People sums them), so each is timed at each size.
/// Also the resident memory that the loaded activities take.
enum FrameBenchmark {
    struct Figure {
        let activities: Int
        let p50: Duration
        let p99: Duration
        let residentBytes: Int
        let rows: Int
    }

    @MainActor
    /// `tab`: the number key of the tab whose frames are timed (2, Activity, by default).
    static func run(activities count: Int, frames: Int, tab: Character = "2") async -> Figure? {
        let now = Date()
        malloc_trim(0)
        let before = ResidentMemory.bytes()
        let api = BulkActivityAPI.make(demo: DemoSavingsAPI(backend: DemoBackend(now: now)), count: count, now: now)
        // The Rules tab reads the demo's rules (one of each kind) through the commands' engine.
        let calendar = Week.calendar(in: TimeZone(identifier: "UTC")!)
        var capabilities = AppCore.Capabilities()
        let context = CommandContext(api: api, sourceKind: "demo", currency: .usd, format: .table, output: OutputSink { _ in },
                                     calendar: calendar, now: { now })
        capabilities.rulesBook = CommandRulesBook(context: context, file: DemoRules.file(currency: .usd, calendar: calendar, now: now),
                                                  writer: nil)
        let core = AppCore(api: api, configuration: .init(sourceName: "bench", colors: true, timeZone: TimeZone(identifier: "UTC")!,
                                                          pictureSchemes: ["http", "https", DemoImages.scheme]),
                           capabilities: capabilities, now: { now })
        core.start()
        core.handle(.key(.char("2")))
        while !core.isIdle || core.feed.activities.count < count { try? await Task.sleep(for: .milliseconds(2)) }
        if tab != "2" {
            core.handle(.key(.char(tab)))
            while !core.isIdle { try? await Task.sleep(for: .milliseconds(2)) }
        }
        var buffer = CellBuffer(width: 100, height: 30)
        core.drawFrame(into: &buffer)
        malloc_trim(0)
        let resident = ResidentMemory.bytes() - before

        guard let pty = PseudoTerminal(rows: 30, columns: 100) else { return nil }
        let slave = open(pty.slavePath, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { return nil }
        let drained = DispatchSemaphore(value: 0)
        let master = pty.master
        DispatchQueue.global().async {
            var sink = [UInt8](repeating: 0, count: 65_536)
            while sink.withUnsafeMutableBytes({ read(master, $0.baseAddress, $0.count) }) > 0 {}
            drained.signal()
        }
        let terminal = NcursesTerminal()
        terminal.start(colors: true, device: slave)
        terminal.present(buffer)

        let clock = ContinuousClock()
        var timings: [Duration] = []
        timings.reserveCapacity(frames)
        for frame in 0..<(frames + 50) {
            // Down 800 rows, up 800, and so on: every frame scrolls, even with only 1k loaded.
            let key: Key = (frame / 800) % 2 == 0 ? .char("j") : .char("k")
            let elapsed = clock.measure {
                core.handle(.key(key))
                core.drawFrame(into: &buffer)
                terminal.present(buffer)
            }
            if frame >= 50 { timings.append(elapsed) }
        }
        terminal.stop()
        close(slave)
        drained.wait()
        withExtendedLifetime(core) {}
        timings.sort()
        return Figure(activities: count, p50: timings[timings.count / 2], p99: timings[timings.count * 99 / 100],
                      residentBytes: resident, rows: core.feed.activities.count)
    }
}
