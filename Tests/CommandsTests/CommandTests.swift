import Commands
@testable import DemoData
@testable import DemoServer
import FeedCache
import FeedModel
import Foundation
@testable import UpSource
@testable import StarlingSource
import QapitalClient
import StarlingClient
import UpClient
import Testing
import TermUI
import TestSupport

/// The headless commands in process: every format on the demo and through `serve`, CSV and
/// JSON escaping, hostile text, saving once.
@Suite(.timeLimit(.minutes(1))) struct CommandFormatTests {
    static let demo = DemoSavingsAPI(backend: DemoBackend(now: fixedNow))

    @Test func csvCellsAreQuotedAndDefused() {
        #expect(Cell.csv("Dog") == "Dog")
        #expect(Cell.csv("Dog, cat") == "\"Dog, cat\"")
        #expect(Cell.csv("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(Cell.csv("=HYPERLINK(\"http://x\")") == "\"'=HYPERLINK(\"\"http://x\"\")\"")
        #expect(Cell.csv("+1") == "'+1")
        #expect(Cell.csv("-2+3") == "'-2+3")
        #expect(Cell.csv("@SUM(A1)") == "'@SUM(A1)")
        #expect(Cell.csv("a\u{1B}[31mb") == "a�[31mb" || !Cell.csv("a\u{1B}[31mb").contains("\u{1B}"))
    }

    @Test func jsonStringsEscapeEverything() {
        #expect(Cell.json("a\"b\\c") == "\"a\\\"b\\\\c\"")
        #expect(!Cell.json("x\u{1B}y\u{07}\u{2028}").contains("\u{1B}"))
        let data = Data(("[" + Cell.json("tab\there \"q\" é 東京") + "]").utf8)
        let parsed = try? JSONSerialization.jsonObject(with: data) as? [String]
        #expect(parsed?.first?.contains("東京") == true)
    }

    @Test func accountNamesAreSafeForAJournal() {
        #expect(Cell.accountPart("Tokyo trip 東京") == "Tokyo trip 東京")
        #expect(Cell.accountPart("a:b;c  d (e) [f]") == "a-b-c d -e- -f-")
        #expect(Cell.accountPart("   ") == "-")
        #expect(Cell.ledgerAmount(Money(minorUnits: -435, currency: .usd)) == "-4.35 USD")
        #expect(Cell.ledgerAmount(Money(minorUnits: 400, currency: .jpy)) == "400 JPY")
        #expect(Cell.ledgerAmount(Money(minorUnits: 5, currency: .gbp)) == "0.05 GBP")
    }

    @Test func goalsAsATableJSONAndCSV() async throws {
        let (table, tableOut) = commandContext(Self.demo, format: .table)
        try await GoalsListing.run(table)
        // The demo's figures may change; the layout may not: a header, then one aligned row per goal.
        let all = try await Self.demo.goals()
        let header = try #require(tableOut.lines.first)
        #expect(header.hasPrefix("NAME ") && header.hasSuffix("SAVED     TARGET  PROGRESS  ID"))
        #expect(tableOut.lines.count == all.count + 1)
        let idColumn = header.count - 2
        for (line, goal) in zip(tableOut.lines.dropFirst(), all) {
            #expect(line.hasPrefix(goal.name))
            #expect(line.contains(goal.balance.formatted))
            // The id starts under ID, counted in terminal columns (東京 takes four).
            let idStart = try #require(line.range(of: "  " + goal.id.rawValue, options: .backwards))
            #expect(TextWidth.of(String(line[..<idStart.lowerBound])) + 2 == idColumn, "\(line)")
        }
        #expect(tableOut.lines.contains { $0.hasPrefix("Old laptop") && $0.hasSuffix("11 (deleted)") })
        let balloons = try #require(all.first { $0.name == "Balloons" })
        let percent = balloons.balance.minorUnits * 100 / balloons.target!.minorUnits

        let (csv, csvOut) = commandContext(Self.demo, format: .csv)
        try await GoalsListing.run(csv)
        #expect(csvOut.lines.first == "id,name,status,saved,target,currency,progress_percent")
        #expect(csvOut.lines.contains("1,Balloons,active,\(Cell.decimal(balloons.balance)),\(Cell.decimal(balloons.target!)),USD,\(percent)"))
        #expect(csvOut.lines.count == all.count + 1)

        let (json, jsonOut) = commandContext(Self.demo, format: .json)
        try await GoalsListing.run(json)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(jsonOut.value.utf8)) as? [String: Any])
        #expect(document["schema"] as? String == "qapital-tui.goals" && document["version"] as? Int == 1)
        let goals = try #require(document["goals"] as? [[String: Any]])
        let expected = try await Self.demo.goals()
        #expect(goals.count == expected.count)
        for (row, goal) in zip(goals, expected) {
            let saved = try #require(row["saved"] as? [String: Any])
            #expect(saved["minorUnits"] as? Int64 == goal.balance.minorUnits || (saved["minorUnits"] as? Int).map(Int64.init) == goal.balance.minorUnits)
            #expect(saved["currency"] as? String == "USD")
            #expect(row["name"] as? String == goal.name)
        }

        let (ledger, _) = commandContext(Self.demo, format: .ledger)
        await #expect(throws: CommandFailure.self) { try await GoalsListing.run(ledger) }
    }

    /// A journal's first line names the command that wrote it (`activity --output ledger` began
    /// "; qapital-tui export: …").
    @Test func aJournalNamesTheCommandThatWroteIt() async throws {
        for kind in [ActivityExport.Kind.activity, .export] {
            let (context, output) = commandContext(Self.demo, format: .ledger)
            try await ActivityExport.run(context, kind: kind, since: fixedNow.addingTimeInterval(-86_400 * 3), until: fixedNow, goal: nil)
            #expect(output.value.hasPrefix("; qapital-tui \(kind.rawValue): one transaction per activity"), "\(kind)")
        }
    }

    /// Text from the server with escapes, formulas and bidi controls reaches no format raw.
    @Test func hostileServerTextIsCleanedInEveryFormat() async throws {
        let hostileName = "\u{1B}]0;owned\u{07}=cmd|' /C calc'!A0\u{202E}"
        let api = FakeSavingsAPI(base: Self.demo)
        api.script { script in
            script.goals = {
                [Goal(id: GoalID("x\u{1B}[2J"), name: hostileName, ownerId: 1, target: nil, balance: Money(minorUnits: 100, currency: .usd))]
            }
            script.activities = { from, to in
                ActivityPage(oldest: from, activities: [
                    Activity(message: MarkupText(runs: [.init("\u{1B}[31mRed\u{1B}[0m; moved into "), .init(hostileName, bold: true)]),
                             amount: Money(minorUnits: 116, currency: .usd), userId: 1, timestamp: to.addingTimeInterval(-60)),
                ])
            }
            script.transactions = { from, _ in
                [Transaction(id: "t1", timestamp: from.addingTimeInterval(60), amount: Money(minorUnits: -435, currency: .usd),
                             counterparty: "@SUM(1)\u{1B}[8m")]
            }
        }
        for format in OutputFormat.allCases {
            let (context, output) = commandContext(api, format: format)
            if format != .ledger {
                try await GoalsListing.run(context)
                try await RoundUpsCommands.list(context, week: Week(containing: fixedNow, calendar: context.calendar))
            }
            try await ActivityExport.run(context, kind: .activity, since: fixedNow.addingTimeInterval(-86_400), until: fixedNow, goal: nil)
            let text = output.value
            #expect(!text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F || $0 == "\u{202E}" },
                    "\(format): \(text.debugDescription)")
            #expect(text.contains("=cmd") && text.contains("Red"), "\(format): the hostile rows were written")
            if format == .csv {
                #expect(!text.contains(",=cmd") && !text.contains(",@SUM") && !text.contains("\n=") && !text.contains("\n@"))
            }
            if format == .json {
                for document in text.split(separator: "\n{\"schema\"") where !document.isEmpty {
                    let whole = document.hasPrefix("{") ? String(document) : "{\"schema\"" + document
                    #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: Data(whole.utf8)) }
                }
            }
            if format == .ledger {
                #expect(!text.contains("; moved"))  // a ';' in a description would start a comment
            }
        }
    }

    /// Each two-week window is written before the next is asked for.
    @Test func activityIsWrittenWindowByWindow() async throws {
        let api = FakeSavingsAPI(base: Self.demo)
        let captured = CapturedOutput()
        let linesAtRequest = Locked<[Int]>([])
        api.script { script in
            script.activities = { from, to in
                linesAtRequest.withLock { $0.append(captured.lines.count) }
                return ActivityPage(oldest: fixedNow.addingTimeInterval(-60 * 86_400), activities: [
                    Activity(message: MarkupText(parsing: "You saved into <strong>Dog</strong>."), amount: Money(minorUnits: 100, currency: .usd),
                             userId: 1, timestamp: to.addingTimeInterval(-3_600)),
                ])
            }
        }
        let context = CommandContext(api: api, sourceKind: "demo", currency: .usd, format: .csv, output: captured.sink(),
                                     calendar: Week.calendar(in: .gmt), now: { fixedNow })
        let totals = try await ActivityExport.run(context, kind: .export, since: nil, until: fixedNow, goal: "Dog")
        // 60 days back: five windows; before each request, the header and one row per earlier window.
        #expect(linesAtRequest.withLock { $0 } == [1, 2, 3, 4, 5])
        #expect(totals.rows == 5)
        #expect(totals.perGoal["Dog"] == Money(minorUnits: 500, currency: .usd))
    }

    @Test func datesAndWeeksFromTheCommandLine() throws {
        let calendar = Week.calendar(in: TimeZone(identifier: "Europe/London")!)
        #expect(CommandContext.parseDate("2026-11-20", calendar: calendar) == Timestamp.parse("2026-11-20T00:00:00+00:00"))
        #expect(CommandContext.parseDate("2026-11-20T08:00:00Z", calendar: calendar) == Timestamp.parse("2026-11-20T08:00:00+00:00"))
        #expect(CommandContext.parseDate("2026-02-30", calendar: calendar) == nil)
        #expect(CommandContext.parseDate("yesterday", calendar: calendar) == nil)
        let (context, _) = commandContext(Self.demo, format: .table)
        let this = Week(containing: fixedNow, calendar: context.calendar)
        #expect(try context.week("this") == this)
        #expect(try context.week("LAST") == this.previous)
        #expect(try context.week(this.previous.isoLabel) == this.previous)
        #expect(throws: CommandFailure.self) { try context.week(this.next.isoLabel) }
        #expect(throws: CommandFailure.self) { try context.week("next") }
    }
}

