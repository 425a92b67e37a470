import ArgumentParser
import FeedModel
import Foundation

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

    /// Like ArgumentParser's own, but a failure is one line on stderr (no usage block), so
    /// scripts and people see exactly what was wrong. --help and --version print as usual.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exit as ExitCode {
            // A status with nothing to say (e.g. 128 + signal after the terminal was restored).
            Foundation.exit(exit.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)
            }
            let message = self.message(for: error)
                .split(whereSeparator: \.isNewline).first.map(String.init) ?? "failed"
            FileHandle.standardError.write(Data("qapital-tui: \(message)\n".utf8))
            Foundation.exit(code.rawValue == 0 ? 1 : code.rawValue)
        }
    }
}
