import ArgumentParser
import Commands
import DemoData
import FeedModel
import Foundation
import SourceKit

/// `qapital-tui rules`: the savings rules of the rules file, each one's figure for a week and
/// where it stands; `--check` reads the file and says each rule in words; `--save` moves every
/// due week once (`RulesCommands.save`).
struct RulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Your savings rules (rules.toml): each one's figure for a week; --save moves them, once.",
        discussion: """
            Rules are read from $XDG_CONFIG_HOME/qapital-tui/rules.toml (or --rules). Each rule's figure \
            for a week is what it moves into its goal once the week is over (docs/rules.md). --save \
            moves every due week up to --week once, under the weekly limit and above the floor; \
            what does not fit is held (status 3) and moved by a later run.

            \(HelpExamples.block(RulesCommand.examples, title: "EXAMPLES:"))
            """)

    static let examples: [RegisteredSource.Example] = [
        .init("rules --check", "read the rules file and say each rule in words"),
        .init("rules --week last --output json", "last week's figure of every rule, as JSON"),
        .init("rules --save --yes", "move every rule's due weeks, once each"),
        .init("rules --backtest --weeks 8", "what the rules would have moved in each of the last 8 weeks"),
    ]

    @OptionGroup var options: HeadlessOptions<DataFormats>
    @Option(help: ArgumentHelp("The rules file (default: rules.toml beside the config file).", valueName: "path"))
    var rules: String?
    @Option(help: ArgumentHelp("this, last or an ISO week such as 2026-W47 (default: this).", valueName: "week"))
    var week: String?
    @Flag(help: "Read the rules file and say each rule in words, or the first problem (status 64).") var check = false
    @Flag(help: "Move every due week of every rule, up to --week (default: last), once each, after asking.") var save = false
    @Flag(name: .customLong("dry-run"), help: "With --save: say what would move, move nothing.") var dryRun = false
    @Flag(help: "With --save: do not ask (needed without a terminal).") var yes = false
    @Flag(help: "What the rules would have moved in each past week (nothing is sent).") var backtest = false
    @Option(help: ArgumentHelp("With --backtest: how many weeks back (default: 12, at most 104).", valueName: "n")) var weeks: Int?

    func validate() throws {
        if check && (week != nil || save) { throw ValidationError("--check goes alone (without --week or --save)") }
        if !save && (dryRun || yes) { throw ValidationError("--dry-run and --yes go with --save") }
        if [check, save, backtest].filter({ $0 }).count > 1 { throw ValidationError("--check, --save and --backtest go one at a time") }
        if backtest && week != nil { throw ValidationError("--backtest takes --weeks, not --week") }
        if !backtest && weeks != nil { throw ValidationError("--weeks goes with --backtest") }
        if let weeks, !(1...104).contains(weeks) { throw ValidationError("--weeks wants 1 to 104") }
    }

    func run() async throws {
        try await headless {
            let environment = ProcessInfo.processInfo.environment
            let context = try await options.context(environment: environment)
            let file: RulesFile
            do {
                let found = try RulesFileTOML.load(path: rules, environment: environment, currency: context.currency,
                                                   calendar: context.calendar)
                    // The demo's own rules, where the user has none: every kind, with figures.
                    ?? (context.sourceKind == "demo" ? DemoRules.file(currency: context.currency, calendar: context.calendar, now: context.now()) : nil)
                guard let found else {
                    let path = RulesFileTOML.defaultURL(environment: environment).map { TextSanitizer.clean($0.path) } ?? "rules.toml"
                    throw CommandFailure(.usage, "No rules file at \(path): write one (docs/rules.md has an example) or give --rules PATH")
                }
                file = found
            } catch let problem as RulesFile.Problem {
                throw CommandFailure(.usage, problem.message)
            }
            if check {
                try await RulesCommands.check(context, file: file)
            } else if backtest {
                try await context.reportingSkips { try await RulesCommands.backtest(context, file: file, weeks: weeks ?? 12) }
            } else if save {
                let through = try context.week(week ?? "last")
                try await context.reportingSkips {
                    try await RulesCommands.save(context, file: file, through: through, dryRun: dryRun, yes: yes, confirm: RoundUpsCommand.ask)
                }
            } else {
                let chosen = try context.week(week ?? "this")
                try await context.reportingSkips { try await RulesCommands.list(context, file: file, week: chosen) }
            }
        }
    }
}
