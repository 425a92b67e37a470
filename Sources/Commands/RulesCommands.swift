import FeedModel
import Foundation

/// `qapital-tui rules [--week]` and `rules --check`: every rule's figure for a week and where it
/// stands, from the same figures the settlement will move (RULES.md). Nothing here moves money.
public enum RulesCommands {
    /// Where a rule stands for a week, as the JSON and the table say it.
    /// Where a rule's week stands: the Rules tab's (`RuleLine`), one set of words for both.
    public typealias Status = RuleLine.Status

    /// One rule's line for the week.
    public struct Line: Sendable {
        public let rule: Rule
        public let goal: Goal
        public let figure: RuleFigure?
        public let status: Status
        public let reason: String?
        public let transferId: UUID?
        /// The payments the figure counted.
        public let payments: [Transaction]
    }

    /// `rules --check`: each rule in words, after its goal is found; the first problem throws.
    public static func check(_ context: CommandContext, file: RulesFile) async throws {
        let goals = try await context.api.goals()
        let output = context.output
        defer { output.flush() }
        if let limit = file.weeklyLimit { output.line("At most \(limit.formatted) a week, all rules together.") }
        if let floor = file.keepAtLeast { output.line("Never below \(floor.formatted) in the account.") }
        if file.rules.isEmpty { output.line("No rules yet: add a [[rule]] (docs/rules.md).") }
        for rule in file.rules {
            let goal = try goal(of: rule, in: goals)
            let paused = rule.paused ? " (paused)" : ""
            output.line("\(rule.name): \(rule.words(currency: context.currency, calendar: context.calendar)), into \(goal.name)\(paused)")
        }
    }

    /// The lines of `week`: each rule's figure and status.
    public static func lines(_ context: CommandContext, file: RulesFile, week: Week) async throws -> [Line] {
        let goals = try await context.api.goals()
        let transactions = try await context.api.transactions(from: week.start, to: week.end)
        let isOver = context.now() >= week.end
        let record = context.rules ?? MemoryRoundUpRecord()
        var lines: [Line] = []
        for rule in file.rules {
            let goal = try goal(of: rule, in: goals)
            let figure = try Self.figure(of: rule, week: week, transactions: transactions, context)
            var (status, reason, transfer) = where_(rule, figure: figure, week: week, isOver: isOver, context: context, transactions: transactions,
                                                    record: record, goal: goal)
            let first = start(of: rule, context, record: record)
            if rule.since == nil, week < first, status != .paused {
                (status, reason, transfer) = (.nothing, "before the rule was first read, in week \(first.isoLabel) (give it since to count earlier weeks)", nil)
            }
            let counted = Set(figure?.counted ?? [])
            lines.append(Line(rule: rule, goal: goal, figure: figure, status: status, reason: reason, transferId: transfer,
                              payments: transactions.filter { counted.contains($0.id) }))
        }
        return lines
    }

    private static func where_(_ rule: Rule, figure: RuleFigure?, week: Week, isOver: Bool, context: CommandContext,
                               transactions: [Transaction], record: any RuleRecord, goal: Goal) -> (Status, String?, UUID?) {
        if rule.paused { return (.paused, nil, nil) }
        if let since = rule.since, week.end <= since {
            return (.nothing, "the rule starts with the week of \(context.day(since))", nil)
        }
        guard let figure else {
            switch rule.kind {
            case .setAndForget: return (.nothing, "no month ends this week", nil)
            case .fiftyTwoWeek: return (.nothing, "outside the challenge's 52 weeks", nil)
            default: return (.nothing, nil, nil)
            }
        }
        if let readOnly = context.rulesCannotMove { return (.readOnly, readOnly, nil) }
        if !isOver { return (.underWay, "due \(context.day(week.end))", nil) }
        if case .roundUp = rule.kind {
            let summary = RoundUp.Summary(transactions: transactions.filter { week.contains($0.timestamp) },
                                          accountCurrency: context.currency, step: roundUpStep(of: rule, context))
            let progress = context.saver.progress(week: week, summary: summary, now: context.now())
            if progress.isSaved { return (.saved, nil, progress.saved.last?.key) }
            if let pending = progress.pending { return (.due, "sent, no answer yet: sent again first", pending.key) }
        } else {
            let key = context.saver.identity.ruleKey(rule, period: figure.period, goal: goal)
            if let part = record.parts(week: figure.period.label).first(where: { $0.key == key }) {
                return part.isDone ? (.saved, nil, key) : (.due, "sent, no answer yet: sent again first", key)
            }
        }
        if figure.amount.isZero { return (.nothing, nil, nil) }
        return (.due, nil, nil)
    }

