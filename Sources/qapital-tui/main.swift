import ArgumentParser
import FeedModel
import TermUI
#if canImport(Glibc)
import Glibc
#endif

struct QapitalTUI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qapital-tui",
        abstract: "Browse savings goals, activity, round-ups and achievements in the terminal.",
        version: FeedModelInfo.version
    )

    func run() throws {
        guard isatty(STDOUT_FILENO) == 1 else {
            throw ValidationError("standard output is not a terminal")
        }
        BasicTerminal.showBanner("qapital-tui — press q to quit")
    }
}

QapitalTUI.main()
