import DemoData
import DemoServer
import EnableBankingClient
import EnableBankingSource
import FeedModel
import Commands
import Foundation
import HTTPTransport
import SourceKit
import Testing
import TestSupport

/// The headless commands of the real binary on Enable Banking, against the look-alike in this
/// process after a sign-in made as `login` makes it.
@Suite(.timeLimit(.minutes(2))) struct EnableBankingHeadlessTests {
    /// A look-alike, a home with the key and the config file (with `goals` when given), and a
    /// session of `days`.
    final class Bank: Sendable {
        let server: DemoHTTPServer
        /// Every request the look-alike answered.
        let counter: CountingHandler
        let base: String
        let home: URL
        let environment: [String: String]
        let key: EnableBankingKey
        let applicationId = EnableBankingStart.demoApplicationId
        /// Holds the first request on a path, when asked (`hold`), until the test lets it go.
        let holding: HoldingHandler?
        let goals: String?
        /// Every request by the command that sent it (`run`'s `tag`).
        let commands: CommandLog

        /// `faults`: the look-alike's (`serve --fault`); `refreshAfter`: the table's `refresh-after`;
        /// `lookAlikeBudget`: the look-alike's unattended reads a day (then 429).
        init(days: Int, goals: String? = nil, hold path: String? = nil, faults: Set<String> = [], refreshAfter: String? = nil,
             lookAlikeBudget: Int = EnableBankingDemoAPI.defaultBudget) async throws {
            self.goals = goals
            key = try EnableBankingKey.generate()
            let counter = CountingHandler(inner: try EnableBankingDemoAPI(backend: DemoBackend(), publicKeyPEM: key.publicKeyPEM,
                                                                          applicationId: EnableBankingStart.demoApplicationId,
                                                                          budget: lookAlikeBudget, faults: faults))
            self.counter = counter
            holding = path.map { HoldingHandler(inner: counter, path: $0) }
            commands = CommandLog(inner: holding ?? counter)
            server = try DemoHTTPServer(handler: commands)
            try await server.start()
            var base = await server.baseURL.absoluteString
            while base.hasSuffix("/") { base.removeLast() }
            self.base = base
            home = FileManager.default.temporaryDirectory.appendingPathComponent("eb-headless-\(UUID().uuidString)")
            environment = EnableBankingTestHome.environment(home)
            try EnableBankingTestHome.write(home, key: key, applicationId: applicationId, goals: goals, refreshAfter: refreshAfter)
            // The sign-in, as login makes it.
            let url = try #require(URL(string: base))
            let sessionFile = EnableBankingSessionFile(fileURL: EnableBankingSessionFile.defaultFile(environment: environment))
            let client = EnableBankingClient(baseURL: url, signer: EnableBankingSigner(key: key, applicationId: applicationId))
            let signIn = EnableBankingSignIn(client: client, applicationId: applicationId, sessionFile: sessionFile)
            let state = EnableBankingSignIn.newState()
            let page = try await signIn.start(aspsp: EnableBankingDemoAPI.bankName, country: "FI", psuType: "personal",
                                              redirectURL: "http://127.0.0.1:8765/callback", days: days, state: state)
            let back = try await HTTPTransport(baseURL: url, token: nil, followsRedirects: false).answer("GET", absolute: page, label: "page")
            guard case .code(let code) = EnableBankingSignIn.callback(try #require(back.header("Location")), state: state) else {
                throw CocoaError(.coderInvalidValue)
            }
            _ = try await signIn.finish(code: code, aspsp: EnableBankingDemoAPI.bankName, country: "FI")
        }

        /// The source as the app opens it (the user present), on the config file's table.
        func connect() async throws -> EnableBankingAPI {
            var settings = ["application-id": applicationId, "key-file": home.path + "/.config/qapital-tui/app.pem",
                            "aspsp": EnableBankingDemoAPI.bankName, "country": "FI"]
            settings["goals"] = goals
            return try await EnableBankingStart.connect(BankRequest(baseURL: URL(string: base)!, token: EnableBankingStart.keptMarker,
                                                                    allowInsecureHTTP: false, log: nil, settings: settings),
                                                        environment: environment)
        }

        /// The session the sign-in recorded.
        var record: EnableBankingSessionRecord? {
            EnableBankingSessionFile(fileURL: EnableBankingSessionFile.defaultFile(environment: environment))
                .newest(origin: EnableBankingFiles.origin(URL(string: base)!), applicationId: applicationId, aspsp: nil, country: nil)
        }

        /// Runs `qapital-tui ARGUMENTS --source enablebanking --api-url BASE` (`source: false`:
        /// ARGUMENTS alone, for `login`): its status, stdout and stderr. With `tag`, the address is
        /// `BASE/TAG` and `commands` files its requests under it.
        func run(_ arguments: [String], source: Bool = true, tag: String? = nil) async -> (status: Int32, output: String, error: String) {
            let (environment, base) = (self.environment, self.base + (tag.map { "/" + CommandLog.prefix + $0 } ?? ""))
            return await onOwnThread {
                let process = Process()
                process.executableURL = TerminalSession.binary
                process.arguments = arguments + (source ? ["--source", "enablebanking", "--api-url", base] : [])
                var all = ProcessInfo.processInfo.environment
                for (key, value) in environment { all[key] = value }
                all.removeValue(forKey: "QAPITAL_API_URL")
                process.environment = all
                let output = Pipe(), error = Pipe()
                process.standardOutput = output
                process.standardError = error
                process.standardInput = FileHandle.nullDevice
                guard (try? process.run()) != nil else { return (-1, "", "did not start") }
                // stderr read on a thread of its own while stdout is read here (a full pipe would block the child).
                let errorData = Locked(Data())
                let errorRead = DispatchSemaphore(value: 0)
                Thread {
                    let data = error.fileHandleForReading.readDataToEndOfFile()
                    errorData.withLock { $0 = data }
                    errorRead.signal()
                }.start()
                let outputData = output.fileHandleForReading.readDataToEndOfFile()
                errorRead.wait()
                process.waitUntilExit()
                return (process.terminationStatus, String(decoding: outputData, as: UTF8.self),
                        String(decoding: errorData.withLock { $0 }, as: UTF8.self))
            }
        }

        func stop() async {
            await server.stop()
            try? FileManager.default.removeItem(at: home)
        }
    }

    /// What each command sent: a first path segment `cmd-TAG` (its `--api-url BASE/cmd-TAG`, the
    /// same origin, so the same session, cache and read count) is taken off and the request filed
    /// under TAG with the answer's status; requests without one (the sign-in) under nil.
    actor CommandLog: ServeHandler {
        static let prefix = "cmd-"
        struct Entry: Sendable { let tag: String?; let path: String; let query: String; let status: Int }
        let inner: any ServeHandler
        private(set) var entries: [Entry] = []

        init(inner: any ServeHandler) { self.inner = inner }

        func handle(_ request: ServeRequest) async -> ServeResponse {
            var request = request
            var tag: String?
            let parts = request.path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: true)
            if let first = parts.first, first.hasPrefix(CommandLog.prefix) {
                tag = String(first.dropFirst(CommandLog.prefix.count))
                request.path = "/" + (parts.count > 1 ? parts[1] : "")
            }
            let response = await inner.handle(request)
            entries.append(Entry(tag: tag, path: request.path, query: request.rawQuery, status: response.status))
            return response
        }

        /// Reads the look-alike answered (a balances request, or a first transactions page), by
        /// command: "ACCOUNT balances" or "ACCOUNT transactions".
        func reads(of tag: String?) -> [String] {
            entries.filter { $0.tag == tag && $0.status == 200 && $0.path.hasPrefix("/accounts/") && !$0.query.contains("continuation_key") }
                .map { $0.path.split(separator: "/").dropFirst().joined(separator: " ") }
        }

        /// Every read the look-alike answered, by account and endpoint.
        var readsByAccount: [String: Int] {
            var counts: [String: Int] = [:]
            for entry in entries where entry.status == 200 && entry.path.hasPrefix("/accounts/") && !entry.query.contains("continuation_key") {
                counts[entry.path.split(separator: "/").dropFirst().joined(separator: " "), default: 0] += 1
            }
            return counts
        }

        /// Requests about accounts a command sent, whatever the answer.
        func accountRequests(of tag: String) -> Int {
            entries.count { $0.tag == tag && $0.path.hasPrefix("/accounts/") }
        }

        func answered(_ status: Int) -> Int { entries.count { $0.status == status } }
    }

    /// A look-alike that holds the first request whose path contains `path` until `letGo`: the
    /// command that sent it is then alive, mid-read, with its requests signed.
    actor HoldingHandler: ServeHandler {
        let inner: any ServeHandler
        let path: String
        private var held = false
        private var arrival: CheckedContinuation<Void, Never>?
        private var release: CheckedContinuation<Void, Never>?

        init(inner: any ServeHandler, path: String) {
            self.inner = inner
            self.path = path
        }

        func handle(_ request: ServeRequest) async -> ServeResponse {
            if !held && request.path.contains(path) {
                held = true
                arrival?.resume()
                arrival = nil
                await withCheckedContinuation { release = $0 }
            }
            return await inner.handle(request)
        }

        /// Returns once the request is held.
        func arrived() async {
            if held { return }
            await withCheckedContinuation { arrival = $0 }
        }

        func letGo() {
            release?.resume()
            release = nil
        }
    }

    /// While a headless command reads (held mid-read by the look-alike, its requests signed), no
    /// JWT, key bytes or session id is in its argument list or any child's; nor in what it prints.
    @Test func aHeadlessReadHoldsNoSecretInTheProcessList() async throws {
        let bank = try await Bank(days: 90, hold: "/transactions")
        let holding = try #require(bank.holding)
        async let ran = bank.run(["activity", "--output", "json"])
        await holding.arrived()
        // The command: the process whose arguments name this look-alike's address.
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init).filter { pid in
            let line = ConsentSignInBinaryTests.commandLines(of: pid).first ?? ""
            return line.contains("activity") && line.contains(bank.base)
        }
        #expect(pids.count == 1)
        let record = try #require(bank.record)
        let pemBody = bank.key.privateKeyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.prefix(3)
        for pid in pids {
            for line in ConsentSignInBinaryTests.commandLines(of: pid) {
                #expect(!line.contains("eyJ"), "a JWT in a command line")
                #expect(!line.contains(record.sessionId), "the session id in a command line")
                for part in pemBody { #expect(!line.contains(part), "the key in a command line") }
            }
        }
        await holding.letGo()
        let result = await ran
        #expect(result.status == 0, "\(result.error)")
        for text in [result.output, result.error] {
            #expect(!text.contains("eyJ") && !text.contains(record.sessionId))
        }
        await bank.stop()
    }

    /// Reads made one after another, then commands run at once, against a look-alike allowing `limit` a day.
    struct AtOnce: Sendable, CustomTestStringConvertible {
        let spent: Int
        let commands: Int
        let limit: Int
        var testDescription: String { "\(spent) spent, \(commands) at once, the bank's limit \(limit)" }
    }

    /// Headless commands run at once, as separate processes on one home, each wanting every
    /// account read (`refresh-after` 0s), after `spent` reads made one after another: the count
    /// in the one file holds across processes. From the look-alike's own log: no account and
    /// endpoint is read more than four times in the day; every command either read every account
    /// and answered, or refused in one line having sent nothing; no command that exited 1 had a
    /// read answered. With the look-alike's limit below four, its 429 stops the command that
    /// met it and the others refuse without sending.
    @Test(arguments: [AtOnce(spent: 0, commands: 6, limit: 4), AtOnce(spent: 2, commands: 5, limit: 4),
                      AtOnce(spent: 3, commands: 2, limit: 4), AtOnce(spent: 4, commands: 3, limit: 4),
                      AtOnce(spent: 2, commands: 4, limit: 2)])
    func theBudgetHoldsAcrossCommandsRunAtOnce(_ run: AtOnce) async throws {
        let (spent, commands, limit) = (run.spent, run.commands, run.limit)
        let bank = try await Bank(days: 90, refreshAfter: "0s", lookAlikeBudget: limit)
        let accounts = try #require(bank.record).accounts.count
        #expect(accounts > 1)
        for index in 0..<spent {
            let result = await bank.run(["goals"], tag: "spent\(index)")
            #expect(result.status == 0, "\(result.error)")
            #expect(await bank.commands.reads(of: "spent\(index)").count == 2 * accounts)
        }
        let results = await withTaskGroup(of: (String, (status: Int32, output: String, error: String)).self) { group in
            for index in 0..<commands {
                group.addTask { ("run\(index)", await bank.run(["goals"], tag: "run\(index)")) }
            }
            var all: [(String, (status: Int32, output: String, error: String))] = []
            for await result in group { all.append(result) }
            return all
        }
        var answered = 0
        for (tag, result) in results {
            let reads = await bank.commands.reads(of: tag)
            let lines = result.error.split(separator: "\n")
            if result.status == 0 {
                // It read every account, both endpoints, or (a look-alike limit met) nothing.
                #expect(reads.count == 2 * accounts, "\(tag): \(reads)")
                answered += 1
            } else {
                #expect(result.status == 1, "\(tag): \(result.error)")
                #expect(reads.isEmpty, "\(tag) exited 1 having read \(reads)")
                #expect(result.output.isEmpty && lines.count == 1, "\(tag): \(result.output)\(result.error)")
                let line = String(lines.first ?? "")
                let budget = line.hasSuffix(" used today: --force reads anyway") && line.contains("4 of 4 reads of ")
                let bankLimit = line.contains("the bank's daily limit of reads of ") && line.hasSuffix(": nothing was sent")
                if budget || bankLimit {
                    #expect(await bank.commands.accountRequests(of: tag) == 0, "\(tag) refused after sending")
                } else {
                    // Only the look-alike's own 429, met on the first account: nothing after it.
                    #expect(limit < EnableBankingBudget.daily && line.contains("limit"), "\(tag): \(line)")
                    #expect(await bank.commands.accountRequests(of: tag) == 1, "\(tag)")
                }
            }
        }
        let byAccount = await bank.commands.readsByAccount
        #expect(byAccount.count == (spent > 0 || answered > 0 ? 2 * accounts : 0), "\(byAccount)")
        for (account, reads) in byAccount {
            #expect(reads <= min(limit, EnableBankingBudget.daily), "\(account): \(reads) reads")
        }
        if limit == EnableBankingBudget.daily {
            // Four a day, and no read refused while one was left.
            #expect(answered == min(commands, EnableBankingBudget.daily - spent), "\(results)")
            #expect(byAccount.values.allSatisfy { $0 == spent + answered }, "\(byAccount)")
            #expect(await bank.commands.answered(429) == 0)
        } else {
            #expect(answered == 0, "\(results)")
        }
        await bank.stop()
    }

    /// One account at its four reads, the others not: a headless command refuses whole, sending
    /// nothing to any account (deciding account by account would have read the others first).
    @Test func oneAccountAtItsFourRefusesTheCommandWhole() async throws {
        let bank = try await Bank(days: 90, refreshAfter: "0s")
        let record = try #require(bank.record)
        let first = try #require(record.accounts.first)
        #expect(record.accounts.count > 1)
        // Four reads of the first account, as another process counted them, in the file every process reads.
        let cache = try #require(bank.environment["XDG_CACHE_HOME"])
        let file = URL(fileURLWithPath: cache).appendingPathComponent("qapital-tui/enablebanking-reads-\(record.fingerprint).json")
        let other = EnableBankingBudget(fileURL: file, sessionId: record.sessionId)
        for _ in 0..<EnableBankingBudget.daily { try other.take(first.key, shown: first.shownName, headless: false) }
        let result = await bank.run(["goals"], tag: "one-at-four")
        #expect(result.status == 1, "\(result.output)\(result.error)")
        #expect(result.error.contains("4 of 4 reads of \(first.shownName) used today: --force reads anyway"), "\(result.error)")
        #expect(await bank.commands.accountRequests(of: "one-at-four") == 0)
        await bank.stop()
    }

    /// From 14 days before the consent's end a headless command says so on stderr, with the way
    /// out, and still answers; further off it says nothing about the consent.
    @Test func theConsentEndingSoonIsSaidOnStderr() async throws {
        let soon = try await Bank(days: 10)
        let warned = await soon.run(["goals"])
        #expect(warned.status == 0, "\(warned.error)")
        let line = warned.error.split(separator: "\n").first { $0.contains("The consent with") }
        #expect(line?.hasPrefix("qapital-tui: The consent with \(EnableBankingDemoAPI.bankName) ends in ") == true, "\(warned.error)")
        #expect(line?.hasSuffix(" days: press L or run qapital-tui login enablebanking") == true)
        #expect(!warned.output.contains("The consent"))
        await soon.stop()

        let later = try await Bank(days: 60)
        let quiet = await later.run(["goals"])
        #expect(quiet.status == 0, "\(quiet.error)")
        #expect(!quiet.error.contains("The consent"), "\(quiet.error)")
        await later.stop()
    }

    /// `activity --output json` on Enable Banking: every row names its account (the 12 hex its
    /// id begins with, and the account's name) and says whether it is pending.
    @Test func activityJSONNamesTheAccountAndPending() async throws {
        let bank = try await Bank(days: 90)
        let result = await bank.run(["activity", "--output", "json"])
        #expect(result.status == 0, "\(result.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let rows = try #require(object["activities"] as? [[String: Any]])
        #expect(!rows.isEmpty)
        var names = Set<String>()
        var pending = [Bool]()
        for row in rows {
            let id = try #require(row["id"] as? String)
            let account = try #require(row["account"] as? [String: Any], "\(row)")
            let accountId = try #require(account["id"] as? String)
            #expect(accountId.count == 12 && id.hasPrefix(accountId + "/"))
            names.insert(try #require(account["name"] as? String))
            pending.append(try #require(row["pending"] as? Bool))
        }
        // The look-alike's newest two days are pending on a session's first read; older rows are booked.
        #expect(pending.contains(true) && pending.contains(false))
        #expect(names.contains("Everyday Account"))
        #expect(names.isSubset(of: ["Everyday Account", "Balloons", "Dog", "Travel Card"]), "\(names)")
        await bank.stop()
    }

    /// `export --output ledger` on the look-alike, read by real hledger: every account (the
    /// spending ones under their names, the goals' savings accounts, the yen card in yen) holds
    /// its booked balance as the source says it, each asserted (hledger checks them: exit 0),
    /// and the pending rows are counted on stderr, not posted.
    @Test(.enabled(if: Hledger.runs, Hledger.skipped))
    func exportLedgerOpensAndAssertsEveryAccount() async throws {
        let bank = try await Bank(days: 90, goals: "Balloons; Dog")
        let result = await bank.run(["export", "--output", "ledger"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains(" left out: the journal has booked rows only"), "\(result.error)")
        #expect(!result.error.contains("no opening"), "\(result.error)")
        let journal = bank.home.appendingPathComponent("all.journal")
        try Data(result.output.utf8).write(to: journal)
        let hledger = try runProcess(URL(fileURLWithPath: try ExternalTool.hledger.require()),
                                     ["-f", journal.path, "balance", "--flat", "-O", "csv"])
        #expect(hledger.status == 0, "hledger: \(hledger.stderr)")
        var held: [String: Money] = [:]
        for line in hledger.stdout.split(separator: "\n").dropFirst() {
            let cells = line.split(separator: "\",\"").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            let parts = cells.count == 2 ? cells[1].split(separator: " ") : []
            guard parts.count == 2, let currency = Currency.from(code: String(parts[1])) else { continue }
            held[cells[0]] = Money(string: String(parts[0]), currency: currency)
        }
        // What the source says, from the store the export read (no read: it is fresh).
        let balances = try await bank.connect().bookedBalances
        #expect(balances.count == 4, "\(balances)")
        for balance in balances {
            let booked = try #require(balance.booked, "\(balance.name)")
            let account: String = switch balance.holder {
            case .account: "assets:enablebanking:" + Cell.accountPart(balance.name)
            case .goal: "assets:enablebanking:savings:" + Cell.accountPart(balance.name)
            }
            #expect(held[account] == booked, "\(account): \(hledger.stdout)")
            #expect(result.output.contains("    \(account)  \(Cell.ledgerAmount(.zero(booked.currency))) = \(Cell.ledgerAmount(booked))\n"))
        }
        #expect(balances.contains { $0.booked?.currency == .jpy }, "the yen card in its own currency")
        await bank.stop()
    }
}
