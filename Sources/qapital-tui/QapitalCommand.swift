import ArgumentParser
import FeedModel
import Foundation
import QapitalApp
import SourceKit

/// `qapital-tui`: the app itself, with its options at the top level (so `--help` lists them);
/// `qapital-tui serve` serves the demo API over HTTP. `run` is kept, hidden, for scripts that
/// named it.
@main
struct QapitalCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "qapital-tui",
        abstract: "Browse savings goals, activity, round-ups and achievements in the terminal.",
        discussion: """
        Without --source or --api-url (or QAPITAL_SOURCE, QAPITAL_API_URL, or the config file) the app \
        runs on its built-in demo data. \(QapitalCommand.banksSentence) Settings, a theme and \
        keys are read from $XDG_CONFIG_HOME/qapital-tui/config.toml (or --config; README, "Config \
        file"); flags win over the file, and NO_COLOR in the environment turns colours off.

        \(HelpExamples.block(QapitalCommand.examples))
        """,
        version: FeedModelInfo.version,
        subcommands: [ServeCommand.self, GoalsCommand.self, ActivityCommand.self, RoundUpsCommand.self, RulesCommand.self, ExportCommand.self,
                      LoginCommand.self, LogoutCommand.self, AppCommand.self, DoctorCommand.self]
    ) }

    @OptionGroup var app: AppOptions
    @OptionGroup var screen: ScreenOptions

    /// "--source starling reads a Starling Bank account (the token from --token, STARLING_TOKEN
    /// or QAPITAL_TOKEN, in that order); --source monzo …": every bank in the registry. A source
    /// that signs in only through a consent at the bank takes no token, and says so.
    static var banksSentence: String {
        let consent = Set(SourceRegistry.consentOnly.map(\.name))
        return SourceRegistry.all.filter { $0.description.signIn.checksToken }.map { bank in
            let title = bank.description.title
            if consent.contains(bank.name) {
                return "--source \(bank.name) reads the accounts you consent to at your bank through \(title) (no token: "
                    + "`qapital-tui login \(bank.name)` gives the consent in a browser, with your application and key from the "
                    + "config file's [\(bank.name)] table; \(bank.description.documentation))"
            }
            let from = (["--token"] + bank.description.tokenVariables).joined(separator: ", ")
            let login = bank.bank?.oauth == nil ? "" : ", or `qapital-tui login \(bank.name)`"
            return "--source \(bank.name) reads \(article(title)) \(title) account (the token from \(from), in that order\(login))"
        }.joined(separator: "; ") + "."
    }

    /// "an" before a vowel's letter ("an Up account"), else "a".
    static func article(_ word: String) -> String {
        guard let first = word.lowercased().first else { return "a" }
        return "aeiou".contains(first) ? "an" : "a"
    }

    /// The main help's examples, each source's own among them.
    static var examples: [RegisteredSource.Example] {
        [
            .init("", "the demo, no network"),
            .init("--no-images --theme light", "monograms, a light background"),
            .init("serve --port 8080", "the demo API over HTTP"),
            .init("--api-url http://127.0.0.1:8080", "the app on that server"),
        ] + SourceRegistry.all.flatMap(\.examples) + [
            .init("--log-file /tmp/qapital.log", "requests, for a bug report"),
            .init("goals --output json", "the goals, for scripts (docs/cli.md)"),
            .init("roundups --save --goal Dog --week last --yes", "last week's round-ups into Dog, once"),
        ]
    }

    @MainActor
    func run() async throws {
        try await app.run(screen: screen)
    }

    /// Parses a command line. A subcommand's arguments are parsed without the app's options:
    /// ArgumentParser lets a parent's options appear after a subcommand, so the app's
    /// `--currency` would otherwise take `serve --currency`'s value.
    static func parse(arguments: [String]) throws -> any ParsableCommand {
        // `help NAME`: ArgumentParser prints the main help for a name it does not know; say so instead.
        if arguments.first == "help", let unknown = arguments.dropFirst().first(where: { !Subcommands.names.contains($0) }) {
            let names = Subcommands.names.subtracting(["run"]).sorted().joined(separator: ", ")
            throw ValidationError("help: no command \"\(TextSanitizer.clean(String(unknown.prefix(40))))\" (commands: \(names))")
        }
        if let first = arguments.first, Subcommands.names.contains(first) {
            return try Subcommands.parseAsRoot(arguments)
        }
        return try parseAsRoot(arguments)
    }

    /// `qapital-tui serve …` and `qapital-tui run …`, parsed under a root without options.
    struct Subcommands: ParsableCommand {
        static let names: Set<String> = ["serve", "run", "goals", "activity", "roundups", "rules", "export", "login", "logout", "doctor"]
        static let configuration = CommandConfiguration(
            commandName: "qapital-tui", version: FeedModelInfo.version,
            subcommands: [ServeCommand.self, GoalsCommand.self, ActivityCommand.self, RoundUpsCommand.self, RulesCommand.self, ExportCommand.self,
                      LoginCommand.self, LogoutCommand.self, AppCommand.self, DoctorCommand.self])
    }

    /// Like ArgumentParser's own, but a failure is one line on stderr (no usage block), so
    /// scripts and people see exactly what was wrong. --help and --version print as usual.
    static func main() async {
        MemoryPolicy.apply()
        StandardStream.ignoreBrokenPipes()
        do {
            var command = try parse(arguments: Array(CommandLine.arguments.dropFirst()))
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let headless as HeadlessExit {
            // A headless command: its own status (docs/cli.md) and one line.
            StandardStream.error.line("qapital-tui: \(headless.failure.message)")
            Foundation.exit(headless.failure.status.rawValue)
        } catch let exit as ExitCode {
            // A status with nothing to say (e.g. 128 + signal after the terminal was restored).
            Foundation.exit(exit.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)
            }
            // A command typed wrong (the first word, where a command goes): the nearest one.
            let first = CommandLine.arguments.dropFirst().first ?? ""
            let suggestion = code == .validationFailure ? CommandSuggestion.message(for: first, commands: Subcommands.names) : nil
            let message = suggestion ?? self.message(for: error)
                .split(whereSeparator: \.isNewline).first.map(String.init) ?? "failed"
            StandardStream.error.line("qapital-tui: \(message)")
            Foundation.exit(code.rawValue == 0 ? 1 : code.rawValue)
        }
    }
}

/// `qapital-tui run …`: the app, for scripts that named it; the options are `AppOptions`,
/// which the top-level command (`QapitalCommand`) carries too.
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the app (the default; the same options as qapital-tui itself).",
        shouldDisplay: false
    )

    @OptionGroup var options: AppOptions
    @OptionGroup var screen: ScreenOptions

    @MainActor
    func run() async throws {
        try await options.run(screen: screen)
    }
}
