import FeedModel
import Foundation
@testable import SimpleFINClient
import Testing

@Suite struct SimpleFINMappingTests {
    func store() throws -> SimpleFINStore {
        var store = SimpleFINStore()
        store.merge(try decodeSet(try fixture("simplefin_v2_bridge")), start: 1_760_000_000, end: 1_764_300_000, newest: true,
                    at: Date(timeIntervalSince1970: 1_764_300_000))
        return store
    }

    /// Issue 50.13: without goals the note says where they go, a line to copy (a savings
    /// account's name) and the accounts to choose from; with goals it says nothing.
    @Test func withoutGoalsTheNoteShowsTheWayOut() throws {
        let note = try #require(SimpleFINMapping(store: try store(), settings: .init()).noGoalsNote)
        #expect(note.hasPrefix("No goals: add [simplefin] goals = \"High-Yield Savings\" to "), "\(note)")
        #expect(note.contains(" to the config file (accounts: "), "\(note)")
        #expect(note.contains("High-Yield Savings"))
        #expect(SimpleFINMapping(store: try store(), settings: .init(goals: ["High-Yield Savings"])).noGoalsNote == nil)
    }

    @Test func goalsFromTheConfigFile() throws {
        let mapping = SimpleFINMapping(store: try store(), settings: .init(goals: ["High-Yield Savings", "ACT-5", "Nope"],
                                                                           targets: ["High-Yield Savings": "10000"]))
        let goals = mapping.goals(skipped: nil)
        // The custom-currency account is never a goal; an unknown name is none.
        #expect(goals.map(\.name) == ["High-Yield Savings · Chase Bank"])
        #expect(goals[0].balance == Money(minorUnits: 500_010, currency: .usd))
        #expect(goals[0].target == Money(minorUnits: 1_000_000, currency: .usd))
        #expect(SimpleFINMapping(store: try store(), settings: .init()).goals(skipped: nil).isEmpty)
        // The custom-currency account named as a goal: named with a plain number and its host, no `$`,
        // and no skipped record (a config choice is not a bad record).
        let skipped = SkippedRecords()
        _ = mapping.goals(skipped: skipped)
        #expect(skipped.drain().isEmpty)
        #expect(mapping.customNotes == ["Rewards Points: 100.23 custom currency (www.example.com), not a goal"])
    }

    /// Rows outside the window asked for are dropped; pending rows only with the newest window;
    /// a window's rows replace what was kept for it, other windows' rows stay.
    @Test func theStoreKeepsWhatWasAskedFor() throws {
        let row = { (id: String, posted: Int64) in SimpleFIN.TransactionRecord(id: id, posted: posted, amount: "-1.00", description: id) }
        let pending = SimpleFIN.TransactionRecord(id: "p", posted: 0, amount: "-2.00", description: "p", pending: true)
        func set(_ rows: [SimpleFIN.TransactionRecord]) -> SimpleFIN.AccountSet {
            SimpleFIN.AccountSet(accounts: [SimpleFIN.AccountRecord(id: "A", name: "A", connId: "C", currency: "USD", balance: "1.00", transactions: rows)])
        }
        var store = SimpleFINStore()
        store.merge(set([row("old", 50), row("in", 150), row("late", 300), pending]), start: 100, end: 200, newest: true, at: Date())
        #expect(store.transactions["C|A"]?.map(\.id) == ["p", "in"])
        store.merge(set([row("older", 60), row("in-again", 150), pending]), start: 0, end: 100, newest: false, at: Date())
        #expect(store.transactions["C|A"]?.map(\.id) == ["p", "older", "in"])
        #expect(store.coveredFrom == 0 && store.coveredTo == 200 && !store.reachedEnd)
        store.merge(set([row("new", 160)]), start: 100, end: 200, newest: true, at: Date())
        #expect(store.transactions["C|A"]?.map(\.id) == ["older", "new"])
        store.merge(set([]), start: -100, end: 0, newest: false, at: Date())
        #expect(store.reachedEnd)
    }