    /// A rule's figure for `week` as every command counts it: a round-up rule without its own step
    /// rounds as the Round-ups tab does (`--round-up-step`); a figure past what an amount may be
    /// fails the command.
    static func figure(of rule: Rule, week: Week, transactions: [Transaction], _ context: CommandContext) throws(CommandFailure) -> RuleFigure? {
        var counting = rule
        if case .roundUp = rule.kind { counting.kind = .roundUp(step: roundUpStep(of: rule, context)) }
        do {
            return try counting.figure(for: week, transactions: transactions, currency: context.currency)
        } catch {
            throw CommandFailure(.failed, error.message)
        }
    }

    /// A round-up rule's step in minor units: its own, else the app's (`--round-up-step`, as the
    /// Round-ups tab rounds); nil for the currency's own. Nil for other kinds.
    static func roundUpStep(of rule: Rule, _ context: CommandContext) -> Int64? {
        guard case .roundUp(let own) = rule.kind else { return nil }
        return own ?? context.roundUpStep
    }

    /// The goal a rule names: a goal's id, else its name in any case; one line when it names none.
    static func goal(of rule: Rule, in goals: [Goal]) throws(CommandFailure) -> Goal {
        do {
            return try CommandContext.goal(rule.goal, in: goals)
        } catch {
            throw CommandFailure(.usage, "rule “\(Cell.plain(rule.name))”: goal: \(error.message.replacingOccurrences(of: "--goal: ", with: "").replacingOccurrences(of: "--goal ", with: "the goal "))")
        }
    }

