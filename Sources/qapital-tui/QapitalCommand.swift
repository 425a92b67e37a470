import ArgumentParser
import FeedModel

/// `qapital-tui`: runs the app by default; `qapital-tui serve` serves the demo API over HTTP.
@main
struct QapitalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qapital-tui",
        abstract: "Browse savings goals, activity, round-ups and achievements in the terminal.",
        version: FeedModelInfo.version,
        subcommands: [AppCommand.self, ServeCommand.self],
        defaultSubcommand: AppCommand.self
    )
}
