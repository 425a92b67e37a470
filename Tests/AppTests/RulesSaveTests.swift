import Commands
import DemoData
import FeedModel
import Foundation
import PropertyBased
import Testing
import TestSupport
@testable import qapital_tui

/// `rules --save` (RULES.md, "Settling a week"): every due (rule, period) moved once, the
/// round-up rule's week shared with the Round-ups tab, the limit and the floor held, a lost answer
/// sent again under its key; and as a property over runs on two machines with lost answers.
@Suite(.serialized) struct RulesSaveTests {
    static let calendar = Week.calendar(in: TimeZone(identifier: "Europe/London")!)
    static let last = Week(containing: fixedNow, calendar: calendar).previous

    /// Three rules owing from three weeks before last week.
    static func file(limit: String? = nil, floor: String? = nil) throws -> RulesFile {
        let parts = calendar.dateComponents([.year, .month, .day], from: last.previous.previous.start)
        let since = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        return try RulesFileTOML.parse("""
            [rules]
            \(limit.map { "weekly-limit = \"\($0)\"" } ?? "")
            \(floor.map { "keep-at-least = \"\($0)\"" } ?? "")

            [[rule]]
            name = "round-ups"
            kind = "roundup"
            goal = "Balloons"
            since = \(since)

            [[rule]]
            name = "coffee"
            kind = "guilty-pleasure"
            goal = "Vacation"
            amount = "2.00"
            match = ["Blue Bottle", "Starbucks"]
            since = \(since)

            [[rule]]
            name = "weekly"
            kind = "set-and-forget"
            goal = "A Rainy Day"
            amount = "5.00"
            since = \(since)
            """, file: "rules.toml", currency: .usd, calendar: calendar)
    }

    /// One machine: its own records, the shared server behind `api`.
    struct Machine {
        let roundUps = MemoryRoundUpRecord()
        let rules = MemoryRoundUpRecord()

        func context(_ api: any SavingsAPI) -> (CommandContext, CapturedOutput) {
            var (context, out) = commandContext(api, format: .table, saver: RoundUpSaver(identity: .demo, record: roundUps),
                                                timeZone: RulesSaveTests.calendar.timeZone)
            context.rules = rules
            return (context, out)
        }
    }

    /// What every rule owes over the three weeks, by goal name, worked out by the figures alone.
    static func owed(_ api: any SavingsAPI, file: RulesFile) async throws -> [String: Int64] {
        var owed: [String: Int64] = [:]
        let (context, _) = Machine().context(api)
        for week in [last.previous.previous, last.previous, last] {
            for line in try await RulesCommands.lines(context, file: file, week: week) {
                owed[line.goal.name, default: 0] += line.figure?.amount.minorUnits ?? 0
            }
        }
        return owed
    }

    static func balances(_ api: any SavingsAPI) async throws -> [String: Int64] {
        Dictionary(try await api.goals().map { ($0.name, $0.balance.minorUnits) }, uniquingKeysWith: { a, _ in a })
    }

    static func moved(from before: [String: Int64], to after: [String: Int64]) -> [String: Int64] {
        after.compactMapValues { $0 }.reduce(into: [:]) { moved, entry in
            let change = entry.value - (before[entry.key] ?? 0)
            if change != 0 { moved[entry.key] = change }
        }
    }