/// `roundups --save` through `serve`, both APIs: twice moves money once; a lost answer, once.
@Suite(.timeLimit(.minutes(1))) struct CommandSaveTests {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("command-save-\(UUID().uuidString)")
    }

    static func saveTwice(api: any SavingsAPI, kind: String, currency: Currency, identity: SaveIdentity) async throws {
        let directory = CommandSaveTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func saver() -> RoundUpSaver { RoundUpSaver(identity: identity, record: RoundUpRecordFile(directory: directory, identity: identity)) }
        func balloons() async throws -> Money { try #require(try await api.goals().first { $0.name == "Balloons" }).balance }
        let before = try await balloons()

        // Without --yes and without a terminal: refused, nothing moved. --dry-run: nothing moved.
        let (refusing, _) = commandContext(api, format: .table, kind: kind, currency: currency, saver: saver())
        let week = try refusing.week("last")
        await #expect(throws: CommandFailure.self) {
            try await RoundUpsCommands.save(refusing, week: week, goal: "Balloons", dryRun: false, yes: false) { _ in nil }
        }
        let (dry, dryOut) = commandContext(api, format: .table, kind: kind, currency: currency, saver: saver())
        try await RoundUpsCommands.save(dry, week: week, goal: "balloons", dryRun: true, yes: false) { _ in nil }
        #expect(dryOut.value.hasPrefix("would save "))
        #expect(try await balloons() == before)

        let (first, firstOut) = commandContext(api, format: .table, kind: kind, currency: currency, saver: saver())
        try await RoundUpsCommands.save(first, week: week, goal: "Balloons", dryRun: false, yes: true) { _ in nil }
        #expect(firstOut.value.hasPrefix("saved "))
        let after = try await balloons()
        #expect(after > before)

        let (second, secondOut) = commandContext(api, format: .table, kind: kind, currency: currency, saver: saver())
        try await RoundUpsCommands.save(second, week: week, goal: "Balloons", dryRun: false, yes: true) { _ in nil }
        let day = second.calendar.dateComponents([.year, .month, .day], from: fixedNow)  // the run's clock
        #expect(secondOut.value.hasPrefix(String(format: "already saved on %04d-%02d-%02d: ", day.year!, day.month!, day.day!)))
        #expect(try await balloons() == after)

        // The listing shows it saved.
        let (list, listOut) = commandContext(api, format: .json, kind: kind, currency: currency, saver: saver())
        try await RoundUpsCommands.list(list, week: week)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(listOut.value.utf8)) as? [String: Any])
        let notSaved = try #require(document["notSaved"] as? [String: Any])
        #expect((notSaved["minorUnits"] as? Int) == 0)
        #expect((document["transfers"] as? [[String: Any]])?.first?["state"] as? String == "saved")
    }

    @Test func qapitalTwiceMovesMoneyOnce() async throws {
        try await withDemoServer(backend: DemoBackend(now: fixedNow)) { server, api in
            let identity = SaveIdentity(source: "qapital " + (await server.baseURL).absoluteString, account: "")
            try await Self.saveTwice(api: api, kind: "qapital", currency: .usd, identity: identity)
            #expect(await server.receivedRequests().filter { $0.method == "POST" }.count == 1)
        }
    }

    @Test func starlingTwiceMovesMoneyOnce() async throws {
        try await withStarlingServer { _, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken, now: { fixedNow })
            let identity = SaveIdentity(source: "starling " + url.absoluteString, account: api.primary.accountUid)
            try await Self.saveTwice(api: api, kind: "starling", currency: .gbp, identity: identity)
        }
    }

    /// The first `losing` answers to transfers are lost after the server applied them: with two,
    /// the run's send and its check at once both fail, the next run sends the same transfer
    /// again, and the money moved once; with one, the run's own check finds it moved.
    actor LosingFirstTransfer: ServeHandler {
        let inner: DemoAPIHandler
        let losing: Int
        var lost = 0
        init(backend: DemoBackend, losing: Int = 2) {
            inner = DemoAPIHandler(backend: backend)
            self.losing = losing
        }

        func handle(_ request: ServeRequest) async -> ServeResponse {
            let response = await inner.handle(request)
            if request.path.hasSuffix("/transfers") && lost < losing {
                lost += 1
                return .error(500, "lost on the way")
            }
            return response
        }
    }

    /// One lost answer: the run checks at once with the same transfer, and says the money moved,
    /// by this run, once; the server saw two requests of one key and moved once.
    @Test func aRunChecksALostAnswerAtOnceAndSaysItMoved() async throws {
        let backend = DemoBackend(now: fixedNow)
        try await withServer(handler: LosingFirstTransfer(backend: backend, losing: 1)) { server, api in
            let identity = SaveIdentity(source: "qapital test", account: "")
            let record = MemoryRoundUpRecord()
            let before = try #require(try await api.goals().first { $0.name == "Balloons" }).balance
            let (context, out) = commandContext(api, format: .table, kind: "qapital", saver: RoundUpSaver(identity: identity, record: record))
            let week = try context.week("last")
            try await RoundUpsCommands.save(context, week: week, goal: "Balloons", dryRun: false, yes: true) { _ in nil }
            let after = try #require(try await api.goals().first { $0.name == "Balloons" }).balance
            let moved = after - before
            #expect(moved.minorUnits > 0)
            #expect(out.value == "saved \(moved.formatted) into Balloons: its balance is now \(after.formatted) "
                    + "(its first answer was lost; checking found it moved once)\n")
            let posts = await server.receivedRequests().filter { $0.method == "POST" }
            #expect(posts.count == 2)
            #expect(record.parts(week: week.isoLabel).map(\.state) == [.saved])
        }
    }

    @Test func aSaveWhoseAnswerIsLostMovesMoneyOnce() async throws {
        let backend = DemoBackend(now: fixedNow)
        try await withServer(handler: LosingFirstTransfer(backend: backend)) { server, api in
            let directory = CommandSaveTests.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let identity = SaveIdentity(source: "qapital test", account: "")
            func saver() -> RoundUpSaver { RoundUpSaver(identity: identity, record: RoundUpRecordFile(directory: directory, identity: identity)) }
            let before = try #require(try await api.goals().first { $0.name == "Balloons" }).balance

            let (first, _) = commandContext(api, format: .table, kind: "qapital", saver: saver())
            let week = try first.week("last")
            do {
                try await RoundUpsCommands.save(first, week: week, goal: "Balloons", dryRun: false, yes: true) { _ in nil }
                Issue.record("expected a failure")
            } catch let failure as CommandFailure {
                #expect(failure.status == .failed)
                #expect(failure.message.contains(" into Balloons may have moved: POST /savingsgoals/1/transfers: HTTP 500: lost on the way"),
                        "\(failure.message)")
                #expect(failure.message.hasSuffix("the next save checks with the same transfer, which moves it once"))
            }
            let (second, secondOut) = commandContext(api, format: .table, kind: "qapital", saver: saver())
            try await RoundUpsCommands.save(second, week: week, goal: "Balloons", dryRun: false, yes: true) { _ in nil }
            // The first run's transfer had landed: sent again, it is answered as before (issue 37.8).
            #expect(secondOut.value.hasPrefix("saved ") && secondOut.value.contains("by the earlier run, whose answer was lost; nothing moved now"),
                    "\(secondOut.value)")
            let after = try #require(try await api.goals().first { $0.name == "Balloons" }).balance
            let moved = after - before
            #expect(moved.minorUnits > 0)
            let (third, thirdOut) = commandContext(api, format: .table, kind: "qapital", saver: saver())
            try await RoundUpsCommands.save(third, week: week, goal: "Balloons", dryRun: false, yes: true) { _ in nil }
            #expect(thirdOut.value.hasPrefix("already saved on "))
            #expect(try #require(try await api.goals().first { $0.name == "Balloons" }).balance == after)
            let posts = await server.receivedRequests().filter { $0.method == "POST" }
            #expect(posts.count == 3)
            // Both carried the week's key.
            let feed = try await api.feed(goalId: 1)
            #expect(feed.filter { $0.id == identity.weekKey(week).uuidString.lowercased() }.count == 1)
            #expect(feed.first { $0.id == identity.weekKey(week).uuidString.lowercased() }?.amount == moved)
        }
    }
}

