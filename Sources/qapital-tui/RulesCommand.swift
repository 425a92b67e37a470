import ArgumentParser
import Commands
import DemoData
import FeedModel
import Foundation
import SourceKit

/// `qapital-tui rules`: the savings rules of the rules file, each one's figure for a week and
/// where it stands; `--check` reads the file and says each rule in words. Moving the money
/// (`--save`) is not built yet: docs/rules.md says what is.
struct RulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Your savings rules (rules.toml): each one's figure for a week, or --check the file.",
        discussion: """
            Rules are read from $XDG_CONFIG_HOME/qapital-tui/rules.toml (or --rules). Each rule's figure \
            for a week is what it would move into its goal once the week is over (docs/rules.md). \
            This release shows the figures; it does not move them yet.

            \(HelpExamples.block(RulesCommand.examples, title: "EXAMPLES:"))
            """)

    static let examples: [RegisteredSource.Example] = [
        .init("rules --check", "read the rules file and say each rule in words"),
        .init("rules --week last --output json", "last week's figure of every rule, as JSON"),
    ]

    @OptionGroup var options: HeadlessOptions<DataFormats>
    @Option(help: ArgumentHelp("The rules file (default: rules.toml beside the config file).", valueName: "path"))
    var rules: String?
    @Option(help: ArgumentHelp("this, last or an ISO week such as 2026-W47 (default: this).", valueName: "week"))
    var week: String?
    @Flag(help: "Read the rules file and say each rule in words, or the first problem (status 64).") var check = false

    func validate() throws {
        if check && week != nil { throw ValidationError("--week does not go with --check") }
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
            } else {
                let chosen = try context.week(week ?? "this")
                try await context.reportingSkips { try await RulesCommands.list(context, file: file, week: chosen) }
            }
        }
    }
}