    public static func list(_ context: CommandContext, file: RulesFile, week: Week) async throws {
        let lines = try await lines(context, file: file, week: week)
        let output = context.output
        defer { output.flush() }
        let counted = lines.filter { $0.status != .paused && $0.status != .nothing }.compactMap(\.figure?.amount.minorUnits)
        let total = Money(minorUnits: Money.sum(counted), currency: context.currency)
        switch context.format {
        case .table:
            output.line(output.styled("Week \(week.isoLabel) (\(context.day(week.start)) – \(context.day(week.lastDay)))", "1"))
            guard !lines.isEmpty else {
                output.line("No rules yet: add a [[rule]] to the rules file (docs/rules.md).")
                return
            }
            let rows = lines.map { line in
                [line.rule.name, line.rule.words(currency: context.currency, calendar: context.calendar), line.goal.name,
                 line.figure?.amount.formatted ?? "–", words(line)]
            }
            let layout = TableLayout.fitting([("RULE", false), ("SAVES", false), ("GOAL", false), ("AMOUNT", true), ("STATUS", false)], rows: rows)
            layout.header(output)
            for row in rows { output.line(layout.row(row)) }
            output.line("")
            var limit = ""
            if let most = file.weeklyLimit {
                limit = most.minorUnits < total.minorUnits ? ", over the \(most.formatted) a week limit: what does not fit will wait"
                    : " (at most \(most.formatted) a week)"
            }
            output.line("The week's rules come to \(total.formatted)\(limit)")
            for line in lines where !(line.figure?.leftOut.isEmpty ?? true) {
                let count = line.figure?.leftOut.count ?? 0
                output.line("\(line.rule.name): \(count) \(count == 1 ? "payment" : "payments") in another currency left out")
            }
        case .json:
            let rules = lines.map { line in
                var fields = [
                    "\"name\":\(Cell.json(line.rule.name))", "\"kind\":\(Cell.json(line.rule.kind.name))",
                    "\"goal\":{\"id\":\(Cell.json(line.goal.id.rawValue)),\"name\":\(Cell.json(line.goal.name))}",
                    "\"amount\":" + (line.figure.map { CommandContext.jsonMoney($0.amount) } ?? "null"),
                    "\"status\":\(Cell.json(line.status.rawValue))",
                ]
                if let reason = line.reason { fields.append("\"reason\":\(Cell.json(reason))") }
                if let period = line.figure?.period.label { fields.append("\"period\":\(Cell.json(period))") }
                fields.append("\"payments\":[" + (line.figure?.counted ?? []).map(Cell.json).joined(separator: ",") + "]")
                fields.append("\"leftOut\":[" + (line.figure?.leftOut ?? []).map(Cell.json).joined(separator: ",") + "]")
                if let transfer = line.transferId { fields.append("\"transferId\":\(Cell.json(transfer.uuidString.lowercased()))") }
                return "{" + fields.joined(separator: ",") + "}"
            }
            output.line("{\"schema\":\"qapital-tui.rules\",\"version\":\(jsonSchemaVersion),\"source\":\(Cell.json(context.sourceKind)),"
                        + "\"week\":\(Cell.json(week.isoLabel)),\"currency\":\(Cell.json(context.currency.code)),")
            output.line("\"rules\":[" + rules.joined(separator: ",\n") + "],")
            output.line("\"total\":\(CommandContext.jsonMoney(total))}")
        case .csv:
            output.line("rule,kind,goal_id,goal,amount,currency,status,reason,period,payments")
            for line in lines {
                output.line([Cell.csv(line.rule.name), line.rule.kind.name, Cell.csv(line.goal.id.rawValue), Cell.csv(line.goal.name),
                             line.figure.map { Cell.decimal($0.amount) } ?? "", context.currency.code, line.status.rawValue,
                             Cell.csv(line.reason ?? ""), line.figure?.period.label ?? "",
                             Cell.csv((line.figure?.counted ?? []).joined(separator: " "))].joined(separator: ","))
            }
        case .ledger:
            throw CommandFailure(.usage, "--output ledger is for activity and export (rules: table, json or csv)")
        }
    }

    /// The status column: "due", "✓ saved", "under way (due Mon 30 Nov)", "would save".
    static func words(_ line: Line) -> String {
        switch line.status {
        case .underWay: line.status.word + (line.reason.map { ", \($0)" } ?? "")
        case .held: line.status.word + (line.reason.map { ": \($0)" } ?? "")
        case .nothing: line.reason ?? line.status.word
        default: line.status.word
        }
    }

    /// A week of a rule in a backtest: what it would have moved, and whether the weekly limit
    /// (the rules before it in the file taking their part first) would have held it.
    public struct BacktestRow: Sendable {
        public let week: Week
        public let rule: Rule
        public let goal: Goal
        public let amount: Money
        public let held: Bool
    }

