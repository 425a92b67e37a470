import Commands
import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport

/// Where `export` stops, and that it says so: only where the source says the history begins
/// (the account's opening), or at `--since`; never after a year of empty windows.
@Suite(.timeLimit(.minutes(1))) struct ExportStopTests {
    static let day: TimeInterval = 86_400

    static func api(times: [Date], oldest: Date) -> FakeSavingsAPI {
        let activities = times.enumerated().map { index, time in
            Activity(message: MarkupText(runs: [MarkupText.Run("row \(index)")]), amount: Money(minorUnits: Int64(index + 1), currency: .usd),
                     userId: 1, timestamp: time)
        }
        let api = FakeSavingsAPI()
        api.script {
            $0.goals = { [] }
            $0.activities = { from, to in
                ActivityPage(oldest: oldest, activities: activities.filter { $0.timestamp >= from && $0.timestamp < to })
            }
        }
        return api
    }

    static func export(_ api: FakeSavingsAPI, since: Date? = nil) async throws -> (rows: Int, notes: [String]) {
        let notes = Locked<[String]>([])
        let context = CommandContext(api: api, sourceKind: "fake", currency: .usd, format: .csv, output: OutputSink { _ in },
                                     calendar: Week.calendar(in: TimeZone(identifier: "UTC")!), now: { fixedNow },
                                     note: { line in notes.withLock { $0.append(line) } })
        let totals = try await ActivityExport.run(context, kind: .export, since: since, until: nil, goal: nil)
        return (totals.rows, notes.withLock { $0 })
    }

    @Test func aHistoryWithAGapOfTwoYearsIsExportedToItsBeginning() async throws {
        let oldest = fixedNow.addingTimeInterval(-1_000 * Self.day)
        let times = [fixedNow.addingTimeInterval(-3 * Self.day), fixedNow.addingTimeInterval(-900 * Self.day), oldest]
        let api = Self.api(times: times, oldest: oldest)
        let (rows, notes) = try await Self.export(api)
        #expect(rows == 3)
        #expect(notes == ["export stopped at \(Cell.isoTime(oldest)), where the source says the history begins"])
        // Empty stretches are walked in growing windows: far fewer requests than two-week ones (71).
        #expect(api.activityCalls.count < 40, "\(api.activityCalls.count) requests")
        // Windows are contiguous and never overlap.
        let calls = api.activityCalls
        for (newer, older) in zip(calls, calls.dropFirst()) { #expect(older.to == newer.from) }
    }

    @Test func itStopsAtSinceAndSaysSo() async throws {
        let oldest = fixedNow.addingTimeInterval(-1_000 * Self.day)
        let since = fixedNow.addingTimeInterval(-500 * Self.day)
        let api = Self.api(times: [fixedNow.addingTimeInterval(-3 * Self.day), fixedNow.addingTimeInterval(-499 * Self.day),
                                   fixedNow.addingTimeInterval(-501 * Self.day)], oldest: oldest)
        let (rows, notes) = try await Self.export(api, since: since)
        #expect(rows == 2)
        #expect(notes == ["export stopped at \(Cell.isoTime(since)) (--since)"])
    }

    /// A source that says its history began in year 1 is walked back to 1970 at most, in few requests, and said so.
    @Test func anAbsurdBeginningIsWalkedToNoEarlierThan1970() async throws {
        let yearOne = Date(timeIntervalSince1970: -62_135_596_800)
        let api = Self.api(times: [fixedNow.addingTimeInterval(-Self.day), Date(timeIntervalSince1970: 86_400 * 400)], oldest: yearOne)
        let (rows, notes) = try await Self.export(api)
        #expect(rows == 2)
        #expect(api.activityCalls.count < 120, "\(api.activityCalls.count) requests")
        #expect(notes == ["export stopped at 1970-01-01T00:00:00Z: the source says its history begins at \(Cell.isoTime(yearOne)), before any account's"])
    }
}
