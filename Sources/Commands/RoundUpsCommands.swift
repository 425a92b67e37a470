import FeedModel
import Foundation

/// `qapital-tui roundups [--week]` and `roundups --save --goal …`: the week's payments and
/// round-ups, and saving them once (`RoundUpSaver`, the same rule as the Round-ups tab).
public enum RoundUpsCommands {
    /// The week's payments with their round-ups, and what the record says was saved.
    static func load(_ context: CommandContext, week: Week) async throws -> (RoundUp.Summary, RoundUpSaver.Progress) {
        let transactions = try await context.api.transactions(from: week.start, to: week.end)
        let summary = RoundUp.Summary(transactions: transactions.filter { week.contains($0.timestamp) },
                                      accountCurrency: context.currency, step: context.roundUpStep)
        return (summary, context.saver.progress(week: week, summary: summary, now: context.now()))
    }

    public static func list(_ context: CommandContext, week: Week) async throws {
        let (summary, progress) = try await load(context, week: week)
        let output = context.output
        defer { output.flush() }
        let savedIds = Set((progress.saved + [progress.pending].compactMap { $0 }).flatMap(\.payments))
        let elsewhere = progress.saved.contains { $0.state == .savedElsewhere }
        func state(_ line: RoundUp.Line) -> String {
            if !summary.isSaveable(line) { return "other currency" }
            if line.roundUp.minorUnits == 0 { return "" }
            // A read-only source: the bank's own round-up as made, one computed here as a suggestion.
            if context.noMoneyMoves != nil { return line.transaction.bankRoundUp != nil ? "made by the bank" : "suggestion" }
            if progress.pending?.payments.contains(line.id) == true { return "no answer" }
            if savedIds.contains(line.id) { return "saved" }
            // The week was saved by another run or machine: its record says which payments.
            if elsewhere { return "saved elsewhere" }
            return progress.isOver ? "not saved" : "week under way"
        }
        switch context.format {
        case .table:
            output.line(output.styled("Week \(week.isoLabel) (\(context.day(week.start)) – \(context.day(week.lastDay)))", "1"))
            let rows = summary.lines.map { line in
                [context.minute(line.transaction.timestamp), line.transaction.counterparty, line.transaction.amount.formatted,
                 line.roundUp.formatted, state(line)]
            }
            let layout = TableLayout.fitting([("TIME", false), ("PAID TO", false), ("AMOUNT", true), ("ROUND-UP", true), ("", false)],
                                             rows: rows)
            layout.header(output)
            for row in rows { output.line(layout.row(row)) }
            output.line("")
            let counted = summary.lines.filter { summary.isSaveable($0) && $0.roundUp.minorUnits > 0 }.count
            output.line("Round-ups: \(summary.saveable.formatted) from \(counted) \(counted == 1 ? "payment" : "payments")")
            if let reason = context.noMoneyMoves { output.line(reason) }
            if let problem = progress.currencyProblem { output.line(problem) }
            for part in progress.saved {
                output.line(savedSentence(part, context: context))
            }
            if let pending = progress.pending {
                output.line("No answer yet: \(pending.amount.formatted) into \(pending.goalName) (sent again first by the next save)")
            }
            if !progress.isOver && progress.saved.isEmpty && progress.pending == nil && context.noMoneyMoves == nil {
                output.line("The week is under way: its round-ups are saved whole once it is over, from \(context.day(week.end)).")
            }
        case .json:
            output.line("{\"schema\":\"qapital-tui.roundups\",\"version\":\(jsonSchemaVersion),\"source\":\(Cell.json(context.sourceKind)),"
                        + "\"week\":\(Cell.json(week.isoLabel)),\"from\":\(Cell.json(Cell.isoTime(week.start))),\"to\":\(Cell.json(Cell.isoTime(week.end))),")
            output.line("\"payments\":[")
            for (index, line) in summary.lines.enumerated() {
                let fields = [
                    "\"id\":\(Cell.json(line.id))",
                    "\"time\":\(Cell.json(Cell.isoTime(line.transaction.timestamp)))",
                    "\"counterparty\":\(Cell.json(line.transaction.counterparty))",
                    "\"amount\":\(CommandContext.jsonMoney(line.transaction.amount))",
                    "\"roundUp\":\(CommandContext.jsonMoney(line.roundUp))",
                    "\"state\":\(Cell.json(state(line)))",
                ]
                output.line("{" + fields.joined(separator: ",") + "}" + (index < summary.lines.count - 1 ? "," : ""))
            }
            output.line("],")
            output.line("\"total\":\(CommandContext.jsonMoney(summary.saveable)),\"notSaved\":\(CommandContext.jsonMoney(progress.remainingTotal)),")
            let transfers = (progress.saved + [progress.pending].compactMap { $0 }).map { part in
                "{\"transferId\":\(Cell.json(part.key.uuidString.lowercased())),\"state\":\(Cell.json(part.state.rawValue)),"
                    + "\"goal\":{\"id\":\(Cell.json(part.goalId.rawValue)),\"name\":\(Cell.json(part.goalName))},"
                    + "\"amount\":\(CommandContext.jsonMoney(part.amount)),\"payments\":\(part.payments.count),"
                    + "\"savedAt\":\(part.savedAt.map { Cell.json(Cell.isoTime($0)) } ?? "null")}"
            }
            output.line("\"transfers\":[" + transfers.joined(separator: ",") + "]}")
        case .csv:
            output.line("id,time,counterparty,amount,round_up,currency,state")
            for line in summary.lines {
                output.line([Cell.csv(line.id), Cell.isoTime(line.transaction.timestamp), Cell.csv(line.transaction.counterparty),
                             Cell.decimal(line.transaction.amount), Cell.decimal(line.roundUp), line.roundUp.currency.code,
                             state(line)].joined(separator: ","))
            }
        case .ledger:
            throw CommandFailure(.usage, "--output ledger is for activity and export (roundups: table, json or csv)")
        }
    }