    @Test func eachDuePeriodMovesOnceAndTheRoundUpsWeekIsShared() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "demo")
        let file = try Self.file()
        let owed = try await Self.owed(api, file: file).filter { $0.value != 0 }
        #expect(owed.count == 3 && owed["A Rainy Day"] == 1_500, "\(owed)")
        let machine = Machine()
        let before = try await Self.balances(api)
        let (context, out) = machine.context(api)
        try await RulesCommands.save(context, file: file, through: Self.last, dryRun: false, yes: true, confirm: { _ in nil })
        #expect(Self.moved(from: before, to: try await Self.balances(api)) == owed, "\(out.value)")

        // Again: nothing is sent, and the run is quiet (the timer's run).
        let sent = api.calls.count { if case .transfer = $0 { true } else { false } }
        let (again, said) = machine.context(api)
        try await RulesCommands.save(again, file: file, through: Self.last, dryRun: false, yes: true, confirm: { _ in nil })
        #expect(api.calls.count { if case .transfer = $0 { true } else { false } } == sent)
        #expect(said.value.isEmpty, "\(said.value)")
        #expect(Self.moved(from: before, to: try await Self.balances(api)) == owed)

        // Another machine (records of its own): every transfer is the bank's replay of its key,
        // said as such, and nothing moves.
        let (elsewhere, elsewhereSaid) = Machine().context(api)
        try await RulesCommands.save(elsewhere, file: file, through: Self.last, dryRun: false, yes: true, confirm: { _ in nil })
        let lines = elsewhereSaid.value.split(separator: "\n")
        #expect(lines.count == 9 && lines.allSatisfy { $0.hasSuffix("already saved by another run or machine; nothing moved") },
                "\(elsewhereSaid.value)")
        #expect(Self.moved(from: before, to: try await Self.balances(api)) == owed)
        let sentByBoth = api.calls.count { if case .transfer = $0 { true } else { false } }
        #expect(sentByBoth == 2 * sent)

        // The round-up rule's week is the Round-ups tab's: `roundups --save` finds it saved.
        let (roundUps, roundUpsSaid) = machine.context(api)
        try await RoundUpsCommands.save(roundUps, week: Self.last, goal: "Dog", dryRun: false, yes: true, confirm: { _ in nil })
        #expect(roundUpsSaid.value.hasPrefix("already saved"), "\(roundUpsSaid.value)")
        #expect(api.calls.count { if case .transfer = $0 { true } else { false } } == sentByBoth)
    }

    @Test func theWeeklyLimitHoldsWhatDoesNotFitAndALaterRunMovesIt() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "demo")
        let machine = Machine()
        let before = try await Self.balances(api)
        let (context, out) = machine.context(api)
        // $6 a week: the weekly $5 fits only where the rules above it left room.
        await #expect {
            try await RulesCommands.save(context, file: try Self.file(limit: "6.00"), through: Self.last, dryRun: false, yes: true,
                                         confirm: { _ in nil })
        } throws: { ($0 as? CommandFailure)?.status == .skipped }
        #expect(out.value.contains("held: ") && out.value.contains("weekly limit"), "\(out.value)")
        let moved = Self.moved(from: before, to: try await Self.balances(api))
        // No week moved more than the limit.
        #expect(moved.values.reduce(0, +) <= 3 * 600, "\(moved)")
        // The limit raised: what was held moves now, and nothing twice.
        let (later, _) = machine.context(api)
        try await RulesCommands.save(later, file: try Self.file(limit: "500.00"), through: Self.last, dryRun: false, yes: true,
                                     confirm: { _ in nil })
        let owed = try await Self.owed(api, file: try Self.file()).filter { $0.value != 0 }
        #expect(Self.moved(from: before, to: try await Self.balances(api)) == owed)
    }

    @Test func theFloorHoldsAMoveThatWouldLeaveTooLittle() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "demo")
        api.script { $0.account = { Account(id: "a", name: "Main", currency: .usd, createdAt: fixedNow, effectiveBalance: Money(minorUnits: 10_300, currency: .usd)) } }
        let before = try await Self.balances(api)
        let (context, out) = Machine().context(api)
        await #expect {
            try await RulesCommands.save(context, file: try Self.file(floor: "100.00"), through: Self.last, dryRun: false, yes: true,
                                         confirm: { _ in nil })
        } throws: { ($0 as? CommandFailure)?.status == .skipped }
        #expect(out.value.contains("weekly 2026-W46: held: would leave $98.00, under the $100.00 you keep"), "\(out.value)")
        // Each move is checked against the balance the bank gives just before it ($103.00 here,
        // which this fake never lowers): what leaves $100.00 moved, the $5.00 a week never did.
        let amounts = api.calls.compactMap { call -> Int64? in if case .transfer(_, _, let amount) = call { amount.minorUnits } else { nil } }
        #expect(!amounts.isEmpty && amounts.allSatisfy { $0 <= 300 }, "\(amounts)")
        #expect(Self.moved(from: before, to: try await Self.balances(api))["A Rainy Day"] == nil)
    }

    @Test func aLostAnswerIsSentAgainUnderItsKeyAndMovesOnce() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "demo")
        let file = try Self.file()
        let owed = try await Self.owed(api, file: file).filter { $0.value != 0 }
        let before = try await Self.balances(api)
        let machine = Machine()
        // The first transfer applies, its answer is lost, and so is the check's.
        api.script { $0.transferFaults = [.afterApplying, .afterApplying] }
        let (context, _) = machine.context(api)
        await #expect {
            try await RulesCommands.save(context, file: file, through: Self.last, dryRun: false, yes: true, confirm: { _ in nil })
        } throws: { error in
            guard let failure = error as? CommandFailure else { return false }
            #expect(failure.message.contains("may have"), "\(failure.message)")
            return failure.status == .failed
        }
        let (next, said) = machine.context(api)
        try await RulesCommands.save(next, file: file, through: Self.last, dryRun: false, yes: true, confirm: { _ in nil })
        #expect(Self.moved(from: before, to: try await Self.balances(api)) == owed, "\(said.value)")
    }

    /// Any schedule of runs on two machines (each with its own records), each run losing the
    /// answers of some transfers after or before the server applied them; then one clean run on
    /// each: every (rule, period) moved exactly once.
    @Test func everyPeriodMovesOnceWhateverTheRunsAndTheLostAnswers() async throws {
        let file = try Self.file()
        let owedOnce = try await Self.owed(FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow))), file: file)
            .filter { $0.value != 0 }
        // The transfers of a run lose their answers in turn, after or before the server applied them.
        let faults = Gen.int(in: 0...1).map { [FakeSavingsAPI.TransferFault.afterApplying, .beforeApplying][$0] }.array(of: 0...4)
        let runs = PropertyBased.zip(Gen.int(in: 0...1), faults).array(of: 1...5)
        await propertyCheck(count: 40, input: runs) { schedule in
            let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "demo")
            let before = try! await Self.balances(api)
            let machines = [Machine(), Machine()]
            for (which, lost) in schedule {
                api.script { $0.transferFaults = lost }
                let (context, _) = machines[which].context(api)
                do {
                    try await RulesCommands.save(context, file: file, through: Self.last, dryRun: false, yes: true, confirm: { _ in nil })
                } catch let failure as CommandFailure {
                    #expect(failure.status == .failed, "\(failure.message)")
                } catch {
                    Issue.record("a run failed with \(error)")
                }
            }
            api.script { $0.transferFaults = [] }
            for machine in machines {
                let (context, _) = machine.context(api)
                try! await RulesCommands.save(context, file: file, through: Self.last, dryRun: false, yes: true, confirm: { _ in nil })
            }
            #expect(Self.moved(from: before, to: try! await Self.balances(api)) == owedOnce, "\(schedule)")
        }
    }

    /// A rule written without `since` owes from the week it was first read in, kept in the
    /// record: never a week before it was first seen, whatever a later run is asked.
    @Test func aRuleWithoutSinceNeverOwesAWeekBeforeItWasFirstRead() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "demo")
        let file = try RulesFileTOML.parse("[[rule]]\nname = \"weekly\"\nkind = \"set-and-forget\"\ngoal = \"Dog\"\namount = \"5\"",
                                           file: "rules.toml", currency: .usd, calendar: Self.calendar)
        let machine = Machine()
        let (context, _) = machine.context(api)
        let lines = try await RulesCommands.lines(context, file: file, week: Self.last)
        #expect(lines.map(\.status) == [.nothing] && lines[0].reason?.contains("first read") == true)
        #expect(machine.rules.start(of: "weekly") == Self.last.next.isoLabel)
        let (saving, said) = machine.context(api)
        try await RulesCommands.save(saving, file: file, through: Self.last, dryRun: false, yes: true, confirm: { _ in nil })
        #expect(said.value.isEmpty, "quiet: \(said.value)")
        #expect(!api.calls.contains { if case .transfer = $0 { true } else { false } })
    }
}