/// `activity` and `export` through `serve` in both APIs: every format holds every row.
@Suite(.timeLimit(.minutes(1))) struct CommandServeFormatTests {
    /// RFC 4180 fields of one CSV document (quoted fields may hold commas, quotes and line breaks).
    static func csvRows(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            if quoted {
                if character == "\"" {
                    if characters.first == "\"" { field.append("\""); characters.removeFirst() } else { quoted = false }
                } else {
                    field.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                row.append(field); field = ""
            } else if character == "\n" {
                row.append(field); rows.append(row); row = []; field = ""
            } else {
                field.append(character)
            }
        }
        return rows
    }

    static func check(api: any SavingsAPI, kind: String, currency: Currency) async throws {
        let since = fixedNow.addingTimeInterval(-90 * 86_400)
        let (csv, csvOut) = commandContext(api, format: .csv, kind: kind, currency: currency)
        let totals = try await ActivityExport.run(csv, kind: .export, since: since, until: fixedNow, goal: nil)
        #expect(totals.rows > 20)
        let rows = Self.csvRows(csvOut.value)
        #expect(rows.first == ["time", "amount", "currency", "minor_units", "goal", "goal_id", "user_id", "message", "id"])
        #expect(rows.count == totals.rows + 1)
        #expect(rows.allSatisfy { $0.count == 9 })
        // Every row has its own id (issue 36).
        let ids = rows.dropFirst().map { $0[8] }
        #expect(!ids.contains("") && Set(ids).count == ids.count)
        // Each row's amount and minor units agree, and sum to the total.
        var sum: Int64 = 0
        for row in rows.dropFirst() {
            let minor = try #require(Int64(row[3]))
            #expect(Money(string: row[1], currency: currency)?.minorUnits == minor)
            #expect(row[2] == currency.code)
            sum += minor
        }
        #expect(sum == totals.total?.minorUnits)

        let (json, jsonOut) = commandContext(api, format: .json, kind: kind, currency: currency)
        try await ActivityExport.run(json, kind: .export, since: since, until: fixedNow, goal: nil)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(jsonOut.value.utf8)) as? [String: Any])
        #expect(document["schema"] as? String == "qapital-tui.activity" && document["version"] as? Int == 1)
        let activities = try #require(document["activities"] as? [[String: Any]])
        #expect(activities.count == totals.rows)
        let times = activities.compactMap { ($0["time"] as? String).flatMap(Timestamp.parse) }
        #expect(times.count == activities.count && times == times.sorted(by: >))

        let (table, tableOut) = commandContext(api, format: .table, kind: kind, currency: currency)
        try await ActivityExport.run(table, kind: .export, since: since, until: fixedNow, goal: nil)
        #expect(tableOut.lines.count == totals.rows + 1)
        #expect(tableOut.lines.first?.hasPrefix("TIME") == true && tableOut.lines.first?.contains("AMOUNT  GOAL") == true)

        // --goal keeps that goal's rows only.
        let goal = try #require(try await api.goals().first { $0.name == "Balloons" })
        let (one, _) = commandContext(api, format: .csv, kind: kind, currency: currency)
        let only = try await ActivityExport.run(one, kind: .activity, since: since, until: fixedNow, goal: goal.id.rawValue)
        #expect(only.rows == 0 || Set(only.perGoal.keys) == ["Balloons"])
        #expect(only.perGoal["Balloons"] == totals.perGoal["Balloons"])
    }

    @Test func qapital() async throws {
        try await withDemoServer(backend: DemoBackend(now: fixedNow)) { _, api in
            try await Self.check(api: api, kind: "qapital", currency: .usd)
        }
    }

    @Test func starling() async throws {
        try await withStarlingServer { _, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken, now: { fixedNow })
            try await Self.check(api: api, kind: "starling", currency: .gbp)
        }
    }
}

