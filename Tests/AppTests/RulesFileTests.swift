import Commands
import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport
@testable import qapital_tui

/// The rules file (RULES.md): a good file read whole, each mistake one line naming the file, the
/// rule and the field; and `rules` figures on the demo that agree with `roundups`.
@Suite struct RulesFileTests {
    static let calendar = Week.calendar(in: TimeZone(identifier: "Europe/London")!)

    static let good = """
        [rules]
        weekly-limit = "50.00"
        keep-at-least = "100"

        [[rule]]
        name = "coffee"
        kind = "guilty-pleasure"
        goal = "Balloons"
        amount = "2.00"
        match = ["Coffee", "Starbucks"]
        since = 2026-11-02

        [[rule]]
        name = "round-ups"
        kind = "roundup"
        goal = "Balloons"
        step = 5

        [[rule]]
        name = "monthly"
        kind = "set-and-forget"
        goal = "Dog"
        amount = "$1,000"
        every = "month"
        paused = true

        [[rule]]
        name = "challenge"
        kind = "52-week"
        goal = "Dog"
        amount = "1.00"
        start = "2026-01-05"
        reverse = true

        [[rule]]
        name = "less eating out"
        kind = "spend-less"
        goal = "Dog"
        target = "40.00"
        match = ["Chipotle"]
        category = ["eating_out"]

        [[rule]]
        name = "pay"
        kind = "payday"
        goal = "7"
        percent = "12.5"
        match = ["ACME"]
        minimum = "500"
        """

    static func parse(_ text: String) throws(RulesFile.Problem) -> RulesFile {
        try RulesFileTOML.parse(text, file: "rules.toml", currency: .usd, calendar: calendar)
    }

    static func usd(_ minor: Int64) -> Money { Money(minorUnits: minor, currency: .usd) }