extension RulesSaveTests {
    /// `export --output ledger` tags each transfer a rule made `rule: NAME` (from the records), so
    /// hledger answers "what did my coffee rule save": for every rule that moved, exactly its
    /// figure, and nothing else is tagged.
    @Test func theJournalTagsEachRulesTransfer() async throws {
        // The transfers are dated by the test's clock, as the bank would date them the day they go.
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow, clock: { fixedNow })), sourceName: "demo")
        let file = DemoRules.file(currency: .usd, calendar: Self.calendar, now: fixedNow)
        let machine = Machine()
        let (context, _) = machine.context(api)
        try await RulesCommands.save(context, file: file, through: Self.last, dryRun: false, yes: true, confirm: { _ in nil })
        let moved = try await RulesCommands.lines(context, file: file, week: Self.last).filter { $0.status == .saved }
        #expect(moved.count >= 4, "\(moved.map(\.rule.name))")
        var (ledger, out) = commandContext(api, format: .ledger, saver: RoundUpSaver(identity: .demo, record: machine.roundUps),
                                           timeZone: Self.calendar.timeZone)
        ledger.rules = machine.rules
        _ = try await ActivityExport.run(ledger, kind: .export, since: nil, until: nil, goal: nil)
        let journal = out.value
        #expect(journal.components(separatedBy: ", rule: ").count - 1 == moved.count, "\(journal.prefix(1_200))")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID().uuidString).journal")
        defer { try? FileManager.default.removeItem(at: path) }
        try journal.write(to: path, atomically: true, encoding: .utf8)
        for line in moved {
            let tag = Cell.ledgerTagValue(line.rule.name)
            #expect(journal.components(separatedBy: ", rule: \(tag)\n").count - 1 == 1, "\(line.rule.name)")
            let result = try runProcess(URL(fileURLWithPath: try ExternalTool.hledger.require()),
                                        ["-f", path.path, "balance", "--flat", "-O", "csv", "tag:rule=\(tag)", "assets:demo:savings"])
            let figure = try #require(line.figure?.amount)
            #expect(result.stdout.contains("\"\(Cell.decimal(figure)) USD\""), "\(line.rule.name): \(result.stdout) \(result.stderr)")
        }
    }
}

/// The packaged weekly timer runs `rules --save` (RULES.md, "Commands"): its command line is one
/// the program takes.
@Suite struct RulesTimerTests {
    @Test func theRulesTimerRunsACommandTheProgramTakes() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let unit = try String(contentsOf: root.appendingPathComponent("Packaging/systemd/qapital-tui-rules.service"), encoding: .utf8)
        let exec = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let words = exec.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
        #expect(words.first == "/usr/bin/qapital-tui" && Array(words.dropFirst()) == ["rules", "--save", "--week", "last", "--yes"])
        let parsed = try QapitalCommand.parseAsRoot(Array(words.dropFirst()))
        #expect(parsed is RulesCommand)
        let package = try String(contentsOf: root.appendingPathComponent("Scripts/package.sh"), encoding: .utf8)
        #expect(package.contains("Packaging/systemd/qapital-tui-rules.service") && package.contains("Packaging/systemd/qapital-tui-rules.timer"))
    }
}