    /// The weeks of a backtest (the `count` before this one, oldest first) and every rule's move
    /// in them, from the same figures `rules --save` moves. Nothing is sent.
    public static func backtestRows(_ context: CommandContext, file: RulesFile, weeks count: Int) async throws -> ([Week], [BacktestRow]) {
        let goals = try await context.api.goals()
        var week = Week(containing: context.now(), calendar: context.calendar)
        var weeks: [Week] = []
        for _ in 0..<max(1, count) {
            week = week.previous
            weeks.insert(week, at: 0)
        }
        var rows: [BacktestRow] = []
        // One request for all the weeks (each figure counts its own week's): a bank that pages
        // or limits requests (bunq's three a few seconds) answers once, not once a week.
        let transactions = try await context.api.transactions(from: weeks[0].start, to: weeks[weeks.count - 1].end)
        for week in weeks {
            var room = file.weeklyLimit?.minorUnits
            for rule in file.rules where !rule.paused {
                let goal = try goal(of: rule, in: goals)
                let figure = try Self.figure(of: rule, week: week, transactions: transactions, context)
                guard let figure, !figure.amount.isZero else { continue }
                var held = false
                if let left = room {
                    held = figure.amount.minorUnits > left
                    if !held { room = left - figure.amount.minorUnits }
                }
                rows.append(BacktestRow(week: week, rule: rule, goal: goal, amount: figure.amount, held: held))
            }
        }
        return (weeks, rows)
    }

    /// `rules --backtest`: what each rule would have moved in each of the `weeks` weeks before
    /// this one, from the same figures, with the weeks the weekly limit would have held (the
    /// floor needs a past balance no source gives, so it is not replayed). Nothing is sent.
    public static func backtest(_ context: CommandContext, file: RulesFile, weeks count: Int) async throws {
        let (weeks, rows) = try await backtestRows(context, file: file, weeks: count)
        let output = context.output
        defer { output.flush() }
        let moved = Money(minorUnits: Money.sum(rows.filter { !$0.held }.map(\.amount.minorUnits)), currency: context.currency)
        switch context.format {
        case .table:
            output.line(output.styled("What the rules would have moved, \(weeks[0].isoLabel) to \(weeks[weeks.count - 1].isoLabel)", "1"))
            let table = rows.map { [$0.week.isoLabel, $0.rule.name, $0.goal.name, $0.amount.formatted, $0.held ? "held by the weekly limit" : ""] }
            let layout = TableLayout.fitting([("WEEK", false), ("RULE", false), ("GOAL", false), ("AMOUNT", true), ("", false)], rows: table)
            layout.header(output)
            for row in table { output.line(layout.row(row)) }
            output.line("")
            for rule in file.rules {
                let total = Money.sum(rows.filter { $0.rule.name == rule.name && !$0.held }.map(\.amount.minorUnits))
                output.line("\(rule.name): \(Money(minorUnits: total, currency: context.currency).formatted)")
            }
            output.line("In all: \(moved.formatted) in \(weeks.count) weeks" + (rows.contains(where: \.held) ? "; the held ones would have waited for room" : ""))
        case .json:
            let items = rows.map { row in
                "{\"week\":\(Cell.json(row.week.isoLabel)),\"rule\":\(Cell.json(row.rule.name)),"
                    + "\"goal\":{\"id\":\(Cell.json(row.goal.id.rawValue)),\"name\":\(Cell.json(row.goal.name))},"
                    + "\"amount\":\(CommandContext.jsonMoney(row.amount)),\"held\":\(row.held)}"
            }
            output.line("{\"schema\":\"qapital-tui.rules-backtest\",\"version\":\(jsonSchemaVersion),\"currency\":\(Cell.json(context.currency.code)),")
            output.line("\"weeks\":[" + weeks.map { Cell.json($0.isoLabel) }.joined(separator: ",") + "],")
            output.line("\"moves\":[" + items.joined(separator: ",\n") + "],")
            output.line("\"total\":\(CommandContext.jsonMoney(moved))}")
        case .csv:
            output.line("week,rule,goal_id,goal,amount,currency,held")
            for row in rows {
                output.line([row.week.isoLabel, Cell.csv(row.rule.name), Cell.csv(row.goal.id.rawValue), Cell.csv(row.goal.name),
                             Cell.decimal(row.amount), context.currency.code, row.held ? "true" : "false"].joined(separator: ","))
            }
        case .ledger:
            throw CommandFailure(.usage, "--output ledger is for activity and export (rules: table, json or csv)")
        }
    }
}
