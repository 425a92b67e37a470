import Commands
@testable import DemoData
@testable import DemoServer
import FeedModel
import Foundation
@testable import StarlingSource
import QapitalClient
import StarlingClient
import Testing
import TestSupport

/// Real hledger (`ExternalTool.hledger`: CI needs it; elsewhere these tests say why they skip).
enum Hledger {
    /// Whether the tests that read a journal back run, and why they skip where they do not.
    static let runs = ExternalTool.hledger.runs
    static let skipped: Comment = "hledger is not installed here (Debian: apt-get install hledger); .ci/run installs it and needs it"

    /// `hledger -f FILE balance assets:SOURCE:savings --flat -O csv`: each goal's sum, and the total.
    static func savingsBalances(journal: URL, currency: Currency, source: String) throws -> (perAccount: [String: Money], total: Money?) {
        let result = try runProcess(URL(fileURLWithPath: try ExternalTool.hledger.require()),
                                    ["-f", journal.path, "balance", "assets:\(source):savings", "--flat", "-O", "csv"])
        #expect(result.status == 0, "hledger: \(result.stderr)")
        var perAccount: [String: Money] = [:]
        var total: Money?
        for line in result.stdout.split(separator: "\n").dropFirst() {
            let cells = line.split(separator: "\",\"").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            guard cells.count == 2 else { continue }
            let number = cells[1].replacingOccurrences(of: " " + currency.code, with: "")
            let money = Money(string: number, currency: currency)
            if cells[0] == "total" { total = money } else { perAccount[cells[0]] = money }
        }
        return (perAccount, total)
    }
}

/// Runs a program with stdin from /dev/null; stdout to a file when given (exports are long), or
/// with `noReader` a pipe whose reading end is closed at once (`| head` that has gone).
func runProcess(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                stdoutFile: URL? = nil, noReader: Bool = false) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe()
    let err = Pipe()
    if let stdoutFile {
        _ = FileManager.default.createFile(atPath: stdoutFile.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: stdoutFile)
    } else {
        process.standardOutput = out
    }
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    if noReader { try out.fileHandleForReading.close() }
    // stderr is one line at most: read stdout to its end first, then stderr.
    let stdout = stdoutFile == nil && !noReader ? out.fileHandleForReading.readDataToEndOfFile() : Data()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

extension BlockingTests {
    /// The commands as a script runs them: the binary, no terminal, exit statuses, and the
    /// journal read by real hledger.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct CommandBinaryTests {
        static func environment(_ extra: [String: String] = [:]) -> [String: String] {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("cli-home-\(UUID().uuidString)").path
            return ["PATH": "/usr/bin:/bin", "HOME": home, "XDG_CACHE_HOME": home + "/cache", "XDG_CONFIG_HOME": home + "/config",
                    "TZ": "Europe/London"].merging(extra) { $1 }
        }

        func run(_ arguments: [String], _ environment: [String: String] = CommandBinaryTests.environment(),
                 stdoutFile: URL? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
            try runProcess(TerminalSession.binary, arguments, environment: environment, stdoutFile: stdoutFile)
        }

        /// `qapital-tui export | head -1`: the reader goes; the export stops quietly with the status
        /// a SIGPIPE would give (before: a trap in FileHandle.write, status 132 and a backtrace).
        @Test func anExportWhoseReaderHasGoneStopsQuietly() throws {
            // No reader from the start: the first write already finds the pipe closed.
            let result = try runProcess(TerminalSession.binary, ["export", "--output", "csv"],
                                        environment: CommandBinaryTests.environment(), noReader: true)
            #expect(result.status == 141)
            #expect(result.stderr.isEmpty)
        }

        @Test func exitStatusesAndOneLineErrors() throws {
            let goals = try run(["goals"])
            #expect(goals.status == 0 && goals.stdout.contains("Balloons") && goals.stderr.isEmpty)
            #expect(!goals.stdout.contains("\u{1B}"))  // not a terminal: no colour

            let cases: [([String], [String: String], Commands.ExitStatus, String)] = [
                (["roundups", "--save", "--goal", "Balloons", "--week", "last"], [:], .usage,
                 "qapital-tui: refusing to move money without --yes: there is no terminal to ask (--dry-run shows what would move)\n"),
                (["goals", "--output", "xml"], [:], .usage, "qapital-tui: --output wants table, json or csv, not \"xml\"\n"),
                (["activity", "--output", "xml"], [:], .usage, "qapital-tui: --output wants table, json, csv or ledger, not \"xml\"\n"),
                (["roundups", "--goal", "Dog"], [:], .usage, "qapital-tui: --goal, --dry-run and --yes go with --save\n"),
                (["roundups", "--save", "--goal", "Nope", "--yes"], [:], .usage,
                 "qapital-tui: --goal: no goal is called \"Nope\" (qapital-tui goals lists them)\n"),
                (["activity", "--since", "soon"], [:], .usage,
                 "qapital-tui: --since wants a date such as 2026-11-20 or 2026-11-20T08:00:00Z, not \"soon\"\n"),
                (["goals", "--api-url", "http://127.0.0.1:9"], [:], .unreachable, ""),
                (["goals", "--source", "starling", "--api-url", "http://127.0.0.1:9"], [:], .signInNeeded,
                 "qapital-tui: sign-in needed: give --token or STARLING_TOKEN (or sign in once in the app with “Remember it” ticked)\n"),
            ]
            for (arguments, extra, status, message) in cases {
                let result = try run(arguments, Self.environment(extra))
                #expect(result.status == status.rawValue, "\(arguments): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(arguments)")
                if message.isEmpty {
                    #expect(result.stderr.hasPrefix("qapital-tui: server unreachable: "), "\(arguments): \(result.stderr)")
                } else {
                    #expect(result.stderr == message, "\(arguments)")
                }
                #expect(result.stderr.filter { $0 == "\n" }.count == 1)
            }
        }

