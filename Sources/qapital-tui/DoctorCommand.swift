import ArgumentParser
import Foundation
import TermUI
#if canImport(Glibc)
import Glibc
#endif

/// `qapital-tui doctor`: asks the terminal what it can do, as the app does at start, and says
/// what the app will use (pictures, synchronized output, truecolor, the cell size) and why.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Show what the terminal can do and what the app will use (pictures, synchronized output, colours)."
    )

    @Option(help: ArgumentHelp("The config file (default: $XDG_CONFIG_HOME/qapital-tui/config.toml, if there is one).", valueName: "path"))
    var config: String?

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let file: ConfigFile?
        do {
            file = try ConfigFile.load(path: config, environment: environment)
        } catch {
            throw ValidationError(error.message)
        }
        let overrides = file?.terminal ?? TerminalCapabilities.Overrides()
        let probe = TerminalProbe.run(environment: environment, overrides: overrides)
        let capabilities = TerminalCapabilities.resolve(replies: probe.replies, environment: environment, overrides: overrides,
                                                        size: TerminalProbe.windowSize())
        let milliseconds = probe.elapsed.map { Int($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) }
        for line in capabilities.report(term: environment["TERM"] ?? "", elapsedMilliseconds: milliseconds, asked: probe.asked || !overrides.probe) {
            print(line)
        }
    }
}