    static func savedSentence(_ part: SavedRoundUp, context: CommandContext) -> String {
        let when = part.savedAt.map { " on " + context.day($0) } ?? ""
        if part.state == .savedElsewhere { return "Already saved by another run or machine\(when)" }
        return "Saved \(part.amount.formatted) into \(part.goalName)\(when) (\(part.payments.count) \(part.payments.count == 1 ? "payment" : "payments"))"
    }

    /// How a save asks before moving money: nil when it cannot ask (no terminal).
    public typealias Confirm = @Sendable (String) -> Bool?

    /// Saves the week's round-ups not saved yet into the goal. Returns what to say (stdout).
    /// A transfer of the week that got no answer before is sent again first, with its key.
    public static func save(_ context: CommandContext, week: Week, goal goalText: String, dryRun: Bool, yes: Bool,
                            confirm: Confirm) async throws {
        if let reason = context.noMoneyMoves { throw CommandFailure(.failed, reason) }
        let goals = try await context.api.goals()
        let goal = try CommandContext.goal(goalText, in: goals.filter { $0.status == .active })
        var (summary, progress) = try await load(context, week: week)
        if let problem = progress.currencyProblem { throw CommandFailure(.failed, problem) }
        // `--strict`: a payment the source sent that could not be read moves nothing.
        try context.refuseSkipsIfStrict()
        var lines: [String] = []
        var moved = false
        defer { report(context, week: week, lines: lines, moved: moved, dryRun: dryRun) }

        if let pending = progress.pending {
            if dryRun {
                lines.append("would send again \(pending.amount.formatted) into \(pending.goalName) (an earlier save got no answer)")
            } else {
                try await send(pending, before: goals.first { $0.id == pending.goalId }, resent: true, context: context,
                               lines: &lines, moved: &moved)
                (summary, progress) = try await load(context, week: week)
            }
        }
        if !progress.isOver && progress.saved.isEmpty && progress.pending == nil {
            throw CommandFailure(.failed, "week \(week.isoLabel) is under way: its round-ups are saved whole once it is over, "
                                 + "from \(context.day(week.end)); nothing moved")
        }
        guard progress.remainingTotal.minorUnits > 0, progress.pending == nil || dryRun else {
            if lines.isEmpty {
                if let last = progress.saved.last {
                    let when = progress.lastSavedAt.map(context.day) ?? "an earlier run"
                    lines.append(last.state == .savedElsewhere ? "already saved on \(when) (by another run or machine)"
                                 : "already saved on \(when): \(progress.savedTotal?.formatted ?? last.amount.formatted) into \(last.goalName)")
                } else {
                    lines.append("nothing to save: week \(week.isoLabel) has no round-ups in \(summary.accountCurrency.code)")
                }
            }
            return
        }
        guard let part = context.saver.nextPart(progress, goal: goal, now: context.now()) else { return }
        let what = "\(part.amount.formatted) of round-ups from \(part.payments.count) \(part.payments.count == 1 ? "payment" : "payments") in week \(week.isoLabel) into \(goal.name)"
        if dryRun {
            lines.append("would save \(what) (transfer id \(part.key.uuidString.lowercased()))")
            return
        }
        if !yes {
            guard let answer = confirm("Move \(what)? [y/N] ") else {
                throw CommandFailure(.usage, "refusing to move money without --yes: there is no terminal to ask (--dry-run shows what would move)")
            }
            guard answer else {
                lines.append("nothing moved")
                return
            }
        }
        try await send(part, before: goal, context: context, lines: &lines, moved: &moved)
    }

