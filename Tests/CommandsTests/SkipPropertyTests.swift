import Commands
import FeedModel
import Foundation
import PropertyBased
import Testing
import TestSupport

/// Over generated feeds (records anywhere in 60 days, some past the app's bound, every record
/// delivered once or again in every answer): every skipped record is named once, the status is
/// 3 exactly when one was skipped, and the rows and their sum are the good records'.
@Suite(.timeLimit(.minutes(1))) struct SkipPropertyTests {
    struct Record: Sendable {
        let id: Int
        let time: Date
        let minor: Int64
        var bad: Bool { minor > Money.maxMagnitude }
    }

    static func records(_ values: [Int]) -> [Record] {
        values.enumerated().map { index, value in
            Record(id: index, time: fixedNow.addingTimeInterval(-Double(value % 60) * 86_400 - Double(value)),
                   minor: value % 7 == 0 ? 1_000_000_000_000_000_000 : Int64(value + 1))
        }
    }

    static func name(_ record: Record) -> String { "id \(record.id)" }

    static func activity(_ record: Record) throws(MalformedPayload) -> Activity {
        guard !record.bad else { throw MalformedPayload(resource: "amount", reason: "past the bound") }
        return Activity(message: MarkupText(runs: [MarkupText.Run("r\(record.id)")]),
                        amount: Money(minorUnits: record.minor, currency: .usd), userId: 1, timestamp: record.time)
    }

    @Test func everySkippedRecordIsNamedOnceAndTheStatusSaysSo() async {
        await propertyCheck(count: 60, input: Gen.int(in: 0...999).array(of: 0...30), Gen.bool) { values, everywhere in
            await Self.check(values, everywhere: everywhere)
        }
    }

    static func check(_ values: [Int], everywhere: Bool) async {
        let records = Self.records(values)
        let skipped = SkippedRecords()
        let api = FakeSavingsAPI()
        api.script {
            $0.goals = { [] }
            $0.activities = { from, to in
                // A sloppy server may send every record in every answer: the window keeps its own.
                let sent = everywhere ? records : records.filter { $0.time >= from && $0.time < to }
                let activities = skipped.mapEach(sent, resource: "GET /activities", name: Self.name, Self.activity)
                return ActivityPage(oldest: fixedNow.addingTimeInterval(-61 * 86_400), activities: activities)
            }
        }
        let captured = CapturedOutput()
        let notes = Locked<[String]>([])
        var context = CommandContext(api: api, sourceKind: "fake", currency: .usd, format: .csv, output: captured.sink(),
                                     calendar: Week.calendar(in: TimeZone(identifier: "UTC")!), now: { fixedNow },
                                     note: { line in notes.withLock { $0.append(line) } })
        context.skipped = skipped
        var totals: ActivityExport.Totals?
        var status = ExitStatus.ok
        do {
            try await context.reportingSkips {
                totals = try await ActivityExport.run(context, kind: .export, since: nil, until: nil, goal: nil)
            }
        } catch let failure as CommandFailure {
            status = failure.status
        } catch {
            Issue.record("\(error)")
        }
        let bad = records.filter(\.bad)
        let named = notes.withLock { $0 }.filter { $0.hasPrefix("skipped a record from fake: ") }
        #expect(named.count == bad.count)
        for record in bad {
            #expect(named.filter { $0.hasSuffix("(id \(record.id))") }.count == 1, "\(named)")
        }
        #expect(status == (bad.isEmpty ? .ok : .skipped))
        let good = records.filter { !$0.bad }
        #expect(totals?.rows == good.count)
        #expect(totals?.total?.minorUnits == good.reduce(0) { $0 + $1.minor })
    }
}
