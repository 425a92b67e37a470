import ArgumentParser
import Commands
import FeedModel
import Foundation
import SourceKit
#if canImport(Glibc)
import Glibc
#endif

/// The formats a command writes: what its `--output` help offers and what it takes.
protocol CommandFormats {
    static var formats: [OutputFormat] { get }
}

/// `goals` and `roundups`: rows for people and scripts.
enum DataFormats: CommandFormats {
    static var formats: [OutputFormat] { [.table, .json, .csv] }
}

/// `activity` and `export`: also a journal for hledger and ledger.
enum JournalFormats: CommandFormats {
    static var formats: [OutputFormat] { [.table, .json, .csv, .ledger] }
}

/// The options every headless command shares: the app's (source, token, config, currency…)
/// and `--output`, offering only the formats the command writes.
struct HeadlessOptions<Formats: CommandFormats>: ParsableArguments {
    @OptionGroup var app: AppOptions

    @Option(help: ArgumentHelp("\(HeadlessOptions.formatList) (docs/cli.md).", valueName: "format"))
    var output: String = "table"

    /// "table, json or csv".
    static var formatList: String {
        orList(Formats.formats.map(\.rawValue))
    }

    func validate() throws { _ = try format() }

    @Flag(help: "A record the source sent that cannot be read fails the run (status 1) before anything is written or moved; without it the run names it on stderr and exits 3.")
    var strict = false

    @Flag(help: "Send a request even past the source's own daily request budget (a source that allows a few a day); without it such a request is refused (status 1).")
    var force = false

    func format() throws -> OutputFormat {
        guard let format = OutputFormat(rawValue: output.lowercased()), Formats.formats.contains(format) else {
            throw ValidationError("--output wants \(HeadlessOptions.formatList), not \"\(TextSanitizer.clean(String(output.prefix(20))))\"")
        }
        return format
    }

    /// The source, without a terminal: the demo, the Qapital API, or Starling with a token from
    /// the flags, the environment or the remembered file (no sign-in form: exit 77 instead).
    func context(environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> CommandContext {
        try await context(settings: try app.settings(environment: environment), environment: environment)
    }

    /// The context on `settings` (the app's, so the round-up step and the rest are the app's);
    /// `output`: stdout unless given (tests).
    func context(settings: AppOptions.Settings, environment: [String: String], output: OutputSink? = nil) async throws -> CommandContext {
        let format = try format()
        var settings = settings
        var account: String?
        var details: (@Sendable () -> [String: ActivityDetails])?
        var balances: (@Sendable () -> [BookedBalance])?
        let source = settings.source
        if let bank = source.registered.bank, let base = source.baseURL {
            let api = try await connectBank(bank, base: base, source: source.description, settings: settings, environment: environment)
            details = { api.activityDetails }
            balances = { api.bookedBalances }
            settings.api = api
            settings.currency = api.accountCurrency
            settings.skippedRecords = api.skippedRecords
            account = api.accountId
        }
        guard let api = settings.api else { throw CommandFailure(.failed, "no source") }
        let tty = isatty(STDOUT_FILENO) == 1
        var context = CommandContext(api: api, sourceKind: source.description.name, currency: settings.currency, format: format,
                                     output: output ?? .standardOutput(colors: settings.colors && tty && format == .table),
                                     saver: app.roundUpSaver(settings.source, account: account, environment: environment),
                                     note: { line in StandardStream.error.line("qapital-tui: " + Cell.plain(line)) })
        context.rules = app.roundUpSaver(settings.source, account: account, environment: environment, kind: "rules").record as? any RuleRecord
        context.noMoneyMoves = source.description.noMoneyMoves
        context.noRuleMoves = source.description.noRuleMoves
        context.noGoalCreation = source.description.noGoalCreation
        // The same step as the app's Round-ups tab (`--round-up-step` or the config file's), in
        // minor units of the account's currency (a bank's is known only once connected).
        context.roundUpStep = settings.roundUpStep
        context.skipped = settings.skippedRecords
        context.strict = strict
        context.activityDetails = details
        context.bookedBalances = balances
        return context
    }
}

extension HeadlessOptions {
    /// A bank's account, without a terminal: a token from the flags or the environment, else the
    /// pair `login NAME` kept (refreshed as the app would), else one the app remembered.
    func connectBank(_ bank: BankConnector, base: URL, source: SourceDescription, settings: AppOptions.Settings,
                     environment: [String: String]) async throws -> any BankAPI {
        let credential = app.bankCredential(bank, source: source, baseURL: base, environment: environment,
                                            settings: settings.sourceSettings, log: settings.log)
        if case .pair(let pair, let flow, let pairs) = credential {
            let start: AppOptions.BankStart
            do {
                start = try await app.startFromPair(pair, bank: bank, flow: flow, pairs: pairs, baseURL: base, log: settings.log,
                                                    settings: settings.sourceSettings)
            } catch {
                throw CommandFailure.from(error)
            }
            switch start {
            case .connected(let connection): return connection.api
            case .signIn(let refusal, _):
                throw CommandFailure(.signInNeeded, "sign-in needed: " + (refusal ?? "run qapital-tui login \(source.name)"))
            }
        }
        guard let token = credential.token else {
            let variable = source.tokenVariables.first.map { " or " + $0 } ?? ""
            let login = bank.consentSignIn == nil ? "" : ", or run qapital-tui login \(source.name)"
            // Only a token the app remembered ("Remember it" ticked) reaches a headless command.
            throw CommandFailure(.signInNeeded, "sign-in needed: give --token\(variable) (or sign in once in the app with "
                                 + "“Remember it” ticked\(login))")
        }
        let api: any BankAPI
        do {
            api = try await AppOptions.connect(bank, baseURL: base, token: token, allowInsecureHTTP: app.allowInsecureHTTP,
                                               log: settings.log, settings: settings.sourceSettings, headless: true, force: force,
                                               cacheDirectory: .some(app.cacheDirectoryURL(environment: environment))).api
        } catch {
            throw bankConnectFailure(error)
        }
        // The consent ending soon: said on stderr, as the app's status bar says it.
        if let warning = api.headlessWarning { StandardStream.error.line("qapital-tui: " + Cell.plain(warning)) }
        return api
    }
}

/// A bank that could not be opened: a key file refused (its mode, a passphrase, not RSA) or a
/// token given to a source that signs with a key is what the command line or the files say
/// wrong (64, as the app exits); the rest as any error of the API.
func bankConnectFailure(_ error: any Error) -> CommandFailure {
    if let api = error as? APIError, api.kind == .rejected, ["key", "token"].contains(api.request) {
        return CommandFailure(.usage, api.message)
    }
    return CommandFailure.from(error)
}

/// Runs a command's body and turns a failure into its exit status and one line on stderr.
func headless(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ValidationError {
        throw error
    } catch is OutputSink.ReaderGone {
        // stdout's reader has gone (`| head`): nothing to say, the status a SIGPIPE would give.
        throw ExitCode(141)
    } catch let error as CommandFailure {
        throw HeadlessExit(failure: error)
    } catch {
        throw HeadlessExit(failure: CommandFailure.from(error))
    }
}

/// A failed command's status and line, which `QapitalCommand.main` writes and exits with.
struct HeadlessExit: Error {
    let failure: CommandFailure

