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

        /// `faults`: the look-alike's (`serve --fault`); `refreshAfter`: the table's `refresh-after`.
        init(days: Int, goals: String? = nil, hold path: String? = nil, faults: Set<String> = [], refreshAfter: String? = nil) async throws {
            self.goals = goals
            key = try EnableBankingKey.generate()
            let counter = CountingHandler(inner: try EnableBankingDemoAPI(backend: DemoBackend(), publicKeyPEM: key.publicKeyPEM,
                                                                          applicationId: EnableBankingStart.demoApplicationId, faults: faults))
            self.counter = counter
            holding = path.map { HoldingHandler(inner: counter, path: $0) }
            let handler: any ServeHandler = holding ?? counter
            server = try DemoHTTPServer(handler: handler)
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
        /// ARGUMENTS alone, for `login`): its status, stdout and stderr.
        func run(_ arguments: [String], source: Bool = true) async -> (status: Int32, output: String, error: String) {
            let (environment, base) = (self.environment, self.base)
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
