import FeedModel
import Foundation

/// The Rules tab's `RulesBook` on a command context: the lines are `rules --week`'s
/// (`RulesCommands.lines`), a save is `rules --save --yes` (`RulesCommands.save`, its report the
/// lines it printed), a backtest is `rules --backtest`'s rows. So the tab and the commands share
/// one plan, one engine and one report; the app builds no figure of its own.
public final class CommandRulesBook: RulesBook, Sendable {
    private let context: CommandContext
    /// Writes the file (the command line's TOML, atomically with a `.bak`); nil: the rules are
    /// not the user's file (the demo's), `readOnlyFile` says so.
    private let writer: (@Sendable (RulesFile) throws -> Void)?
    public let readOnlyFile: String?
    /// The file as last read or written.
    private let current: Locked<RulesFile>
    /// The rules file could not be read (one line naming the file, the rule and the field): the
    /// tab says it and runs without rules, as the commands exit 64.
    private let problem: String?

    public init(context: CommandContext, file: RulesFile, writer: (@Sendable (RulesFile) throws -> Void)?, readOnlyFile: String? = nil,
                problem: String? = nil) {
        self.context = context
        self.current = Locked(file)
        self.writer = writer
        self.readOnlyFile = writer == nil ? readOnlyFile ?? "these rules are not a file of yours" : nil
        self.problem = problem
    }

    private var file: RulesFile { current.withLock { $0 } }

    public func file() async -> RulesFile { file }

    public func lines(week: Week) async throws -> [RuleLine] {
        if let problem { throw RulesFile.Problem(problem) }
        let context = self.context
        return try await RulesCommands.lines(context, file: file, week: week).map { line in
            RuleLine(rule: line.rule, words: line.rule.words(currency: context.currency, calendar: context.calendar),
                     goalName: line.goal.name, amount: line.figure?.amount,
                     status: line.status, reason: line.reason,
                     counted: line.payments.map { "\($0.counterparty) · \($0.amount.formatted)" },
                     leftOut: line.figure?.leftOut.count ?? 0)
        }
    }

    public func save(through last: Week) async -> RulesReport {
        if let problem { return RulesReport(lines: [problem], failed: true) }
        let said = Said()
        let output = OutputSink { said.add($0) }
        let context = CommandContext(copying: self.context, output: output, note: { said.add($0 + "\n") })
        do {
            try await RulesCommands.save(context, file: file, through: last, dryRun: false, yes: true, confirm: { _ in nil })
            output.flush()
            return RulesReport(lines: said.lines, failed: false)
        } catch {
            output.flush()
            return RulesReport(lines: said.lines + [CommandFailure.from(error).message], failed: true)
        }
    }

    public func backtest(_ file: RulesFile, rule: String, weeks: Int) async throws -> [RuleBacktestWeek] {
        // A paused rule is asked about too: what it would move once resumed.
        var file = file
        for index in file.rules.indices where file.rules[index].name == rule { file.rules[index].paused = false }
        let (all, rows) = try await RulesCommands.backtestRows(context, file: file, weeks: weeks)
        return all.map { week in
            let row = rows.first { $0.week == week && $0.rule.name == rule }
            return RuleBacktestWeek(week: week, amount: row?.amount, held: row?.held ?? false)
        }
    }

    public func transfers() async -> [SavedRoundUp] {
        context.saver.record.allParts() + (context.rules?.allParts() ?? [])
    }

    public func write(_ file: RulesFile) async throws {
        guard let writer else { throw RulesFile.Problem(readOnlyFile ?? "the rules cannot be written here") }
        try writer(file)
        current.withLock { $0 = file }
    }

    /// The lines a save printed, whole.
    private final class Said: Sendable {
        private let text = Locked("")
        func add(_ chunk: String) { text.withLock { $0 += chunk } }
        var lines: [String] { text.withLock { $0 }.split(separator: "\n").map { Cell.plain(String($0)) } }
    }
}

extension CommandContext {
    /// The same context writing its table and its notes to `output` and `note`.
    init(copying other: CommandContext, output: OutputSink, note: @escaping @Sendable (String) -> Void) {
        self.init(api: other.api, sourceKind: other.sourceKind, currency: other.currency, format: .table, output: output,
                  calendar: other.calendar, now: other.now, saver: other.saver, note: note)
        rules = other.rules
        noMoneyMoves = other.noMoneyMoves
        noRuleMoves = other.noRuleMoves
        noGoalCreation = other.noGoalCreation
        roundUpStep = other.roundUpStep
        skipped = other.skipped
        strict = other.strict
    }
}
