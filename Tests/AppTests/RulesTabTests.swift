import Commands
import DemoData
import FeedModel
import Foundation
import PropertyBased
import Testing
import TermUI
import TestSupport
@testable import QapitalApp
@testable import qapital_tui

/// The demo's rules on an API, as the app wires them (`AppOptions.rulesBook`): one saver shared
/// by the Round-ups tab and the rules, a rules record of their own, the file kept in memory.
@MainActor
struct RulesTabSetup {
    let api: any SavingsAPI
    let saver = RoundUpSaver(identity: .demo, record: MemoryRoundUpRecord())
    let ruleRecord = MemoryRoundUpRecord()
    let written = Locked<[RulesFile]>([])
    let book: CommandRulesBook
    let file: RulesFile

    init(api: any SavingsAPI = DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), file: RulesFile? = nil, noMoneyMoves: String? = nil) {
        self.api = api
        let calendar = Week.calendar(in: TimeZone(identifier: "UTC")!)
        let file = file ?? DemoRules.file(currency: .usd, calendar: calendar, now: fixedNow)
        self.file = file
        var context = CommandContext(api: api, sourceKind: "demo", currency: .usd, format: .table, output: OutputSink { _ in },
                                     calendar: calendar, now: { fixedNow }, saver: saver)
        context.rules = ruleRecord
        context.noMoneyMoves = noMoneyMoves
        let written = self.written
        book = CommandRulesBook(context: context, file: file, writer: { file in written.withLock { $0.append(file) } })
    }

    var capabilities: AppCore.Capabilities {
        var capabilities = AppCore.Capabilities()
        capabilities.roundUpSaver = saver
        capabilities.rulesBook = book
        return capabilities
    }

    func app(width: Int = 100, height: Int = 30, colors: Bool = false) -> AppHarness {
        AppHarness(api: api, width: width, height: height, colors: colors, capabilities: capabilities)
    }
}