    private static func send(_ part: SavedRoundUp, before: Goal?, resent: Bool = false, context: CommandContext,
                             lines: inout [String], moved: inout Bool) async throws {
        if let balance = await RoundUpStore.balanceTooLow(context.api, for: part.amount) {
            throw CommandFailure(.failed, "the balance is only \(balance.formatted); \(part.amount.formatted) was not sent")
        }
        switch await TransferAttempt.$unattended.withValue(true, operation: {
            await context.saver.send(part, api: context.api, before: before, now: context.now,
                                     checking: { context.note(SaveWords.checking(part)) })
        }) {
        case .saved(_, let goal, let checked):
            if resent, let before, before.id == goal.id, before.balance == goal.balance {
                lines.append("saved \(part.amount.formatted) into \(goal.name) by the earlier run, whose answer was lost; nothing moved now")
                return
            }
            moved = true
            lines.append(SaveWords.saved(part, goal: goal, checked: checked))
        case .savedElsewhere(_, let said):
            lines.append((said ?? "already saved by another run or machine") + "; nothing moved")
        case .savedTwice(_, let twice):
            moved = true
            throw CommandFailure(.failed, twice.message)
        case .refused(let error):
            throw CommandFailure(CommandFailure.from(error).status, SaveWords.notSaved(error))
        case .unknown(let error, let mayHaveMoved):
            // May have moved: exit 1 whatever the transport said (the server was reached).
            if mayHaveMoved { throw CommandFailure(.failed, SaveWords.mayHaveMoved(part, error)) }
            let failure = CommandFailure.from(error)
            throw CommandFailure(failure.status, "\(failure.message) (nothing moved: the next run sends the same transfer)")
        }
    }

    private static func report(_ context: CommandContext, week: Week, lines: [String], moved: Bool, dryRun: Bool) {
        guard !lines.isEmpty else { return }
        defer { context.output.flush() }
        switch context.format {
        case .json:
            context.output.line("{\"schema\":\"qapital-tui.save\",\"version\":\(jsonSchemaVersion),\"week\":\(Cell.json(week.isoLabel)),"
                                + "\"dryRun\":\(dryRun),\"moved\":\(moved),\"messages\":[\(lines.map(Cell.json).joined(separator: ","))]}")
        default:
            for line in lines { context.output.line(line) }
        }
    }
}
