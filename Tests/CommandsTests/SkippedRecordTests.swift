import Commands
@testable import DemoData
@testable import DemoServer
import FeedModel
import Foundation
@testable import StarlingSource
import StarlingClient
import Testing
import TestSupport

/// A Starling look-alike whose feed holds one item with an amount past the app's bound (10^18
/// minor units): every answer that holds that item holds it so.
actor OneBadFeedItem: ServeHandler {
    let inner = StarlingDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: .gbp)))
    private(set) var badUid: String?

    func handle(_ request: ServeRequest) async -> ServeResponse {
        var response = await inner.handle(request)
        guard var document = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
              var items = document["feedItems"] as? [[String: Any]], !items.isEmpty else { return response }
        for (index, item) in items.enumerated() {
            guard let uid = item["feedItemUid"] as? String, var amount = item["amount"] as? [String: Any] else { continue }
            if badUid == nil, item["spendingCategory"] as? String != "SAVING" { badUid = uid }
            guard uid == badUid else { continue }
            amount["minorUnits"] = 1_000_000_000_000_000_000
            items[index]["amount"] = amount
        }
        document["feedItems"] = items
        if let body = try? JSONSerialization.data(withJSONObject: document) { response.body = body }
        return response
    }
}

/// Records the source skipped: named once each on stderr, status 3; `--strict`: status 1 and nothing written.
@Suite(.timeLimit(.minutes(1))) struct SkippedRecordTests {
    static func context(_ api: StarlingAPI, format: OutputFormat, strict: Bool) -> (CommandContext, CapturedOutput, Locked<[String]>) {
        let captured = CapturedOutput()
        let notes = Locked<[String]>([])
        var context = CommandContext(api: api, sourceKind: "starling", currency: .gbp, format: format, output: captured.sink(),
                                     calendar: Week.calendar(in: TimeZone(identifier: "Europe/London")!), now: { fixedNow },
                                     note: { line in notes.withLock { $0.append(line) } })
        context.skipped = api.skippedRecords
        context.strict = strict
        return (context, captured, notes)
    }

    @Test func aSkippedRecordIsNamedAndTheStatusSaysSo() async throws {
        let handler = OneBadFeedItem()
        try await withStarlingServer(handler: handler) { _, url in
            let since = fixedNow.addingTimeInterval(-60 * 86_400)
            // Without --strict: every other row written, the record named once, status 3.
            let api = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken, now: { fixedNow })
            let (context, out, notes) = Self.context(api, format: .csv, strict: false)
            var rows = 0
            do {
                try await context.reportingSkips {
                    rows = try await ActivityExport.run(context, kind: .export, since: since, until: fixedNow, goal: nil).rows
                    // The same item again (round-ups read the feed too): still one note.
                    try await RoundUpsCommands.list(context, week: try context.week("last"))
                }
                Issue.record("a run with a skipped record exited 0")
            } catch let failure as CommandFailure {
                #expect(failure.status == .skipped && failure.status.rawValue == 3)
                #expect(failure.message == "done, with 1 record skipped (named above)")
            }
            let bad = try #require(await handler.badUid)
            let said = notes.withLock { $0 }.filter { !$0.hasPrefix("export stopped at ") }
            #expect(said.count == 1, "\(said)")
            #expect(said.first?.hasPrefix("skipped a record from starling: GET ") == true)
            #expect(said.first?.contains("id \(bad)") == true && said.first?.contains("minorUnits") == true, "\(said)")
            #expect(rows > 10 && out.lines.count > rows)

            // --strict: status 1, nothing on stdout.
            let strictAPI = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken, now: { fixedNow })
            let (strict, strictOut, strictNotes) = Self.context(strictAPI, format: .csv, strict: true)
            do {
                try await strict.reportingSkips {
                    try await ActivityExport.run(strict, kind: .export, since: since, until: fixedNow, goal: nil)
                }
                Issue.record("--strict exited 0 with a skipped record")
            } catch let failure as CommandFailure {
                #expect(failure.status == .failed)
                #expect(failure.message.hasPrefix("--strict: "))
            }
            #expect(strictOut.value.isEmpty)
            #expect(strictNotes.withLock { $0 }.filter { !$0.hasPrefix("export stopped at ") }.count == 1)
        }
    }

    @Test func aCleanRunExitsZeroAndStrictWritesEverything() async throws {
        try await withStarlingServer { _, url in
            let since = fixedNow.addingTimeInterval(-60 * 86_400)
            let api = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken, now: { fixedNow })
            let (plain, plainOut, _) = Self.context(api, format: .csv, strict: false)
            try await plain.reportingSkips { try await ActivityExport.run(plain, kind: .export, since: since, until: fixedNow, goal: nil) }
            let (strict, strictOut, notes) = Self.context(api, format: .csv, strict: true)
            try await strict.reportingSkips { try await ActivityExport.run(strict, kind: .export, since: since, until: fixedNow, goal: nil) }
            #expect(!strictOut.value.isEmpty && strictOut.value == plainOut.value)
            #expect(notes.withLock { $0 } == ["export stopped at \(Cell.isoTime(since)) (--since)"])
        }
    }
}