/// Tab 6 (RULES.md, "The Rules tab"): the rules with the week's figures, `[` `]`, Enter, `s` with
/// a confirmation, `p`, `x`, `b`; one record and one key with the Round-ups tab and the commands.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct RulesTabTests {
    @Test func theTabListsEveryRuleWithTheWeeksFigureAndTheWeekBefore() async throws {
        let setup = RulesTabSetup()
        let app = setup.app()
        _ = await app.start()
        var lines = await app.press(.char("6"))
        #expect(lines[0].contains("6 Rules"))
        for rule in setup.file.rules { #expect(lines.contains { $0.hasPrefix(" " + rule.name) }, "\(rule.name): \(lines)") }
        #expect(lines.contains { $0.contains("coffee") && $0.contains("so far $2.00") }, "\(lines)")
        lines = await app.press(.char("["))
        #expect(lines[1].contains("last week"))
        #expect(lines.contains { $0.contains("coffee") && $0.contains("due $2.00") }, "\(lines)")
        #expect(lines.contains { $0.contains("The week's rules come to") && $0.contains("at most $400.00 a week") })
        // Enter: the payments the rule counted.
        await app.press(.char("j"))
        lines = await app.press(.enter)
        #expect(app.core.overlays.last is DetailCard)
        #expect(lines.filter { $0.contains("Blue Bottle Coffee") }.count == 1, "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("Status") && $0.contains("due $2.00") })
    }

    /// `s` on last week lists what is due, `y` moves each rule's week once; the Round-ups tab then
    /// shows the round-up rule's week saved (one key), a second `s` finds nothing due, and the
    /// commands' `rules` reads the same record: saved.
    @Test func sMovesEachDueRuleOnceAndTheRoundUpsTabAgrees() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "demo")
        let setup = RulesTabSetup(api: api)
        let app = setup.app()
        _ = await app.start()
        let before = Dictionary(uniqueKeysWithValues: app.core.goals.goals.map { ($0.name, $0.balance.minorUnits) })
        var lines = await app.press(.char("6"), .char("["), .char("s"))
        let confirmation = try #require(app.core.overlays.last as? Question)
        #expect(confirmation.lines.contains { $0.map(\.text).joined().contains("coffee") })
        lines = await app.press(.char("y"))
        #expect(lines.contains { $0.contains("coffee") && $0.contains("✓ saved $2.00") }, "\(lines.joined(separator: "\n"))")
        let transfers = api.calls.filter { if case .transfer = $0 { true } else { false } }
        // Six rules owe last week (every month owes nothing: no month ended in it).
        #expect(transfers.count == 6, "\(transfers)")
        // The goals were loaded again: Vacation holds the coffee rule's $2.00 more.
        let vacation = try #require(app.core.goals.goals.first { $0.name == "Vacation" })
        #expect(vacation.balance.minorUnits == (before["Vacation"] ?? 0) + 200)
        // Once: nothing is due any more.
        lines = await app.press(.char("s"))
        #expect(!(app.core.overlays.last is Question))
        #expect(lines.last?.contains("Nothing is due") == true, "\(lines.last ?? "")")
        // The Round-ups tab's last week: saved, by the round-up rule, under the same key.
        lines = await app.press(.char("3"), .char("["))
        #expect(lines.contains { $0.contains("✓ Saved $4.95") }, "\(lines.joined(separator: "\n"))")
        #expect(api.calls.filter { if case .transfer = $0 { true } else { false } }.count == 6)
    }

    /// A goal's feed names the rule that moved money into it, from the records ("coffee"), where
    /// the source says no rule of the user's.
    @Test func aGoalsFeedNamesTheRuleThatMovedIt() async throws {
        // Transfers dated by the test's clock, as a bank dates them the day they go.
        let setup = RulesTabSetup(api: DemoSavingsAPI(backend: DemoBackend(now: fixedNow, clock: { fixedNow })))
        let app = setup.app(width: 120)
        _ = await app.start()
        await app.press(.char("6"), .char("["), .char("s"), .char("y"))
        await app.press(.char("1"))
        let vacation = try #require(app.core.goals.goals.firstIndex { $0.name == "Vacation" })
        for _ in 0..<vacation { await app.press(.char("j")) }
        let lines = await app.press(.enter)
        #expect(lines.contains { $0.contains("coffee") && $0.contains("$2.00") }, "\(lines.joined(separator: "\n"))")
        // The labels are worked out once per change of the feed or the records, not per key or frame.
        let derived = app.core.screenData.derived
        let settled = derived.labelComputations
        #expect(settled >= 1)
        for _ in 0..<5 { await app.press(.char("j")) }
        await app.press(.char("k"), .char("G"), .char("g"))
        #expect(derived.labelComputations == settled, "keys and frames worked the labels out again")
    }

    @Test func aTransfersLabelSaysHowManyPaymentsOfWhat() {
        func part(_ cents: Int64, payments: Int, rule: String?) -> SavedRoundUp {
            SavedRoundUp(key: UUID(), week: "2026-W47", goalId: "1", goalName: "Dog", amount: Money(minorUnits: cents, currency: .gbp),
                         payments: (0..<payments).map { "p\($0)" }, startedAt: fixedNow, state: .saved, rule: rule)
        }
        #expect(RuleMoves.label(part(600, payments: 3, rule: "coffee")) == "coffee: 3 × £2.00")
        #expect(RuleMoves.label(part(500, payments: 3, rule: "coffee")) == "coffee")
        #expect(RuleMoves.label(part(500, payments: 1, rule: "every week")) == "every week")
    }

    /// `p` pauses (the file written with the rule paused), `x` deletes after `y`; `b` shows twelve weeks.
    @Test func pauseDeleteAndBacktestChangeTheFileOrShowTheWeeks() async throws {
        let setup = RulesTabSetup()
        let app = setup.app()
        _ = await app.start()
        await app.press(.char("6"), .char("j"), .char("p"))
        var written = setup.written.withLock { $0 }
        #expect(written.count == 1 && written[0].rules.first { $0.name == "coffee" }?.paused == true)
        var lines = await app.screen()
        #expect(lines.contains { $0.contains("coffee") && $0.contains("paused") }, "\(lines.joined(separator: "\n"))")
        await app.press(.char("x"))
        #expect(app.core.overlays.last is Question)
        await app.press(.char("n"))
        #expect(setup.written.withLock { $0.count } == 1, "no: nothing written")
        await app.press(.char("x"), .char("y"))
        written = setup.written.withLock { $0 }
        #expect(written.count == 2 && !written[1].rules.contains { $0.name == "coffee" } && written[1].rules.count == setup.file.rules.count - 1)
        lines = await app.screen()
        #expect(!lines.contains { $0.hasPrefix(" coffee") })
        // b: the selected rule's twelve weeks, even paused.
        lines = await app.press(.char("g"), .char("b"))
        #expect(lines.contains { $0.contains("round-ups: the last 12 weeks") }, "\(lines.joined(separator: "\n"))")
        #expect(lines.filter { $0.contains("2026-W") }.count == 12)
        #expect(lines.contains { $0.contains("In all $") })
    }

    /// `a`: the form checks the rule as the file is read, shows its last twelve weeks before it is
    /// kept, and Enter again writes the file with it (owing from the week under way).
    @Test func aRuleIsAddedAfterItsTwelveWeeksAreShown() async throws {
        let setup = RulesTabSetup()
        let app = setup.app()
        _ = await app.start()
        await app.press(.char("6"), .char("a"))
        let form = try #require(app.core.overlays.last as? RuleForm)
        for character in "treats" { await app.press(.char(character)) }
        await app.press(.tab, .tab, .right, .tab)  // kind guilty-pleasure, goal: the second goal
        for character in "3.00" { await app.press(.char(character)) }
        await app.press(.tab)
        for character in "Uber, Shell" { await app.press(.char(character)) }
        var lines = await app.press(.enter)
        #expect(setup.written.withLock { $0.isEmpty }, "nothing is kept before its weeks are shown")
        #expect(lines.filter { $0.contains("2026-W") }.count == 12, "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("In all $") } && lines.contains { $0.contains("Enter again keeps it") })
        lines = await app.press(.enter)
        #expect(!app.core.overlays.contains { $0 === form })
        let written = try #require(setup.written.withLock { $0.last })
        let added = try #require(written.rules.last)
        #expect(added.name == "treats" && added.goal == app.core.goals.goals[1].name)
        #expect(added.kind == .guiltyPleasure(amount: Money(minorUnits: 300, currency: .usd), match: ["Uber", "Shell"]))
        #expect(added.since == Week(containing: fixedNow, calendar: Week.calendar(in: TimeZone(identifier: "UTC")!)).start)
        #expect(written.rules.dropLast() == setup.file.rules[...])
        #expect(lines.contains { $0.hasPrefix(" treats") }, "\(lines.joined(separator: "\n"))")
    }

    /// A field the file would refuse: its one line in the form, nothing written; Esc closes.
    @Test func aFieldTheFileRefusesIsSaidInTheForm() async throws {
        let setup = RulesTabSetup()
        let app = setup.app()
        _ = await app.start()
        await app.press(.char("6"), .char("e"))
        #expect(app.core.overlays.last is RuleForm)
        await app.press(.tab, .tab, .tab)
        let lines = await app.press(.char("x"), .enter)
        #expect(lines.contains { $0.contains("✗ rules.toml: rule “round-ups”: step:") }, "\(lines.joined(separator: "\n"))")
        await app.press(.escape)
        #expect(app.core.overlays.isEmpty && setup.written.withLock { $0.isEmpty })
    }

    /// A source that cannot move money (Up, SimpleFIN): the same figures as "would save".
    @Test func aReadOnlySourceSaysWhatTheRulesWouldSave() async throws {
        let setup = RulesTabSetup(noMoneyMoves: "Up moves its round-ups itself")
        let app = setup.app()
        _ = await app.start()
        let lines = await app.press(.char("6"), .char("["))
        #expect(lines.contains { $0.contains("coffee") && $0.contains("would save $2.00") }, "\(lines.joined(separator: "\n"))")
        #expect(!lines.contains { $0.contains("due $") })
    }

    /// No rules yet: the tab says how to add one, and `a` does.
    @Test func noRulesYetSaysHowToAddOne() async throws {
        let setup = RulesTabSetup(file: RulesFile(rules: []))
        let app = setup.app()
        _ = await app.start()
        let lines = await app.press(.char("6"))
        #expect(lines.contains { $0.contains("No rules yet: press a to add one") }, "\(lines.joined(separator: "\n"))")
        await app.press(.char("a"))
        #expect(app.core.overlays.last is RuleForm)
    }

    /// A rules file that does not read: the tab says the one line, and there are no rules.
    @Test func aFileThatDoesNotReadIsSaidInTheTab() async throws {
        let context = CommandContext(api: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceKind: "demo", currency: .usd, format: .table,
                                     output: OutputSink { _ in })
        var capabilities = AppCore.Capabilities()
        capabilities.rulesBook = CommandRulesBook(context: context, file: RulesFile(rules: []), writer: nil,
                                                  problem: "rules.toml: rule “coffee”: amount: at most 2 decimals")
        let app = AppHarness(capabilities: capabilities)
        _ = await app.start()
        let lines = await app.press(.char("6"))
        #expect(lines.contains { $0.contains("✗ rules.toml: rule “coffee”: amount: at most 2 decimals") }, "\(lines.joined(separator: "\n"))")
        await app.press(.char("s"))
        #expect(app.core.overlays.isEmpty)
    }

    /// Written back and read again, any file is the same file: over generated rules of every
    /// kind, amounts, words and dates, through the real TOML parser.
    @Test func aFileWrittenReadsBackTheSame() async {
        let calendar = Week.calendar(in: TimeZone(identifier: "UTC")!)
        let day = Gen.int(in: 0...3_000).map { calendar.startOfDay(for: Date(timeIntervalSince1970: 1_600_000_000 + Double($0) * 86_400)) }
        let monday = day.map { Week(containing: $0, calendar: calendar).start }
        let money = Gen.int(in: 1...999_999).map { Money(minorUnits: Int64($0), currency: .usd) }
        let word = Gen.int(in: 0...5).map { ["Pret", "Costa", "a \"quoted\" café", "back\\slash", "東京", "semi;colon #hash"][$0] }
        let words = word.array(of: 1...3)
        let kind = PropertyBased.zip(Gen.int(in: 0...7), money, words, monday, Gen.int(in: 100...10_000), Gen.int(in: 1...100))
            .map { pick, amount, match, start, percent, step -> Rule.Kind in
                switch pick {
                case 0: .roundUp(step: nil)
                case 1: .roundUp(step: Int64(step) * 100)
                case 2: .guiltyPleasure(amount: amount, match: match)
                case 3: .setAndForget(amount: amount, every: step % 2 == 0 ? .week : .month)
                case 4: .fiftyTwoWeek(amount: amount, start: start, reverse: step % 2 == 0)
                case 5: .spendLess(target: amount, match: match)
                case 6: .payday(hundredthsOfAPercent: Int64(percent), match: match, minimum: nil)
                default: .payday(hundredthsOfAPercent: Int64(percent), match: [], minimum: amount)
                }
            }
        let rule = PropertyBased.zip(kind, Gen.int(in: 0...2), day, word).map { kind, flags, since, goal in
            (kind, flags, since, goal)
        }
        await propertyCheck(count: 200, input: rule.array(of: 0...6), Gen.int(in: 0...3)) { rules, settings in
            // A file has one round-up rule at most (a second is refused): later ones save $1 a week instead.
            var roundUps = 0
            let file = RulesFile(weeklyLimit: settings & 1 == 0 ? nil : Money(minorUnits: 40_000, currency: .usd),
                                 keepAtLeast: settings & 2 == 0 ? nil : .zero(.usd),
                                 rules: rules.enumerated().map { index, parts in
                                     var kind = parts.0
                                     if case .roundUp = kind {
                                         roundUps += 1
                                         if roundUps > 1 { kind = .setAndForget(amount: Money(minorUnits: 100, currency: .usd), every: .week) }
                                     }
                                     return Rule(name: "rule \(index) \(parts.3)", kind: kind, goal: parts.3,
                                                 since: parts.1 == 1 ? parts.2 : nil, paused: parts.1 == 2)
                                 })
            let text = RulesFileTOML.text(file, currency: .usd, calendar: calendar)
            let read = try? RulesFileTOML.parse(text, file: "rules.toml", currency: .usd, calendar: calendar)
            #expect(read == file, "\(text)")
        }
    }

    /// The tab writes whole and atomically; the version before is kept as rules.toml.bak.
    @Test func writingKeepsTheLastVersionAsBak() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("rules.toml")
        let calendar = Week.calendar(in: TimeZone(identifier: "UTC")!)
        let first = DemoRules.file(currency: .usd, calendar: calendar, now: fixedNow)
        var second = first
        second.rules.removeFirst()
        try RulesFileTOML.write(first, to: url, currency: .usd, calendar: calendar)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".bak"))
        try RulesFileTOML.write(second, to: url, currency: .usd, calendar: calendar)
        let now = try #require(try RulesFileTOML.load(path: url.path, environment: [:], currency: .usd, calendar: calendar))
        let bak = try RulesFileTOML.parse(String(contentsOf: url.appendingPathExtension("bak"), encoding: .utf8), file: "bak",
                                          currency: .usd, calendar: calendar)
        #expect(now == second && bak == first)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.hasPrefix(RulesFileTOML.header))
    }
}