    @Test func aGoodFileIsReadWhole() throws {
        let file = try Self.parse(Self.good)
        #expect(file.weeklyLimit == Self.usd(5_000) && file.keepAtLeast == Self.usd(10_000))
        #expect(file.rules.map(\.name) == ["coffee", "round-ups", "monthly", "challenge", "less eating out", "pay"])
        let day = { (text: String) in Self.calendar.startOfDay(for: Timestamp.parse(text + "T12:00:00+00:00")!) }
        #expect(file.rules[0] == Rule(name: "coffee", kind: .guiltyPleasure(amount: Self.usd(200), match: ["Coffee", "Starbucks"]),
                                      goal: "Balloons", since: day("2026-11-02")))
        #expect(file.rules[1].kind == .roundUp(step: 500))
        #expect(file.rules[2].kind == .setAndForget(amount: Self.usd(100_000), every: .month) && file.rules[2].paused)
        #expect(file.rules[3].kind == .fiftyTwoWeek(amount: Self.usd(100), start: day("2026-01-05"), reverse: true))
        #expect(file.rules[4].kind == .spendLess(target: Self.usd(4_000), match: ["Chipotle"], category: ["eating_out"]))
        #expect(file.rules[4].words(currency: .usd, calendar: Self.calendar)
                == "what is left of $40.00 a week after Chipotle or spending in eating_out")
        #expect(file.rules[5].kind == .payday(hundredthsOfAPercent: 1_250, match: ["ACME"], minimum: Self.usd(50_000)))
        #expect(file.rules[5].words(currency: .usd, calendar: Self.calendar) == "12.5% of pay from ACME and of any payment in of $500.00 or more")
        #expect(file.rules[0].words(currency: .usd, calendar: Self.calendar) == "$2.00 each card payment at Coffee or Starbucks")
        #expect(try Self.parse("").rules.isEmpty)
    }

    /// Each mistake: the line it gives, whole.
    @Test(arguments: [
        ("[[rule]]\nname = \"a\"\nkind = \"lottery\"\ngoal = \"Dog\"",
         "rules.toml: rule “a”: kind: unknown “lottery” (one of roundup, guilty-pleasure, set-and-forget, 52-week, spend-less, payday)"),
        ("[[rule]]\nname = \"a\"\nkind = \"roundup\"", "rules.toml: rule “a”: goal: missing (a goal's name or id)"),
        ("[[rule]]\nkind = \"roundup\"\ngoal = \"Dog\"", "rules.toml: rule “rule 1”: name: missing"),
        ("[[rule]]\nname = \"a\"\nkind = \"roundup\"\ngoal = \"Dog\"\n[[rule]]\nname = \"A\"\nkind = \"roundup\"\ngoal = \"Dog\"",
         "rules.toml: rule “A”: name: a second rule of that name (names are unique, in any case)"),
        ("[[rule]]\nname = \"a\"\nkind = \"guilty-pleasure\"\ngoal = \"Dog\"\namount = 2.0\nmatch = [\"Pret\"]",
         "rules.toml: rule “a”: amount: wants an amount in quotes, e.g. \"2.00\""),
        ("[[rule]]\nname = \"a\"\nkind = \"guilty-pleasure\"\ngoal = \"Dog\"\namount = \"2.005\"\nmatch = [\"Pret\"]",
         "rules.toml: rule “a”: amount: at most 2 decimals (USD)"),
        ("[[rule]]\nname = \"a\"\nkind = \"guilty-pleasure\"\ngoal = \"Dog\"\namount = \"2\"",
         "rules.toml: rule “a”: match: missing (the words a payment's counterparty contains; or give category)"),
        ("[[rule]]\nname = \"a\"\nkind = \"guilty-pleasure\"\ngoal = \"Dog\"\namount = \"2\"\nmatch = [\"Pret\"]\ncolour = \"red\"",
         "rules.toml: rule “a”: colour: not a field of a guilty-pleasure rule"),
        ("[[rule]]\nname = \"a\"\nkind = \"52-week\"\ngoal = \"Dog\"\namount = \"1\"\nstart = 2026-01-06",
         "rules.toml: rule “a”: start: wants a Monday"),
        ("[[rule]]\nname = \"a\"\nkind = \"52-week\"\ngoal = \"Dog\"\namount = \"1\"\nstart = \"2026-02-30\"",
         "rules.toml: rule “a”: start: no such day"),
        ("[[rule]]\nname = \"a\"\nkind = \"payday\"\ngoal = \"Dog\"\npercent = \"120\"\nmatch = [\"ACME\"]",
         "rules.toml: rule “a”: percent: wants a number from 1 to 100"),
        ("[[rule]]\nname = \"a\"\nkind = \"payday\"\ngoal = \"Dog\"\npercent = \"10.125\"\nmatch = [\"ACME\"]",
         "rules.toml: rule “a”: percent: wants a number from 1 to 100 with at most two decimals"),
        ("[[rule]]\nname = \"a\"\nkind = \"set-and-forget\"\ngoal = \"Dog\"\namount = \"5\"\nevery = \"day\"",
         "rules.toml: rule “a”: every: wants \"week\" or \"month\""),
        ("[[rule]]\nname = \"a\"\nkind = \"spend-less\"\ngoal = \"Dog\"\ntarget = \"5\"\ncategory = \"eating_out\"",
         "rules.toml: rule “a”: category: wants a list of words"),
        ("[[rule]]\nname = \"a\"\nkind = \"set-and-forget\"\ngoal = \"Dog\"\namount = \"5\"\ncategory = [\"eating_out\"]",
         "rules.toml: rule “a”: category: not a field of a set-and-forget rule"),
        ("[[rule]]\nname = \"a\"\nkind = \"roundup\"\ngoal = \"Dog\"\n[[rule]]\nname = \"b\"\nkind = \"roundup\"\ngoal = \"Cat\"",
         "rules.toml: rule “b”: kind: a second roundup rule (“a” moves the week's round-ups; they move once)"),
        ("[rules]\nweekly-limit = \"-5\"", "rules.toml: weekly-limit: must be more than zero (USD)"),
        ("[rules]\nlimit = \"5\"", "rules.toml: rules.limit: unknown (the [rules] table has weekly-limit and keep-at-least)"),
        ("[goal]\nname = \"x\"", "rules.toml: goal: not a part of a rules file (it has [rules] and [[rule]])"),
        ("[[rule]]\nname = \"a\nb\"", "rules.toml:2:"),
    ])
    func eachMistakeIsOneLine(text: String, said: String) {
        #expect {
            try Self.parse(text)
        } throws: { error in
            guard let problem = error as? RulesFile.Problem else { return false }
            #expect(problem.message.hasPrefix(said), "\(problem.message)")
            #expect(!problem.message.contains("\n"))
            return problem.message.hasPrefix(said)
        }
    }

    /// On the demo's last week: each rule's figure, and the round-up rule's is `roundups`' total.
    @Test func theFiguresAgreeWithRoundUps() async throws {
        let api = DemoSavingsAPI(backend: DemoBackend(now: fixedNow))
        let file = try Self.parse("""
            [[rule]]
            name = "round-ups"
            kind = "roundup"
            goal = "Balloons"
            since = 2026-01-01

            [[rule]]
            name = "weekly"
            kind = "set-and-forget"
            goal = "1"
            amount = "5"
            since = 2026-01-01
            """)
        let (context, out) = commandContext(api, format: .json)
        let week = try context.week("last")
        try await RulesCommands.list(context, file: file, week: week)
        let (roundUpsContext, roundUpsOut) = commandContext(api, format: .json)
        try await RoundUpsCommands.list(roundUpsContext, week: week)
        let rules = try #require(try JSONSerialization.jsonObject(with: Data(out.value.utf8)) as? [String: Any])
        let roundUps = try #require(try JSONSerialization.jsonObject(with: Data(roundUpsOut.value.utf8)) as? [String: Any])
        let lines = try #require(rules["rules"] as? [[String: Any]])
        #expect(lines.count == 2)
        let roundUpTotal = try #require((roundUps["total"] as? [String: Any])?["minorUnits"] as? Int)
        #expect(roundUpTotal > 0)
        #expect((lines[0]["amount"] as? [String: Any])?["minorUnits"] as? Int == roundUpTotal)
        #expect(lines[0]["status"] as? String == "due" && lines[1]["status"] as? String == "due")
        #expect((lines[1]["amount"] as? [String: Any])?["minorUnits"] as? Int == 500)
        #expect((rules["total"] as? [String: Any])?["minorUnits"] as? Int == roundUpTotal + 500)
        // Every payment the round-up rule counted is one of `roundups`' payments with a round-up.
        let counted = try #require(lines[0]["payments"] as? [String])
        let listed = try #require(roundUps["payments"] as? [[String: Any]])
        let rounding = Set(listed.filter { (($0["roundUp"] as? [String: Any])?["minorUnits"] as? Int ?? 0) > 0 && $0["state"] as? String != "other currency" }
            .compactMap { $0["id"] as? String })
        #expect(Set(counted) == rounding && counted.count == rounding.count)
    }

    @Test func aGoalThatNamesNothingIsOneLine() async throws {
        let api = DemoSavingsAPI(backend: DemoBackend(now: fixedNow))
        let file = try Self.parse("[[rule]]\nname = \"a\"\nkind = \"roundup\"\ngoal = \"Yacht\"")
        let (context, _) = commandContext(api, format: .table)
        await #expect {
            try await RulesCommands.list(context, file: file, week: try context.week("last"))
        } throws: { error in
            guard let failure = error as? CommandFailure else { return false }
            #expect(failure.message.hasPrefix("rule “a”: goal: no goal is called") && failure.message.contains("Yacht"), "\(failure.message)")
            return failure.status == .usage && !failure.message.contains("--goal")
        }
    }

    /// The demo's own rules: one of each kind, each naming a demo goal, with figures last week.
    @Test func theDemoShipsOneRuleOfEachKind() async throws {
        let api = DemoSavingsAPI(backend: DemoBackend(now: fixedNow))
        let (context, _) = commandContext(api, format: .json)
        let file = DemoRules.file(currency: .usd, calendar: context.calendar, now: fixedNow)
        #expect(Set(file.rules.map(\.kind.name)) == Set(Rule.Kind.names))
        let lines = try await RulesCommands.lines(context, file: file, week: try context.week("last"))
        #expect(lines.count == file.rules.count)
        let moving = lines.filter { ($0.figure?.amount.minorUnits ?? 0) > 0 }.map(\.rule.kind.name)
        #expect(moving.count >= 5, "\(moving)")
    }

    /// `--backtest`: each week's moves are the weeks' figures, and the limit holds in file order.
    @Test func aBacktestIsTheWeeksFiguresUnderTheLimit() async throws {
        let api = DemoSavingsAPI(backend: DemoBackend(now: fixedNow))
        let (context, out) = commandContext(api, format: .json)
        let file = DemoRules.file(currency: .usd, calendar: context.calendar, now: fixedNow)
        try await RulesCommands.backtest(context, file: file, weeks: 4)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(out.value.utf8)) as? [String: Any])
        let moves = try #require(json["moves"] as? [[String: Any]])
        var expected = 0
        var week = try context.week("this")
        for _ in 0..<4 {
            week = week.previous
            let lines = try await RulesCommands.lines(context, file: RulesFile(rules: file.rules.map { rule in
                var undated = rule
                undated.since = nil
                return undated
            }), week: week)
            expected += Int(lines.compactMap { $0.figure?.amount.minorUnits }.reduce(0, +))
        }
        let all = moves.compactMap { ($0["amount"] as? [String: Any])?["minorUnits"] as? Int }.reduce(0, +)
        #expect(all == expected && all > 0)
        let held = moves.filter { $0["held"] as? Bool == true }.compactMap { ($0["amount"] as? [String: Any])?["minorUnits"] as? Int }
        #expect((json["total"] as? [String: Any])?["minorUnits"] as? Int == all - held.reduce(0, +))

        // A limit of $1 a week holds everything above it.
        let (tight, tightOut) = commandContext(api, format: .json)
        try await RulesCommands.backtest(tight, file: RulesFile(weeklyLimit: Money(minorUnits: 100, currency: .usd), rules: file.rules), weeks: 4)
        let tightJSON = try #require(try JSONSerialization.jsonObject(with: Data(tightOut.value.utf8)) as? [String: Any])
        let tightMoves = try #require(tightJSON["moves"] as? [[String: Any]])
        let over = tightMoves.filter { (($0["amount"] as? [String: Any])?["minorUnits"] as? Int ?? 0) > 100 }
        #expect(!over.isEmpty && over.allSatisfy { $0["held"] as? Bool == true })
        // What moved fits: no week moved more than $1.
        let movedByWeek = Dictionary(grouping: tightMoves.filter { $0["held"] as? Bool == false }, by: { $0["week"] as? String ?? "" })
            .mapValues { $0.compactMap { ($0["amount"] as? [String: Any])?["minorUnits"] as? Int }.reduce(0, +) }
        #expect(movedByWeek.values.allSatisfy { $0 <= 100 }, "\(movedByWeek)")
    }
}