        @Test func aRefusedStarlingTokenIsSignInNeeded() async throws {
            try await withStarlingServer { _, url in
                let result = try run(["goals", "--source", "starling", "--api-url", url.absoluteString, "--token", "wrong"])
                #expect(result.status == Commands.ExitStatus.signInNeeded.rawValue)
                #expect(result.stderr.hasPrefix("qapital-tui: sign-in needed: "))
                #expect(!result.stderr.contains("wrong"))
            }
        }

        /// The "done when": saving last week twice against `serve` moves money once and
        /// says so the second time.
        @Test func roundUpsSaveTwiceAgainstServe() async throws {
            let backend = DemoBackend(now: Date())
            try await withDemoServer(backend: backend) { server, api in
                let environment = Self.environment(["QAPITAL_API_URL": (await server.baseURL).absoluteString])
                let before = try #require(try await api.goals().first { $0.name == "Balloons" }).balance
                let arguments = ["roundups", "--save", "--goal", "Balloons", "--week", "last", "--yes"]
                let first = try run(arguments, environment)
                #expect(first.status == 0, "\(first.stderr)")
                #expect(first.stdout.hasPrefix("saved "))
                let after = try #require(try await api.goals().first { $0.name == "Balloons" }).balance
                #expect(after > before)
                let second = try run(arguments, environment)
                #expect(second.status == 0)
                #expect(second.stdout.hasPrefix("already saved on "))
                #expect(try #require(try await api.goals().first { $0.name == "Balloons" }).balance == after)
                #expect(await server.receivedRequests().filter { $0.method == "POST" }.count == 1)
            }
        }

        /// `export --output ledger` read by hledger: each goal's sum and the total are the app's
        /// (a bank's: each goal's balance as the bank says it; BankJournalTests has the rest).
        @Test(.enabled(if: Hledger.runs, Hledger.skipped),
              arguments: ["demo", "qapital", "starling"])
        func theJournalAgreesWithTheAppsSums(source: String) async throws {
            let journal = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString).journal")
            defer { try? FileManager.default.removeItem(at: journal) }
            func check(api: any SavingsAPI, currency: Currency, arguments: [String], environment: [String: String]) async throws {
                let result = try run(["export", "--output", "ledger"] + arguments, environment, stdoutFile: journal)
                #expect(result.status == 0, "\(result.stderr)")
                // The app's own sums of the same activities.
                let context = CommandContext(api: api, sourceKind: source, currency: currency, format: .csv, output: OutputSink { _ in },
                                             calendar: Week.calendar(in: TimeZone(identifier: "Europe/London")!), now: { fixedNow },
                                             saver: RoundUpSaver(identity: .demo, record: MemoryRoundUpRecord()))
                let totals = try await ActivityExport.run(context, kind: .export, since: nil, until: Date(), goal: nil)
                #expect(totals.rows > 50)
                let ledger = try Hledger.savingsBalances(journal: journal, currency: currency, source: source)
                var expected: [String: Money] = [:]
                if source == "starling" {
                    for goal in try await api.goals() where goal.balance.minorUnits != 0 {
                        expected["assets:starling:savings:" + Cell.accountPart(goal.name)] = goal.balance
                    }
                    #expect(ledger.total?.minorUnits == expected.values.reduce(0) { $0 + $1.minorUnits })
                } else {
                    for (goal, sum) in totals.perGoal {
                        expected["assets:\(source):savings:" + (goal.isEmpty ? "no goal" : Cell.accountPart(goal))] = sum
                    }
                    #expect(ledger.total == totals.total)
                }
                #expect(ledger.perAccount == expected)
            }
            switch source {
            case "demo":
                // The binary's demo is made at its own start: the same dataset for the same day.
                let api = DemoSavingsAPI(backend: DemoBackend(now: Date()))
                try await check(api: api, currency: .usd, arguments: [], environment: Self.environment())
            case "qapital":
                try await withDemoServer(backend: DemoBackend(now: Date())) { server, api in
                    try await check(api: api, currency: .usd, arguments: [],
                                    environment: Self.environment(["QAPITAL_API_URL": (await server.baseURL).absoluteString]))
                }
            default:
                try await withStarlingServer(backend: DemoBackend(now: Date(), options: .init(currency: .gbp))) { _, url in
                    let api = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken)
                    try await check(api: api, currency: .gbp, arguments: ["--source", "starling", "--api-url", url.absoluteString],
                                    environment: Self.environment(["STARLING_TOKEN": StarlingDemoAPI.testToken]))
                }
            }
        }
    }
}