    /// The app's sign-in screen was left (Esc) without signing in.
    static let notSignedIn = HeadlessExit(failure: CommandFailure(.signInNeeded, "not signed in"))
}

struct GoalsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "goals",
        abstract: "List the goals: name, saved, target, progress and id.",
        discussion: HelpExamples.block(GoalsCommand.examples, title: "EXAMPLE:"))

    static let examples: [RegisteredSource.Example] = [
        .init("goals --output json | jq -r '.goals[].name'", "the goals' names, a line each"),
    ]

    @OptionGroup var options: HeadlessOptions<DataFormats>

    func run() async throws {
        try await headless {
            let context = try await options.context()
            try await context.reportingSkips { try await GoalsListing.run(context) }
        }
    }
}

struct ActivityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activity",
        abstract: "The activity feed, newest first (default: the last two weeks).",
        discussion: "Dates are YYYY-MM-DD (local midnight) or ISO 8601 times; --until is exclusive. Rows are written as each two-week window arrives.")

    @OptionGroup var options: HeadlessOptions<JournalFormats>
    @Option(help: ArgumentHelp("From this date on.", valueName: "date")) var since: String?
    @Option(help: ArgumentHelp("Before this date (default: now).", valueName: "date")) var until: String?
    @Option(help: ArgumentHelp("Only activity into this goal (a name or an id).", valueName: "goal")) var goal: String?

    func run() async throws {
        try await headless {
            let context = try await options.context()
            let (from, to) = try dates(since: since, until: until, calendar: context.calendar)
            try await context.reportingSkips {
                try await ActivityExport.run(context, kind: .activity, since: from, until: to, goal: goal)
            }
        }
    }
}

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "The whole activity history (or --since/--until), written window by window.",
        discussion: HelpExamples.block(ExportCommand.examples, title: "EXAMPLE:"))

    static let examples: [RegisteredSource.Example] = [
        .init("export --new --output ledger >> savings.journal", "each run appends only what is new"),
    ]

    @OptionGroup var options: HeadlessOptions<JournalFormats>
    @Option(help: ArgumentHelp("From this date on (default: the beginning).", valueName: "date")) var since: String?
    @Option(help: ArgumentHelp("Before this date (default: now).", valueName: "date")) var until: String?
    @Flag(help: "Only what an earlier export --new of this source and format did not write (for appending: >> savings.journal).")
    var new = false

    func validate() throws {
        if new && options.app.noCache { throw ValidationError("--new keeps what it wrote beside the cache: not with --no-cache") }
        if new && !["ledger", "csv"].contains(options.output.lowercased()) {
            throw ValidationError("--new appends: --output ledger or csv")
        }
    }

    func run() async throws {
        try await headless {
            let context = try await options.context()
            let (from, to) = try dates(since: since, until: until, calendar: context.calendar)
            let file = new ? markFile(context) : nil
            let mark = try file?.read()
            var written: ExportMark?
            do {
                try await context.reportingSkips {
                    written = try await ActivityExport.run(context, kind: .export, since: from, until: to, goal: nil, new: new, mark: mark).mark
                }
            } catch let failure as CommandFailure where failure.status == .skipped {
                // Done, with records skipped: what was written is kept as written.
                if let file, let written { try file.write(written) }
                throw failure
            }
            if let file, let written { try file.write(written) }
        }
    }

    /// `export-<hash>.latest` in the cache directory, per source, account and format.
    func markFile(_ context: CommandContext) -> ExportMarkFile? {
        guard let directory = options.app.cacheDirectoryURL(environment: ProcessInfo.processInfo.environment) else { return nil }
        let identity = context.saver.identity
        let hash = SHA1.hex(Array("\(identity.source)\n\(identity.account)\n\(context.format.rawValue)".utf8)).prefix(16)
        return ExportMarkFile(fileURL: directory.appendingPathComponent("export-\(hash).latest"))
    }
}

