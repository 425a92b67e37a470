import FeedModel
import Foundation

/// `qapital-tui rules --save`: settles every due (rule, period) up to a week, once each
/// (RULES.md, "Settling a week"). One engine with the round-ups: each period is one
/// `SavedRoundUp` sent by a `RoundUpSaver` under its key: the round-up rule's week under the
/// round-ups key and record (so the Round-ups tab, `roundups --save` and this never move one
/// week twice), every other rule's period under its own key in the rules' record.
extension RulesCommands {
    /// Weeks caught up at most, counting the one asked for: older ones are left (said once).
    public static let catchUpWeeks = 12

    /// One period to settle, as planned.
    struct Move {
        let rule: Rule
        let goal: Goal
        let part: SavedRoundUp
        /// Sent before without an answer: sent again first, the same key and amount.
        let resend: Bool
        /// The round-up rule: the round-ups' saver and record.
        let roundUps: Bool
    }

    /// The week a rule may owe from: its `since`'s week, else the week it was first read in
    /// (kept in the record the first time; never a week before it was first seen).
    static func start(of rule: Rule, _ context: CommandContext, record: any RuleRecord) -> Week {
        let current = Week(containing: context.now(), calendar: context.calendar)
        if let since = rule.since { return Week(containing: since, calendar: context.calendar) }
        if let kept = record.start(of: rule.name), let week = Week(isoLabel: kept, calendar: context.calendar) { return week }
        try? record.keepStart(current.isoLabel, of: rule.name)
        return current
    }

    /// Why a send of `amount` is held: it would leave the account under the floor, or under
    /// nothing, by the balance the bank gives now (never a kept one); a floor with no balance to
    /// keep it above holds too. Nil: it fits.
    static func holdReason(_ amount: Money, floor: Money?, _ context: CommandContext) async -> String? {
        let said = try? await context.api.currentAccount()?.effectiveBalance
        guard let balance = said ?? nil, balance.currency == context.currency else {
            return floor.map { "the source gave no balance to keep \($0.formatted) above" }
        }
        let after = Money(minorUnits: Money.add(balance.minorUnits, Money.negate(amount.minorUnits)), currency: context.currency)
        if let floor, after.minorUnits < floor.minorUnits { return "would leave \(after.formatted), under the \(floor.formatted) you keep" }
        if after.minorUnits < 0 { return "the balance is only \(balance.formatted)" }
        return nil
    }

