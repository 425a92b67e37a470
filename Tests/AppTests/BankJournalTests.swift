import Commands
@testable import DemoData
@testable import DemoServer
import FeedModel
import Foundation
@testable import MonzoSource
@testable import UpSource
@testable import StarlingSource
import MonzoClient
import SimpleFINClient
import SimpleFINSource
import SourceKit
import StarlingClient
import Testing
import TestSupport
import UpClient

/// `export --output ledger` for a bank is double-entry as a hledger user writes it: the
/// account's payments between `assets:NAME:account` and `expenses:…`/`income:…`, a transfer
/// into a goal between the account and `assets:NAME:savings:GOAL`. Read by real hledger, each
/// goal's balance is the bank's, and the account's is its movement over the exported span.
@Suite(.timeLimit(.minutes(1))) struct BankJournalTests {
    /// `hledger -f FILE balance --flat -O csv`: every account's balance in minor units.
    static func balances(_ journal: URL, currency: Currency) throws -> [String: Int64] {
        let result = try runProcess(URL(fileURLWithPath: try ExternalTool.hledger.require()), ["-f", journal.path, "balance", "--flat", "--empty", "-O", "csv"])
        #expect(result.status == 0, "hledger: \(result.stderr)")
        var balances: [String: Int64] = [:]
        for line in result.stdout.split(separator: "\n").dropFirst() {
            let cells = line.split(separator: "\",\"").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            guard cells.count == 2 else { continue }
            let number = cells[1].replacingOccurrences(of: " " + currency.code, with: "")
            balances[cells[0]] = number == "0" ? 0 : Money(string: number, currency: currency)?.minorUnits
        }
        return balances
    }

    /// `opening`: what the look-alike's account held before its first feed item (Starling's
    /// look-alike opens with £1,000), so the bank's balance less it is the history's movement.
    static func check(_ api: any BankAPI, source: String, opening: Int64? = nil) async throws {
        let currency = api.accountCurrency
        let (context, out) = commandContext(api, format: .ledger, kind: source, currency: currency)
        let totals = try await ActivityExport.run(context, kind: .export, since: nil, until: nil, goal: nil)
        #expect(totals.rows > 20)
        let journal = FileManager.default.temporaryDirectory.appendingPathComponent("bank-\(UUID().uuidString).journal")
        defer { try? FileManager.default.removeItem(at: journal) }
        try Data(out.value.utf8).write(to: journal)
        let balances = try Self.balances(journal, currency: currency)

        // Each goal's balance as the bank says it.
        let goals = try await api.goals()
        #expect(!goals.isEmpty)
        for goal in goals {
            let account = "assets:\(source):savings:" + Cell.accountPart(goal.name)
            #expect((balances[account] ?? 0) == goal.balance.minorUnits, "\(source) \(account): \(balances)")
        }
        // Nothing else is savings (but moves into a goal the bank no longer lists: Monzo leaves
        // deleted pots out); every other account is the account, an expense or an income.
        let savings = Set(goals.map { "assets:\(source):savings:" + Cell.accountPart($0.name) } + ["assets:\(source):savings:no goal"])
        for name in balances.keys where name != "total" {
            #expect(savings.contains(name) || name == "assets:\(source):account" || name.hasPrefix("expenses:") || name.hasPrefix("income:")
                    || name == "equity:opening-balances",
                    "\(source): \(name)")
        }
        // The account's movement over the span: what its activities add up to (the whole history).
        let movement = try await api.activities(from: Date(timeIntervalSince1970: 0), to: fixedNow.addingTimeInterval(86_400)).activities
            .filter { !$0.isVoid }.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
        // Issue 50.7: every bank's journal opens with its balance less the rows and asserts the
        // bank's figure, so hledger's account holds what the bank says (Starling's look-alike
        // opened with £1,000 before its first row; the others with what their feeds leave).
        #expect(api.saysFeedBalance, "\(source) says no balance for its journal")
        let bank = try #require(try await api.account()?.effectiveBalance)
        #expect(balances["assets:\(source):account"] == bank.minorUnits, "\(source): the bank holds \(bank.formatted), \(balances)")
        #expect(balances["equity:opening-balances"] == movement - bank.minorUnits, "\(source): the opening is the balance less the rows")
        if let opening { #expect(bank.minorUnits - movement == opening, "\(source): the look-alike opened with \(opening)") }
        #expect(out.value.contains("assets:\(source):account  0.00 \(currency.code) = "), "\(source): no balance assertion")
        // Payments out are expenses (positive), money in income (negative); the journal balances.
        #expect(balances.filter { $0.key.hasPrefix("expenses:") }.allSatisfy { $0.value >= 0 })
        #expect(balances.filter { $0.key.hasPrefix("income:") }.allSatisfy { $0.value <= 0 })
        #expect(balances["total"] == 0 || balances["total"] == nil)
    }

    @Test(.enabled(if: Hledger.runs, Hledger.skipped))
    func starling() async throws {
        try await withStarlingServer { _, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken, now: { fixedNow })
            try await Self.check(api, source: "starling", opening: 1_000 * Currency.gbp.minorPerUnit)
        }
    }

    @Test(.enabled(if: Hledger.runs, Hledger.skipped))
    func up() async throws {
        try await withUpServer { _, url in
            let api = try await UpAPI.connect(baseURL: url, token: UpDemoAPI.testToken, now: { fixedNow })
            try await Self.check(api, source: "up")
        }
    }

    /// SimpleFIN says its accounts' balances, not where they began: the journal opens with what
    /// the balance leaves before its first row, and real hledger, checking the closing assertion,
    /// finds the account holding what SimpleFIN says (the look-alike's balances added by hand).
    @Test(.enabled(if: Hledger.runs, Hledger.skipped))
    func simplefin() async throws {
        let server = try DemoHTTPServer(handler: SimpleFINDemoAPI(backend: DemoBackend(now: fixedNow), clock: { fixedNow }))
        try await server.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simplefin-journal-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["XDG_CONFIG_HOME": folder.path + "/config", "XDG_CACHE_HOME": folder.path + "/cache", "HOME": folder.path]
        var request = BankRequest(baseURL: SimpleFINAPI.bridgeURL, token: SimpleFINDemoAPI.setupToken(baseURL: await server.baseURL.absoluteString),
                                  allowInsecureHTTP: false, log: nil, settings: ["goals": "Vacation; Emergency fund",
                                                                                  "spending": "Everyday Checking; Maple Visa"])
        request.headless = true
        let api = try await SimpleFINStart.connect(request, environment: environment, now: { fixedNow })
        let (context, out) = commandContext(api, format: .ledger, kind: "simplefin", currency: .usd)
        let totals = try await ActivityExport.run(context, kind: .export, since: nil, until: nil, goal: nil)
        #expect(totals.rows > 20)
        let journal = FileManager.default.temporaryDirectory.appendingPathComponent("simplefin-\(UUID().uuidString).journal")
        defer { try? FileManager.default.removeItem(at: journal) }
        try Data(out.value.utf8).write(to: journal)
        let balances = try Self.balances(journal, currency: .usd)
        // Everyday Checking $1,234.56 and Maple Visa −$41.20, as `serve --api simplefin` gives them.
        #expect(balances["assets:simplefin:account"] == Int64(123_456 - 4_120), "\(balances)")
        #expect(out.value.contains("assets:simplefin:account  0.00 USD = 1193.36 USD"))
        // Issue 50.7: money moved into a goal account is the goal's, as on every other source.
        #expect(balances.keys.contains { $0.hasPrefix("assets:simplefin:savings:") }, "\(balances.keys.sorted())")
        #expect(balances["total"] == 0 || balances["total"] == nil)
        await server.stop()
    }

    @Test(.enabled(if: Hledger.runs, Hledger.skipped))
    func monzo() async throws {
        let backend = DemoBackend(now: fixedNow, options: .init(currency: .gbp))
        try await withMonzoServer(MonzoDemoAPI(backend: backend)) { url in
            let api = try await MonzoAPI.connect(baseURL: url, token: MonzoDemoAPI.testToken, now: { fixedNow })
            try await Self.check(api, source: "monzo")
        }
    }
}