struct RoundUpsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roundups",
        abstract: "A week's payments and round-ups; with --save, move them into a goal (once).",
        discussion: """
            A week's round-ups move once, whatever the goal, across runs and machines: the transfer id \
            comes from the source, the account and the week. A second run says "already saved on DATE". \
            Without --yes a save asks on the terminal, and refuses without one.

            \(HelpExamples.block(RoundUpsCommand.examples, title: "EXAMPLE:"))
            """)

    static let examples: [RegisteredSource.Example] = [
        .init("roundups --save --goal Balloons --week last --yes", "last week's round-ups into Balloons, once"),
    ]

    @OptionGroup var options: HeadlessOptions<DataFormats>
    @Option(help: ArgumentHelp("this, last or an ISO week such as 2026-W47 (default: this; with --save: last).", valueName: "week"))
    var week: String?
    @Flag(help: "Move the week's round-ups not saved yet into --goal.") var save = false
    @Option(help: ArgumentHelp("With --save: the goal (a name or an id).", valueName: "goal")) var goal: String?
    @Flag(name: .customLong("dry-run"), help: "With --save: say what would move, move nothing.") var dryRun = false
    @Flag(help: "With --save: do not ask (needed without a terminal).") var yes = false

    func validate() throws {
        if save && goal == nil { throw ValidationError("--save needs --goal NAME or ID") }
        if !save && (goal != nil || dryRun || yes) { throw ValidationError("--goal, --dry-run and --yes go with --save") }
    }

    func run() async throws {
        try await headless {
            let context = try await options.context()
            let chosen = try context.week(week ?? (save ? "last" : "this"))
            try await context.reportingSkips {
                if save, let goal {
                    try await RoundUpsCommands.save(context, week: chosen, goal: goal, dryRun: dryRun, yes: yes, confirm: RoundUpsCommand.ask)
                } else {
                    try await RoundUpsCommands.list(context, week: chosen)
                }
            }
        }
    }

    /// Asks on the terminal (stderr, so stdout stays data); nil when stdin or stderr is not one.
    @Sendable static func ask(_ question: String) -> Bool? {
        guard isatty(STDIN_FILENO) == 1, isatty(STDERR_FILENO) == 1 else { return nil }
        StandardStream.error.write(question)
        guard let answer = readLine() else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}

/// `--since` and `--until` as dates; a date that is neither form is a usage error.
func dates(since: String?, until: String?, calendar: Calendar) throws -> (Date?, Date?) {
    func parse(_ text: String?, _ name: String) throws -> Date? {
        guard let text else { return nil }
        guard let date = CommandContext.parseDate(text, calendar: calendar) else {
            throw ValidationError("\(name) wants a date such as 2026-11-20 or 2026-11-20T08:00:00Z, not \"\(TextSanitizer.clean(String(text.prefix(40))))\"")
        }
        return date
    }
    return (try parse(since, "--since"), try parse(until, "--until"))
}
