import Commands
import FeedCache
import FeedModel
import Foundation
import MonzoClient
import PropertyBased
import StarlingClient
import Testing
import TestSupport
import UpClient

/// Issue 36, "Invariants, tested as properties": generated feeds per source mapping (random ids,
/// look-alike transactions, equal timestamps, items on window edges, answers split into pages
/// anywhere with the page edges repeated, pending items that later settle at another time,
/// duplicate deliveries across windows, out-of-range amounts), each record written as the bank
/// writes it and read through that source's own decoding and mapping, then served window by
/// window. Checked: every id the bank sent (that is in range) appears exactly once in
/// `activity --output json`, in `export` as JSON, CSV and ledger, and in the offline cache after
/// a restart, and nothing else appears; the JSON and CSV sums equal the sum of the bank's amounts
/// in minor units; each transfer into a goal is credited to the goal the bank names by id (two
/// goals share a name). A bounded number of cases here; set `QT_PROPERTY_CASES` for a longer run.
@Suite(.timeLimit(.minutes(2))) struct FeedInvariantTests {
    enum Source: String, CaseIterable, Sendable { case starling, monzo, up, qapital }

    static let cases = Int(ProcessInfo.processInfo.environment["QT_PROPERTY_CASES"] ?? "") ?? 20
    static let day: TimeInterval = 86_400
    static let until = fixedNow
    /// Four export windows: the history begins at the last one's start.
    static let oldest = fixedNow.addingTimeInterval(-56 * day)

    /// One transaction as the bank knows it.
    struct Record: Sendable {
        var id: String
        var time: Date
        /// Delivered once more, pending, at this other time (it settled later at `time`).
        var pendingTime: Date?
        /// Signed, as the account saw it: negative is money out.
        var minor: Int64
        /// A transfer into the goal of this index.
        var goal: Int?
        var text: String
        /// An amount past the app's bound: the mapping refuses it, nothing shows it.
        var outOfRange: Bool
    }

    struct Feed: Sendable {
        var records: [Record]
        /// Deliveries of each window answer: duplicated, split into pages, page edges repeated.
        var seed: UInt64
    }

    /// SplitMix64: the generated feed follows from the case's seed alone.
    struct Mix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func goals(_ source: Source) -> [Goal] {
        // Two goals with one name (banks only: the Qapital API names goals by name alone).
        let names = source == .qapital ? ["Holiday", "Bike", "Dog"] : ["Holiday", "Holiday", "Bike"]
        return names.enumerated().map { index, name in
            let id: GoalID = switch source {
            case .starling: GoalID("5031325f-49b2-4c8c-b9cb-3f5cfa7f6d6\(index)")
            case .monzo: GoalID("pot_0000\(index)")
            case .up: GoalID("saver-\(index)")
            case .qapital: GoalID(index + 1)
            }
            return Goal(id: id, name: name, ownerId: 1, target: nil, balance: Money(minorUnits: 0, currency: currency(source)))
        }
    }

    static func currency(_ source: Source) -> Currency {
        switch source {
        case .starling, .monzo: .gbp
        case .up: Currency.from(code: "AUD")!
        case .qapital: .usd
        }
    }

    static func feed(seed: UInt64, size: Int, source: Source) -> Feed {
        var random = Mix(state: seed)
        let edges = (1...3).map { until.addingTimeInterval(-Double($0) * 14 * day) }
        let busy = (0..<3).map { _ in until.addingTimeInterval(-Double(Int.random(in: 60...(55 * 86_400), using: &random))) }
        func moment() -> Date {
            switch Int.random(in: 0..<6, using: &random) {
            case 0: edges.randomElement(using: &random)!
            case 1: edges.randomElement(using: &random)!.addingTimeInterval(Bool.random(using: &random) ? 0.001 : -0.001)
            case 2, 3: busy.randomElement(using: &random)!
            default: until.addingTimeInterval(-Double(Int.random(in: 1...(56 * 86_400), using: &random)))
            }
        }
        let alphabet = Array("abcdef0123456789-_, ;%")
        var records: [Record] = []
        for index in 0..<size {
            let prefix = String((0..<Int.random(in: 1...6, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            // Unique, as a bank's ids are; random, with commas, spaces and `%` a ledger must keep.
            let id = "\(prefix)#\(index)"
            if let last = records.last, Int.random(in: 0..<4, using: &random) == 0 {
                // A look-alike: the same moment, amount and text, its own id.
                var twin = last
                twin.id = id
                twin.pendingTime = nil
                records.append(twin)
                continue
            }
            let goal: Int? = source != .qapital && Int.random(in: 0..<3, using: &random) == 0 ? Int.random(in: 0..<3, using: &random) : nil
            var minor = Int64.random(in: 1...250_000, using: &random)
            if source == .qapital {
                if Bool.random(using: &random) { minor = -minor }
            } else if goal != nil || Int.random(in: 0..<3, using: &random) > 0 {
                minor = -minor
            }
            let pending = source != .qapital && Int.random(in: 0..<5, using: &random) == 0
            records.append(Record(id: id, time: moment(), pendingTime: pending ? moment() : nil, minor: minor, goal: goal,
                                  text: ["Coffee", "Tram", "Salary", "Bakery"].randomElement(using: &random)!,
                                  outOfRange: Int.random(in: 0..<12, using: &random) == 0))
        }
        return Feed(records: records, seed: random.next())
    }

    // MARK: - Each record as its bank writes it, read by the client's own decoding and mapping

    static func iso(_ date: Date) -> String { Timestamp.feedString(date) }

    /// The bank's JSON of one record (`pending`: as it was before it settled).
    static func json(_ record: Record, pending: Bool, source: Source, goals: [Goal]) -> [String: Any] {
        let minor = record.outOfRange ? (record.minor < 0 ? -1 : 1) * 200_000_000_000_000_000 : record.minor
        let time = pending ? record.pendingTime ?? record.time : record.time
        let goal = record.goal.map { goals[$0] }
        switch source {
        case .starling:
            return ["feedItemUid": record.id, "categoryUid": "cc2d03f9-9438-4c7b-a426-ba3199740d73",
                    "amount": ["currency": "GBP", "minorUnits": minor.magnitude], "sourceAmount": ["currency": "GBP", "minorUnits": minor.magnitude],
                    "direction": minor < 0 ? "OUT" : "IN", "updatedAt": iso(time), "transactionTime": iso(time),
                    "source": goal == nil ? "MASTER_CARD" : "INTERNAL_TRANSFER", "status": pending ? "PENDING" : "SETTLED",
                    "counterPartyType": goal == nil ? "MERCHANT" : "CATEGORY",
                    "counterPartyUid": goal?.id.rawValue ?? "332a9d91-2815-4d21-a03f-62423a1a66d0",
                    "counterPartyName": goal?.name ?? record.text, "spendingCategory": goal == nil ? "SHOPPING" : "SAVING"]
        case .monzo:
            var json: [String: Any] = ["id": record.id, "created": iso(time), "amount": minor, "currency": "GBP",
                                       "description": goal?.id.rawValue ?? record.text.uppercased(), "settled": pending ? "" : iso(time),
                                       "is_load": false, "metadata": goal.map { ["pot_id": $0.id.rawValue] } ?? [String: String]()]
            json["scheme"] = goal == nil ? "mastercard" : "uk_retail_pot"
            json["merchant"] = goal == nil ? ["id": "merch_1", "name": record.text] as [String: Any] : NSNull()
            return json
        case .up:
            let value = String(format: "%@%lld.%02lld", minor < 0 ? "-" : "", minor.magnitude / 100, minor.magnitude % 100)
            let money: [String: Any] = ["currencyCode": "AUD", "value": value, "valueInBaseUnits": minor]
            return ["type": "transactions", "id": record.id,
                    "attributes": ["status": pending ? "HELD" : "SETTLED", "rawText": NSNull(), "description": goal.map { "Transfer to \($0.name)" } ?? record.text,
                                   "message": NSNull(), "isCategorizable": true, "holdInfo": NSNull(), "roundUp": NSNull(), "cashback": NSNull(),
                                   "amount": money, "foreignAmount": NSNull(), "cardPurchaseMethod": NSNull(),
                                   "settledAt": pending ? NSNull() : iso(time), "createdAt": iso(time), "transactionType": NSNull(), "note": NSNull(),
                                   "performingCustomer": NSNull()] as [String: Any],
                    "relationships": ["account": ["data": ["type": "accounts", "id": "spending"]],
                                      "transferAccount": ["data": goal.map { ["type": "accounts", "id": $0.id.rawValue] as Any } ?? NSNull()]]]
        case .qapital:
            let text = "<strong>You</strong> saved into <strong>\(goals[Int(record.minor.magnitude % 3)].name)</strong>."
            // Out of range: 2 × 10^15 dollars, past the app's bound (the list skips the record).
            let amount = record.outOfRange ? "2000000000000000" : Cell.decimal(Money(minorUnits: minor, currency: .usd))
            return ["message": text, "amount": Decimal(string: amount) ?? 0, "userId": 1, "timestamp": iso(time)]
        }
    }

    /// One window's answer: what lies in `[from, to)` (and a little that does not), each delivery
    /// perhaps twice, split into pages at random with each page's first row repeated from the last.
    static func answer(_ feed: Feed, source: Source, goals: [Goal], from: Date, to: Date) throws -> ActivityPage {
        var random = Mix(state: feed.seed ^ UInt64(bitPattern: Int64(from.timeIntervalSince1970 * 1000)))
        var deliveries: [[String: Any]] = []
        for record in feed.records {
            var moments = [(record.time, false)]
            if let pending = record.pendingTime { moments.append((pending, true)) }
            for (time, pending) in moments {
                let inside = time >= from && time < to
                // A sloppy server sometimes sends what lies outside the window, too.
                guard inside || Int.random(in: 0..<8, using: &random) == 0 else { continue }
                let json = json(record, pending: pending, source: source, goals: goals)
                deliveries.append(json)
                if source != .qapital && Int.random(in: 0..<4, using: &random) == 0 { deliveries.append(json) }
            }
        }
        var paged: [[String: Any]] = []
        var index = 0
        while index < deliveries.count {
            let size = Int.random(in: 1...4, using: &random)
            let page = deliveries[index..<min(deliveries.count, index + size)]
            // A bank's next page may start with the last row of the one before (ids tell them apart).
            if source != .qapital, let last = paged.last, Bool.random(using: &random) { paged.append(last) }
            paged.append(contentsOf: page)
            index += size
        }
        let decoder = PayloadDecoder(accountCurrency: currency(source))
        let bankBody = { (list: String) in try JSONSerialization.data(withJSONObject: [list: paged]) }
        let activities: [Activity]
        switch source {
        case .starling:
            let items = try decoder.decode(Starling.FeedItems.self, from: try bankBody("feedItems"), resource: "feed").feedItems ?? []
            activities = items.compactMap { try? StarlingMapping.activity($0) }
        case .monzo:
            let list = try decoder.decode(Monzo.TransactionList.self, from: try bankBody("transactions"), resource: "transactions")
            let pots = Dictionary(uniqueKeysWithValues: goals.map { ($0.id.rawValue, $0.name) })
            activities = (list.transactions ?? []).compactMap { try? MonzoMapping.activity($0, potNames: pots) }
        case .up:
            let list = try decoder.decode(Up.ListDocument<Up.TransactionResource>.self, from: try bankBody("data"), resource: "transactions")
            let savers = Dictionary(uniqueKeysWithValues: goals.map { ($0.id.rawValue, $0.name) })
            activities = list.data.compactMap { try? UpMapping.activity($0, savers: savers, joint: false) }
        case .qapital:
            let body = try JSONSerialization.data(withJSONObject: ["oldest": iso(oldest), "activities": paged])
            return try decoder.decode(ActivityPage.self, from: body, resource: "activities")
        }
        return ActivityPage(oldest: oldest, activities: activities)
    }

    static func api(_ feed: Feed, source: Source) -> FakeSavingsAPI {
        let goals = goals(source)
        let api = FakeSavingsAPI(base: nil, sourceName: source.rawValue)
        api.script { script in
            script.goals = { goals }
            script.activities = { from, to in try answer(feed, source: source, goals: goals, from: from, to: to) }
        }
        return api
    }

    // MARK: - The properties

    /// What an output must hold: per id (the bank's; for the Qapital API, per row) its signed
    /// amount and the goal it credits.
    struct Expected {
        var ids: [String: (minor: Int64, goal: GoalID?)] = [:]
        var qapitalRows: [String] = []
        var sum: Int64 = 0
    }

    static func expected(_ feed: Feed, source: Source) -> Expected {
        var expected = Expected()
        let goals = goals(source)
        for record in feed.records where !record.outOfRange {
            expected.sum += record.minor
            expected.ids[record.id] = (record.minor, record.goal.map { goals[$0].id })
            expected.qapitalRows.append("\(iso(record.time)) \(record.minor)")
        }
        return expected
    }

    static func check(_ feed: Feed, source: Source) async throws {
        let expected = expected(feed, source: source)
        let since = oldest
        var exported: Set<String> = []
        // JSON, `export` and `activity`.
        for kind in [ActivityExport.Kind.export, .activity] {
            let (context, out) = commandContext(api(feed, source: source), format: .json, kind: source.rawValue, currency: currency(source))
            let totals = try await ActivityExport.run(context, kind: kind, since: since, until: until, goal: nil)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(out.value.utf8)) as? [String: Any])
            let rows = try #require(document["activities"] as? [[String: Any]])
            let ids = rows.compactMap { $0["id"] as? String }
            #expect(ids.count == rows.count && Set(ids).count == ids.count, "\(kind): an id twice")
            if kind == .export { exported = Set(ids) } else { #expect(Set(ids) == exported, "activity and export differ") }
            let amounts = rows.compactMap { ($0["amount"] as? [String: Any])?["minorUnits"] as? Int64 }
            #expect(amounts.count == rows.count)
            #expect(amounts.reduce(0, +) == expected.sum, "\(kind) sum")
            #expect(totals.total?.minorUnits == expected.sum)
            if source == .qapital {
                let seen = rows.map { row in
                    "\(row["time"] as? String ?? "") \((row["amount"] as? [String: Any])?["minorUnits"] as? Int64 ?? 0)"
                }
                #expect(seen.count == expected.qapitalRows.count, "\(kind): every row the API sent, once")
                // The Qapital API names goals by name alone (names unique here): the goal its message names.
                for row in rows {
                    let name = (row["goal"] as? [String: Any])?["name"] as? String ?? "none"
                    #expect((row["message"] as? String)?.hasSuffix("into \(name).") == true, "credited to \(name)")
                }
            } else {
                #expect(Set(ids) == Set(expected.ids.keys), "\(kind): exactly the bank's ids")
                for row in rows {
                    guard let id = row["id"] as? String, let want = expected.ids[id] else { continue }
                    let goal = (row["goal"] as? [String: Any])?["id"] as? String
                    #expect(goal == want.goal?.rawValue, "\(id): credited to \(goal ?? "none"), the bank named \(want.goal?.rawValue ?? "none")")
                }
            }
        }
        // CSV: the id column and the minor units column.
        let (csv, csvOut) = commandContext(api(feed, source: source), format: .csv, kind: source.rawValue, currency: currency(source))
        try await ActivityExport.run(csv, kind: .export, since: since, until: until, goal: nil)
        let rows = CommandServeFormatTests.csvRows(csvOut.value).dropFirst()
        #expect(rows.allSatisfy { $0.count == 9 })
        #expect(rows.compactMap { Int64($0[3]) }.reduce(0, +) == expected.sum, "CSV sum")
        let csvIds = rows.map { $0[8] }
        #expect(Set(csvIds).count == csvIds.count)
        // An id is a text cell like any other: one starting as a formula would is defused the same way.
        let asCells = Set(expected.ids.keys.map { CommandServeFormatTests.csvRows(Cell.csv($0) + "\n").first?.first ?? "" })
        if source != .qapital { #expect(Set(csvIds) == asCells, "CSV ids") }
        // Ledger: the `id:` tag of every transaction, read back.
        let (ledger, ledgerOut) = commandContext(api(feed, source: source), format: .ledger, kind: source.rawValue, currency: currency(source))
        try await ActivityExport.run(ledger, kind: .export, since: since, until: until, goal: nil)
        let tags = ledgerOut.lines.compactMap { line in
            line.range(of: ", id: ").map { String(line[$0.upperBound...]).removingPercentEncoding ?? "" }
        }
        #expect(Set(tags).count == tags.count && Set(tags) == exported, "ledger ids")
        // The offline cache after a restart: each id once, the same ids.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("qt-invariants-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let baseURL = URL(string: "http://127.0.0.1:9/\(source.rawValue)")!
        do {
            let cache = try #require(SQLiteCache.open(directory: directory, baseURL: baseURL, accountCurrency: currency(source), now: until).cache)
            let caching = CachingSavingsAPI(remote: api(feed, source: source), cache: cache, now: { until })
            let (context, _) = commandContext(caching, format: .csv, kind: source.rawValue, currency: currency(source))
            try await ActivityExport.run(context, kind: .export, since: since, until: until, goal: nil)
            cache.checkpoint()
        }
        let reopened = try #require(SQLiteCache.open(directory: directory, baseURL: baseURL, accountCurrency: currency(source), now: until).cache)
        let kept = await reopened.activities(from: since, to: until, allowPartial: true)?.value.activities ?? []
        let inside = kept.filter { $0.timestamp >= since && $0.timestamp < until }
        #expect(Set(inside.map(\.id)).count == inside.count, "cache: an id twice")
        #expect(Set(inside.map(\.id)) == exported, "cache: the ids the export wrote")
        #expect(inside.reduce(0) { $0 + $1.amount.minorUnits } == expected.sum, "cache sum")
    }

    @Test(arguments: Source.allCases)
    func everyIdOnceEverySumTheBanksEveryGoalTheNamedOne(source: Source) async {
        await propertyCheck(count: Self.cases, input: Gen.uint64(), Gen.int(in: 0...24)) { seed, size in
            let feed = Self.feed(seed: seed, size: size, source: source)
            do {
                try await Self.check(feed, source: source)
            } catch {
                Issue.record("\(source) seed \(seed) size \(size): \(error)")
            }
        }
    }

    /// Real hledger reads a generated export whole, and its `id` tags are the exported ids.
    @Test(.enabled(if: HledgerTool.runs, HledgerTool.skipped),
          arguments: Source.allCases)
    func hledgerReadsEveryIdOfAGeneratedExport(source: Source) async throws {
        let feed = Self.feed(seed: 36, size: 24, source: source)
        let (json, jsonOut) = commandContext(Self.api(feed, source: source), format: .json, kind: source.rawValue, currency: Self.currency(source))
        try await ActivityExport.run(json, kind: .export, since: Self.oldest, until: Self.until, goal: nil)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(jsonOut.value.utf8)) as? [String: Any])
        let ids = Set((document["activities"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
        #expect(ids.count > 10)
        let (ledger, ledgerOut) = commandContext(Self.api(feed, source: source), format: .ledger, kind: source.rawValue, currency: Self.currency(source))
        try await ActivityExport.run(ledger, kind: .export, since: Self.oldest, until: Self.until, goal: nil)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("qt-ids-\(UUID().uuidString).journal")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(ledgerOut.value.utf8).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ExternalTool.hledger.require())
        process.arguments = ["-f", file.path, "tags", "id", "--values"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let tags = output.split(separator: "\n").map { String($0).removingPercentEncoding ?? "" }
        #expect(Set(tags) == ids && tags.count == ids.count)
    }

    /// The generator makes what the properties are about (else they would hold vacuously).
    @Test func theGeneratedFeedsHoldTheHardCases() {
        var lookAlikes = 0, onEdges = 0, pending = 0, outOfRange = 0, transfers = 0
        let edges = Set((1...3).map { Self.until.addingTimeInterval(-Double($0) * 14 * Self.day) })
        for seed in 0..<40 {
            let records = Self.feed(seed: UInt64(seed), size: 24, source: .starling).records
            for (one, next) in zip(records, records.dropFirst()) where one.time == next.time && one.minor == next.minor && one.text == next.text {
                lookAlikes += 1
            }
            onEdges += records.filter { edges.contains($0.time) }.count
            pending += records.filter { $0.pendingTime != nil }.count
            outOfRange += records.filter(\.outOfRange).count
            transfers += records.filter { $0.goal != nil }.count
        }
        #expect(lookAlikes > 20 && onEdges > 20 && pending > 20 && outOfRange > 20 && transfers > 20)
    }
}
