@testable import Commands
@testable import DemoData
import FeedModel
import Foundation
import QapitalClient
import Testing
import TestSupport

/// `export --new` appends only what an earlier `--new` run did not write: two overlapping
/// appends read by hledger give the balances of one whole export.
@Suite(.timeLimit(.minutes(1))) struct ExportNewTests {
    @Test(.enabled(if: HledgerTool.runs, HledgerTool.skipped))
    func twoOverlappingAppendsCountEachRowOnce() async throws {
        // The server's clock: where the next saving is stamped.
        let clock = Locked(fixedNow.addingTimeInterval(-3_600))
        try await withDemoServer(backend: DemoBackend(now: fixedNow, clock: { clock.withLock { $0 } })) { _, api in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("export-new-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = ExportMarkFile(fileURL: directory.appendingPathComponent("export.latest"))
            let journal = directory.appendingPathComponent("savings.journal")
            func append() async throws -> Int {
                let (context, out) = commandContext(api, format: .ledger, kind: "qapital")
                let totals = try await ActivityExport.run(context, kind: .export, since: nil, until: nil, goal: nil,
                                                          new: true, mark: try file.read())
                if let mark = totals.mark { try file.write(mark) }
                let handle = try FileHandle(forWritingTo: journal)
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(out.value.utf8))
                try handle.close()
                return totals.rows
            }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: journal.path, contents: nil)

            // A saving an hour ago, then the first append: everything so far.
            _ = try await api.transfer(goalId: 1, transferId: UUID(), amount: Money(minorUnits: 500, currency: .usd), attempt: .init(week: "2026-W47", resent: false))
            let first = try await append()
            #expect(first > 20)
            // Another at the very same moment (the mark's own time), and one later.
            _ = try await api.transfer(goalId: 2, transferId: UUID(), amount: Money(minorUnits: 700, currency: .usd), attempt: .init(week: "2026-W47", resent: false))
            clock.withLock { $0 = fixedNow.addingTimeInterval(-60) }
            _ = try await api.transfer(goalId: 1, transferId: UUID(), amount: Money(minorUnits: 900, currency: .usd), attempt: .init(week: "2026-W47", resent: false))
            // The second append overlaps the first's newest window and moment: only the two new rows.
            #expect(try await append() == 2)
            // A third with nothing new writes nothing.
            #expect(try await append() == 0)

            // One whole export of the same history.
            let (whole, wholeOut) = commandContext(api, format: .ledger, kind: "qapital")
            let totals = try await ActivityExport.run(whole, kind: .export, since: nil, until: nil, goal: nil)
            let once = directory.appendingPathComponent("once.journal")
            try Data(wholeOut.value.utf8).write(to: once)
            #expect(totals.rows == first + 2)
            let appended = try HledgerTool.run(journal, ["balance", "--flat", "-O", "csv"])
            let expected = try HledgerTool.run(once, ["balance", "--flat", "-O", "csv"])
            #expect(appended == expected)
            #expect(try HledgerTool.transactions(journal).count == totals.rows)
        }
    }

    /// Rows are told apart by their source's id: a pending payment that settles with another
    /// text at the mark's moment is the row written before; a look-alike with its own id is new.
    /// A mark of the first version (fingerprints) is still read.
    @Test func theMarkNamesRowsByTheirIds() {
        func row(_ id: String, _ text: String) -> Activity {
            Activity(id: id, message: MarkupText(parsing: text), amount: Money(minorUnits: -450, currency: .gbp), userId: 1,
                     timestamp: fixedNow, kind: .other)
        }
        var first = ExportMark.Tracker(nil)
        first.wrote(row("tx_1", "Coffee (pending)"))
        let mark = ExportMark(newest: fixedNow, atNewest: first.atNewest)
        #expect(mark.atNewest == ["tx_1"])
        var next = ExportMark.Tracker(mark)
        let settled = next.written(row("tx_1", "Coffee"))
        let second = next.written(row("tx_2", "Coffee"))
        #expect(settled, "the settled payment is the row written before")
        #expect(!second, "a second coffee at the same moment is new")
        let old = ExportMark(newest: fixedNow, atNewest: [ExportMark.fingerprint(row("tx_1", "Coffee"))], version: 1)
        var fromOld = ExportMark.Tracker(old)
        let readOld = fromOld.written(row("tx_1", "Coffee"))
        #expect(readOld)
    }

    @Test func theMarkKeepsTheNewestMomentAndADamagedOneIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("export-mark-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = ExportMarkFile(fileURL: directory.appendingPathComponent("export.latest"))
        #expect(try file.read() == nil)
        let mark = ExportMark(newest: fixedNow.addingTimeInterval(0.637), atNewest: ["00000000000000aa", "00000000000000bb"])
        try file.write(mark)
        let read = try #require(try file.read())
        #expect(read.atNewest == mark.atNewest && abs(read.newest.timeIntervalSince(mark.newest)) < 0.001)
        let mode = try FileManager.default.attributesOfItem(atPath: file.fileURL.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try Data("{not json".utf8).write(to: file.fileURL)
        #expect(throws: CommandFailure.self) { _ = try file.read() }
    }
}