    public static func save(_ context: CommandContext, file: RulesFile, through last: Week, dryRun: Bool, yes: Bool,
                            confirm: RoundUpsCommands.Confirm) async throws {
        if let reason = context.rulesCannotMove { throw CommandFailure(.failed, reason) }
        guard context.now() >= last.end else {
            throw CommandFailure(.failed, "week \(last.isoLabel) is under way: rules settle a week once it is over, from \(context.day(last.end)); nothing moved")
        }
        let record = context.rules ?? MemoryRoundUpRecord()
        let ruleSaver = RoundUpSaver(identity: context.saver.identity, record: record)
        let goals = try await context.api.goals()
        let output = context.output
        defer { output.flush() }

        // The weeks to look at, oldest first: from the earliest start, at most `catchUpWeeks`.
        var weeks = [last]
        while weeks.count < catchUpWeeks { weeks.insert(weeks[0].previous, at: 0) }
        let starts = Dictionary(file.rules.map { ($0.name, start(of: $0, context, record: record)) }, uniquingKeysWith: { a, _ in a })
        if let earliest = starts.values.min() { weeks.removeAll { $0 < earliest } }
        if let earliest = starts.values.min(), earliest < weeks.first ?? last {
            context.note("weeks before \((weeks.first ?? last).isoLabel) are not caught up (at most \(catchUpWeeks) weeks a run)")
        }
        // What each week's transfers already hold (money moved or maybe moved), per week.
        func recorded(_ week: Week) -> Int64 {
            var parts = context.saver.record.parts(week: week.isoLabel) + record.parts(week: week.isoLabel)
            if let month = week.monthEnding {
                parts += record.parts(week: RulePeriod.month(year: month.year, month: month.month, settledBy: week).label)
            }
            return Money.sum(parts.filter { $0.amount.currency == context.currency }.map(\.amount.minorUnits))
        }

        var moves: [Move] = []
        var lines: [String] = []
        var held: [String] = []
        var planned: [Week: Int64] = [:]
        // One request for every week caught up (each figure counts its own week's).
        let everyWeek = if let first = weeks.first { try await context.api.transactions(from: first.start, to: last.end) } else { [Transaction]() }
        // A payment the source sent but could not be read changes a figure: refused under --strict.
        try context.refuseSkipsIfStrict()
        for week in weeks {
            let transactions = everyWeek.filter { week.contains($0.timestamp) }
            for rule in file.rules where !rule.paused && (starts[rule.name] ?? last) <= week {
                if let since = rule.since, week.end <= since { continue }
                let goal = try goal(of: rule, in: goals.filter { $0.status == .active })
                let figure = try Self.figure(of: rule, week: week, transactions: transactions, context)
                guard let figure else { continue }
                let label = "\(rule.name) \(figure.period.label)"
                let move: Move
                if case .roundUp = rule.kind {
                    let summary = RoundUp.Summary(transactions: transactions.filter { week.contains($0.timestamp) },
                                                  accountCurrency: context.currency, step: Self.roundUpStep(of: rule, context))
                    let progress = context.saver.progress(week: week, summary: summary, now: context.now())
                    if let problem = progress.currencyProblem { throw CommandFailure(.failed, problem) }
                    if let pending = progress.pending {
                        move = Move(rule: rule, goal: goal, part: pending, resend: true, roundUps: true)
                    } else if progress.isSaved {
                        if week == last { lines.append("\(label): already saved") }
                        continue
                    } else if let part = context.saver.nextPart(progress, goal: goal, now: context.now(), rule: rule.name) {
                        move = Move(rule: rule, goal: goal, part: part, resend: false, roundUps: true)
                    } else {
                        if week == last { lines.append("\(label): nothing to save") }
                        continue
                    }
                } else {
                    let key = context.saver.identity.ruleKey(rule, period: figure.period, goal: goal)
                    let existing = record.parts(week: figure.period.label).first { $0.key == key }
                    if let existing, existing.isDone {
                        if week == last { lines.append("\(label): already saved") }
                        continue
                    }
                    if let existing {
                        move = Move(rule: rule, goal: goal, part: existing, resend: true, roundUps: false)
                    } else if figure.amount.isZero {
                        if week == last { lines.append("\(label): nothing to save") }
                        continue
                    } else {
                        let part = SavedRoundUp(key: key, week: figure.period.label, goalId: goal.id, goalName: goal.name,
                                                amount: figure.amount, payments: figure.counted.sorted(), startedAt: context.now(),
                                                rule: rule.name)
                        move = Move(rule: rule, goal: goal, part: part, resend: false, roundUps: false)
                    }
                }
                // The weekly limit: what the record holds for the week, what this run sends, and this.
                if !move.resend, let limit = file.weeklyLimit {
                    let already = Money.add(recorded(week), planned[week] ?? 0)
                    if Money.add(already, move.part.amount.minorUnits) > limit.minorUnits {
                        held.append("\(label): held: \(move.part.amount.formatted) would pass the \(limit.formatted) weekly limit "
                                    + "(\(Money(minorUnits: already, currency: context.currency).formatted) already that week)")
                        continue
                    }
                }
                if !move.resend { planned[week] = Money.add(planned[week] ?? 0, move.part.amount.minorUnits) }
                moves.append(move)
            }
        }

        let total = Money(minorUnits: Money.sum(moves.map(\.part.amount.minorUnits)), currency: context.currency)
        func what(_ move: Move) -> String {
            "\(move.rule.name) \(move.part.week): \(move.part.amount.formatted) into \(move.goal.name)"
                + (move.resend ? " (sent again: an earlier run got no answer)" : "")
        }
        // A run that finds nothing due is quiet (the weekly timer's run, RULES.md); held rules are said.
        if !dryRun, moves.isEmpty, held.isEmpty { return }
        if dryRun || moves.isEmpty {
            for line in lines + moves.map({ "would save " + what($0) + " (transfer id \($0.part.key.uuidString.lowercased()))" }) + held {
                output.line(line)
            }
            if moves.isEmpty && lines.isEmpty && held.isEmpty { output.line("nothing due up to week \(last.isoLabel)") }
            if !held.isEmpty && !dryRun { throw CommandFailure(.skipped, "\(held.count) held (see above); they stay due") }
            return
        }
        if !yes {
            let list = moves.map { "  " + what($0) }.joined(separator: "\n")
            guard let answer = confirm("\(list)\nMove \(total.formatted) in \(moves.count) \(moves.count == 1 ? "transfer" : "transfers")? [y/N] ") else {
                throw CommandFailure(.usage, "refusing to move money without --yes: there is no terminal to ask (--dry-run shows what would move)")
            }
            guard answer else {
                output.line("nothing moved")
                return
            }
        }
        for line in lines { output.line(line) }
        var failures: [String] = []
        for move in moves {
            let label = "\(move.rule.name) \(move.part.week)"
            // The floor and the balance, asked of the bank just before each send. A resend too: a
            // transfer in the record may never have reached the bank (a refused connection, a
            // crash before the request), and then it is a first send. Held, it stays in the record
            // and a later run sends it under its key, moved already or not; the bank answers a
            // used key as used.
            if let reason = await holdReason(move.part.amount, floor: file.keepAtLeast, context) {
                held.append("\(label): held: " + reason + (move.resend ? " (sent before without an answer: it may have moved)" : ""))
                continue
            }
            // A first send reads the goal as it stands, to tell the bank's replay of a key
            // another machine used.
            let before: Goal? = move.resend ? nil : try? await context.api.goals().first { $0.id == move.goal.id }
            let saver = move.roundUps ? context.saver : ruleSaver
            let outcome = await TransferAttempt.$unattended.withValue(true) {
                await saver.send(move.part, api: context.api, before: before,
                                 kind: move.rule.kind.name, now: context.now,
                                 checking: { context.note(SaveWords.checking(move.part)) })
            }
            switch outcome {
            case .saved(_, let goal, let checked):
                output.line("\(label): " + SaveWords.saved(move.part, goal: goal, checked: checked))
            case .savedElsewhere(_, let said):
                output.line("\(label): " + (said ?? "already saved by another run or machine") + "; nothing moved")
            case .savedTwice(_, let twice):
                failures.append("\(label): \(twice.message)")
            case .refused(let error):
                failures.append("\(label): " + SaveWords.notSaved(error))
            case .unknown(let error, let mayHaveMoved):
                failures.append("\(label): " + (mayHaveMoved ? SaveWords.mayHaveMoved(move.part, error)
                    : "\(CommandFailure.from(error).message) (nothing moved: the next run sends the same transfer)"))
            }
        }
        for line in held { output.line(line) }
        if !failures.isEmpty {
            for line in failures.dropLast() { output.line(line) }
            throw CommandFailure(.failed, failures[failures.count - 1])
        }
        if !held.isEmpty { throw CommandFailure(.skipped, "\(held.count) held (see above); they stay due") }
    }
}