/// `roundups` on Up: Up's own round-ups, said to be made (and moved) by the bank; `--save` refuses in one line.
@Suite(.timeLimit(.minutes(1))) struct UpCommandTests {
    @Test func roundUpsAreTheBanksAndSaveRefuses() async throws {
        try await withUpServer { _, url in
            let api = try await UpAPI.connect(baseURL: url, token: UpDemoAPI.testToken, now: { fixedNow })
            let (listed, out) = commandContext(api, format: .table, kind: "up", currency: api.accountCurrency)
            var list = listed
            list.noMoneyMoves = UpAPI.cannotMoveMoney
            try await RoundUpsCommands.list(list, week: try list.week("last"))
            #expect(out.value.contains("made by the bank"))
            #expect(!out.value.contains("not saved"))
            #expect(out.value.contains(UpAPI.cannotMoveMoney))
            let (saving, saveOut) = commandContext(api, format: .table, kind: "up", currency: api.accountCurrency)
            var save = saving
            save.noMoneyMoves = UpAPI.cannotMoveMoney
            do {
                try await RoundUpsCommands.save(save, week: try save.week("last"), goal: "Balloons", dryRun: false, yes: true) { _ in nil }
                Issue.record("a save on Up did not refuse")
            } catch let failure as CommandFailure {
                #expect(failure.message == UpAPI.cannotMoveMoney && failure.status == .failed)
            }
            #expect(saveOut.value.isEmpty)
        }
    }
}