    @Test func activityAndHeader() throws {
        let mapping = SimpleFINMapping(store: try store(), settings: .init(goals: ["High-Yield Savings"]))
        #expect(mapping.spendingAccounts.map(\.name) == ["Everyday Checking", "Maple Visa", "Tokyo Account"])
        let header = try #require(mapping.header(now: Date(timeIntervalSince1970: 1_764_203_600)))
        #expect(header.effectiveBalance == Money(minorUnits: 123_456, currency: .usd))
        #expect(header.summary.contains("available $1,200.00") && header.summary.contains("as of") && header.summary.contains("Chase Bank"))
        let page = mapping.activities(from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 1_764_300_000))
        let texts = page.activities.map(\.message.plainText)
        #expect(texts.contains { $0.contains("UBER TRIP") && $0.contains("(pending)") })
        // The unreadable amount is shown raw, marked, and in no sum.
        let weird = try #require(page.activities.first { $0.message.plainText.contains("WEIRD") })
        #expect(weird.isVoid && weird.message.plainText.contains("\"-1,234.56\""))
        // The same id twice in one account, and once in another: all kept.
        #expect(page.activities.count { $0.id.hasSuffix("/T4") } == 2)
        #expect(mapping.feed(accountKey: "CON-1|ACT-2").map(\.id) == ["CON-1|ACT-2/T4"])
        // The Maple connection needs attention.
        let maple = SimpleFINMapping(store: try store(), settings: .init(spending: ["Maple Visa"]))
        #expect(maple.header(now: Date())?.holder?.contains("needs attention on the SimpleFIN Bridge") == true)
    }

    /// What export's opening stands on: the spending accounts' balances together, only when
    /// every one is readable and in one currency.
    @Test func theFeedBalanceIsTheSpendingAccountsTogether() throws {
        let checking = SimpleFINMapping(store: try store(), settings: .init(spending: ["Everyday Checking"]))
        let balance = try #require(checking.header(now: Date())?.feedBalance)
        #expect(balance.amount == Money(minorUnits: 123_456, currency: .usd))
        #expect(balance.asOf == Date(timeIntervalSince1970: 1_764_200_000) && balance.accounts == "Everyday Checking")
        // USD, CAD and JPY merged: no one balance.
        #expect(SimpleFINMapping(store: try store(), settings: .init(goals: ["High-Yield Savings"])).header(now: Date())?.feedBalance == nil)
        // Two USD accounts: their sum.
        let two = SimpleFIN.AccountSet(accounts: [
            SimpleFIN.AccountRecord(id: "A", name: "A", connId: "C", currency: "USD", balance: "10.05", balanceDate: 5),
            SimpleFIN.AccountRecord(id: "B", name: "B", connId: "C", currency: "USD", balance: "-0.10", balanceDate: 9),
        ])
        var store = SimpleFINStore()
        store.merge(two, start: 0, end: 10, newest: true, at: Date())
        let sum = try #require(SimpleFINMapping(store: store, settings: .init()).header(now: Date())?.feedBalance)
        #expect(sum.amount == Money(minorUnits: 995, currency: .usd) && sum.asOf == Date(timeIntervalSince1970: 9) && sum.accounts == "A, B")
        // One unreadable balance: none.
        var bad = SimpleFINStore()
        bad.merge(SimpleFIN.AccountSet(accounts: two.accounts + [SimpleFIN.AccountRecord(id: "X", name: "X", connId: "C", currency: "USD",
                                                                                         balance: "1,00")]),
                  start: 0, end: 10, newest: true, at: Date())
        #expect(SimpleFINMapping(store: bad, settings: .init()).header(now: Date())?.feedBalance == nil)
    }

    @Test func pendingIsReplacedByItsPostedTwin() {
        let mapping = SimpleFINMapping(store: SimpleFINStore(), settings: .init())
        let pending = SimpleFIN.TransactionRecord(id: "p1", posted: 0, amount: "-5.00", description: "COFFEE", transactedAt: 1_000_000, pending: true)
        let posted = SimpleFIN.TransactionRecord(id: "x9", posted: 1_100_000, amount: "-5.00", description: "COFFEE SHOP")
        let lookAlike = SimpleFIN.TransactionRecord(id: "x10", posted: 1_100_000, amount: "-5.00", description: "COFFEE SHOP")
        #expect(mapping.replacingPendingTwins([pending, posted]).map(\.id) == ["x9"])
        #expect(mapping.replacingPendingTwins([pending, posted, lookAlike]).map(\.id) == ["x9", "x10"])
        let farAway = SimpleFIN.TransactionRecord(id: "x11", posted: 1_000_000 + 6 * 86_400, amount: "-5.00", description: "COFFEE")
        #expect(mapping.replacingPendingTwins([pending, farAway]).map(\.id) == ["x11", "p1"])
    }

    /// The round-up rule, case by case.
    @Test(arguments: [
        // amount, mcc, the opposite amount elsewhere (seconds apart), rounds up
        ("-4.35", "5814", nil, true),
        ("-4.35", "6011", nil, false),   // cash
        ("-4.35", "6010", nil, false),
        ("-4.35", "6012", nil, false),
        ("-4.35", "6051", nil, false),
        ("-4.35", "4829", nil, false),   // money transfer
        ("-4.35", nil, nil, true),
        ("-250.00", nil, Int64(3_600), false),          // own-account transfer
        ("-250.00", nil, Int64(4 * 86_400), true),      // too far apart to be one
        ("-250.00", "5411", Int64(3_600), true),        // an mcc says what it is
        ("4.35", "5814", nil, false),    // money in
        ("-4.00", "5814", nil, true),    // rounds up by nothing, but counts
    ] as [(String, String?, Int64?, Bool)])
    func roundUpRule(amount: String, mcc: String?, opposite: Int64?, expected: Bool) throws {
        let row = SimpleFIN.TransactionRecord(id: "r", posted: 2_000_000, amount: amount, description: "x", mcc: mcc)
        let money = Money(minorUnits: try #require(SimpleFINAmount.minorUnits(amount, minorDigits: 2)), currency: .usd)
        let others = opposite.map { [SimpleFIN.TransactionRecord(id: "o", posted: 2_000_000 + $0, amount: String(amount.dropFirst()), description: "y")] } ?? []
        #expect(SimpleFINMapping.roundsUp(row, amount: money, otherAccounts: others) == expected)
    }

    @Test func roundUpsOfAWeek() throws {
        let mapping = SimpleFINMapping(store: try store(), settings: .init(goals: ["High-Yield Savings"]))
        let payments = mapping.transactions(from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 1_764_300_000))
        let summary = RoundUp.Summary(transactions: payments, accountCurrency: .usd)
        // Starbucks 4.35 → 0.65; Uber (pending) 12.00 → 0; the unreadable one is none; JPY apart (¥1,234 → ¥66).
        #expect(summary.saveable == Money(minorUnits: 65, currency: .usd))
        #expect(summary.otherTotals == [Money(minorUnits: 66, currency: .jpy)])
        #expect(!payments.contains { $0.counterparty.contains("WEIRD") })
    }
}
