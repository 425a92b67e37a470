import ArgumentParser
import FeedModel
import TermUI
#if canImport(Glibc)
import Glibc
#endif

/// The app itself (the default subcommand).
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the app (the default)."
    )

    @MainActor
    func run() async throws {
        guard isatty(STDOUT_FILENO) == 1 else {
            throw ValidationError("standard output is not a terminal")
        }
        BasicTerminal.showBanner("qapital-tui — press q to quit")
    }
}
