import Commands
import FeedModel
import Foundation
import PropertyBased
import Testing
import TestSupport

/// `export --output ledger` on a source that says the balance of what Activity lists
/// (`Account.feedBalance`, SimpleFIN's): the journal opens with that balance less what its rows
/// move, so the account's balance in the journal is the source's, whatever the rows, and the
/// closing assertion says so to hledger. Only a whole account's journal gets one.
@Suite(.timeLimit(.minutes(1))) struct LedgerOpeningTests {
    static let day: TimeInterval = 86_400
    static let dog = Goal(id: GoalID("dog"), name: "Dog", ownerId: 1, target: nil, balance: .zero(.usd))

    /// One generated row: its kind (0 saving, 1 into a goal, 2 other, 3 void), amount, goal, age.
    struct Row: Sendable { var kind: Int; var minor: Int64; var inDog: Bool; var minutesAgo: Int }

    static func activity(_ row: Row, index: Int) -> Activity {
        let kinds: [Activity.Kind] = [.saving, .moveToGoal, .other, .void]
        return Activity(id: "row-\(index)", message: MarkupText(runs: [.init("row \(index)")]), amount: Money(minorUnits: row.minor, currency: .usd),
                        userId: 1, timestamp: fixedNow.addingTimeInterval(-Double(row.minutesAgo) * 60), kind: kinds[row.kind],
                        goalId: row.inDog ? dog.id : nil)
    }

    static func api(_ activities: [Activity], balance: Money?, oldest: Date) -> FakeSavingsAPI {
        let api = FakeSavingsAPI(sourceName: "fake")
        api.script { script in
            script.goals = { [dog] }
            script.activities = { from, to in
                ActivityPage(oldest: oldest, activities: activities.filter { $0.timestamp >= from && $0.timestamp < to })
            }
            script.account = {
                var account = Account(id: "A", name: "Checking", currency: .usd, createdAt: oldest)
                account.feedBalance = balance.map { FeedBalance(amount: $0, asOf: fixedNow, accounts: "Checking") }
                return account
            }
            script.saysFeedBalance = balance != nil
        }
        return api
    }

    /// The journal's `assets:fake:account` postings, summed, in minor units.
    static func accountBalance(_ journal: String) -> Int64? {
        var sum: Int64 = 0
        for line in journal.split(separator: "\n") where line.hasPrefix("    assets:fake:account  ") {
            let amount = line.dropFirst("    assets:fake:account  ".count).split(separator: " ").first.map(String.init) ?? ""
            guard let money = Money(string: amount, currency: .usd) else { return nil }
            sum += money.minorUnits
        }
        return sum
    }

    static func export(_ api: FakeSavingsAPI, until: Date? = nil, goal: String? = nil, new: Bool = false,
                       mark: ExportMark? = nil) async throws -> (journal: String, notes: [String]) {
        let (base, out) = commandContext(api, format: .ledger, kind: "fake", currency: .usd)
        let notes = Locked<[String]>([])
        let context = CommandContext(api: base.api, sourceKind: base.sourceKind, currency: base.currency, format: .ledger,
                                     output: base.output, calendar: base.calendar, now: base.now, saver: base.saver,
                                     note: { line in notes.withLock { $0.append(line) } })
        try await ActivityExport.run(context, kind: .export, since: nil, until: until, goal: goal, new: new, mark: mark)
        return (out.value, notes.withLock { $0 })
    }

    @Test func theJournalsBalanceIsTheSourcesWhateverTheRows() async {
        let rows = zip(Gen.int(in: 0...3), Gen.int64(in: -500_000...500_000), Gen.bool, Gen.int(in: 0...(400 * 24 * 60)))
            .map { Row(kind: $0.0, minor: $0.1, inDog: $0.2, minutesAgo: $0.3) }
            .array(of: 0...40)
        await propertyCheck(count: 60, input: rows, Gen.int64(in: -10_000_000...10_000_000)) { rows, balance in
            let activities = rows.enumerated().map { Self.activity($1, index: $0) }
            let oldest = fixedNow.addingTimeInterval(-401 * Self.day)
            do {
                let (journal, notes) = try await Self.export(Self.api(activities, balance: Money(minorUnits: balance, currency: .usd),
                                                                      oldest: oldest))
                #expect(Self.accountBalance(journal) == balance, "\(journal)")
                #expect(journal.contains("    assets:fake:account  0.00 USD = \(Cell.ledgerAmount(Money(minorUnits: balance, currency: .usd)))"))
                #expect(notes.allSatisfy { !$0.contains("no opening") })
                // The opening is dated where the walk stopped, the assertion on or after every row.
                let days = journal.split(separator: "\n").filter { $0.first?.isNumber == true }.map { String($0.prefix(10)) }
                let openingDay = journal.split(separator: "\n").first { $0.hasSuffix(" opening balance") }.map { String($0.prefix(10)) }
                let assertionDay = journal.split(separator: "\n").first { $0.hasSuffix(" balance as fake says") }.map { String($0.prefix(10)) }
                #expect(openingDay != nil && days.allSatisfy { $0 >= openingDay! })
                #expect(assertionDay != nil && days.allSatisfy { $0 <= assertionDay! })
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    /// One goal's rows, rows up to a day in the past, or rows appended to an earlier journal: no
    /// opening (the balance is the whole account's, now). A row in another currency: none, and said.
    @Test func onlyAWholeAccountsJournalOpens() async throws {
        let rows = [Row(kind: 2, minor: -1_234, inDog: false, minutesAgo: 60), Row(kind: 1, minor: -500, inDog: true, minutesAgo: 3_000)]
        let activities = rows.enumerated().map { Self.activity($1, index: $0) }
        let api = Self.api(activities, balance: Money(minorUnits: 10_000, currency: .usd), oldest: fixedNow.addingTimeInterval(-30 * Self.day))
        #expect(try await Self.export(api).journal.contains("opening balance"))
        #expect(try await !Self.export(api, goal: "Dog").journal.contains("opening balance"))
        #expect(try await !Self.export(api, until: fixedNow.addingTimeInterval(-Self.day)).journal.contains("opening balance"))
        let first = ExportMark(newest: fixedNow.addingTimeInterval(-2 * 60 * 60), atNewest: ["row-1"])
        #expect(try await !Self.export(api, new: true, mark: first).journal.contains("opening balance"))
        // The first `--new` run opens the journal but asserts nothing: later runs append to it.
        let opened = try await Self.export(api, new: true).journal
        #expect(opened.contains("opening balance") && !opened.contains(" = "))
        #expect(Self.accountBalance(opened) == 10_000)
        // No balance from the source: the journal as before, and the account is not asked for
        // (for a bank that would be one more request).
        let asked = Locked(0)
        let plain = Self.api(activities, balance: nil, oldest: .distantPast)
        plain.script { $0.account = { asked.withLock { $0 += 1 }; return nil } }
        #expect(try await !Self.export(plain).journal.contains("opening balance"))
        #expect(asked.withLock { $0 } == 0)
        // A row in euros among dollars (a card in another currency): its own commodity; the
        // opening and the assertion are in dollars, and hledger finds them true.
        var mixed = activities
        mixed.append(Activity(id: "eur", message: MarkupText(runs: [.init("abroad")]), amount: Money(minorUnits: -100, currency: .eur),
                              userId: 1, timestamp: fixedNow.addingTimeInterval(-600), kind: .other))
        let (journal, notes) = try await Self.export(Self.api(mixed, balance: Money(minorUnits: 10_000, currency: .usd),
                                                              oldest: fixedNow.addingTimeInterval(-30 * Self.day)))
        #expect(journal.contains("opening balance") && journal.contains("-1.00 EUR"), "\(journal)")
        let dollars = journal.split(separator: "\n").filter { $0.hasSuffix(" USD") }.joined(separator: "\n")
        #expect(Self.accountBalance(dollars) == 10_000)
        #expect(!notes.contains { $0.hasPrefix("no opening balance") }, "\(notes)")
        // Real hledger (.ci/run installs it; without it this throws): the assertion holds.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mixed-\(UUID().uuidString).journal")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(journal.utf8).write(to: file)
        let balance = try HledgerTool.run(file, ["balance", "assets:fake:account", "--flat"])
        #expect(balance.contains("100.00 USD") && balance.contains("-1.00 EUR"), "\(balance)")
    }
}
