import EnableBankingClient
import EnableBankingSource
import FeedModel
import Foundation
@testable import QapitalApp
import TermUI
import Testing
import TestSupport

/// `r` past an account's four reads a day asks "read anyway? read N today [y/N]" and sends
/// nothing without y; y sends one read of each account, and no more.
@MainActor
@Suite(.timeLimit(.minutes(2))) struct EnableBankingReadQuestionTests {
    @Test func rPastTheBudgetAsksAndOnlyYReads() async throws {
        let bank = try await EnableBankingHeadlessTests.Bank(days: 90)
        let api = try await bank.connect()  // read 1 of each account
        for _ in 2...4 {
            api.userAskedToRefresh()
            _ = try await api.account()
        }
        let everyday = try #require(api.store.accounts.first?.account.key)
        #expect(api.budget.used(everyday, .transactions) == 4)
        var capabilities = AppCore.Capabilities(refreshCache: { api.userAskedToRefresh() })
        capabilities.readQuestion = { api.readQuestion }
        capabilities.readAnyway = { api.readPastBudget() }
        let app = AppHarness(api: api, capabilities: capabilities)
        _ = await app.start()
        await app.press(.char("2"))
        let before = await bank.counter.requests

        for no in [Key.char("n"), .escape, .enter] {
            let asked = await app.press(.char("r"))
            #expect(asked.contains { $0.contains("read anyway?") } && asked.contains { $0.contains("read 5 today [y/N]") },
                    "\(asked.joined(separator: "\n"))")
            let after = await app.press(no)
            #expect(!after.contains { $0.contains("read anyway?") })
            #expect(await bank.counter.requests == before, "\(no) sent a request")
        }
        #expect(api.budget.used(everyday, .transactions) == 4)

        await app.press(.char("r"))
        await app.press(.char("y"))
        _ = await app.screen()
        #expect(await bank.counter.requests > before)
        #expect(api.budget.used(everyday, .transactions) == 5)
        // The yes was for one read: the next r asks again.
        let again = await app.press(.char("r"))
        #expect(again.contains { $0.contains("read 6 today [y/N]") })
        await app.press(.escape)
        await bank.stop()
    }
}

/// Activity on Enable Banking ends with the oldest day the bank gave, in its words.
@MainActor
@Suite(.timeLimit(.minutes(2))) struct EnableBankingHistoryEndTests {
    @Test func activityEndsWithTheHistoryTheBankGave() async throws {
        let bank = try await EnableBankingHeadlessTests.Bank(days: 90)
        let api = try await bank.connect()
        let utc = TimeZone(identifier: "UTC")!
        var configuration = AppCore.Configuration(sourceName: "Everyday", colors: false, timeZone: utc, currency: api.accountCurrency, images: false)
        configuration.historyBeginning = EnableBankingAPI.source.historyBeginning
        let now = Date()
        let core = AppCore(api: api, configuration: configuration, now: { now })
        let app = AppHarness(core: core)
        _ = await app.start()
        await app.press(.char("2"))
        var lines: [String] = []
        for _ in 0..<40 {
            lines = await app.press(.char("G"))
            if lines.contains(where: { $0.contains("—") && $0.contains("history") }) { break }
        }
        let oldest = EnableBankingMapping(store: api.store, settings: api.settings).oldest
        let day = DisplayFormat(timeZone: utc, now: { now }).shortDate(oldest)
        #expect(lines.contains { $0.contains("— the bank gave history from \(day) —") }, "\(lines.joined(separator: "\n"))")
        // The oldest row the look-alike gave (about 200 days back), not the 730 days the first read asked for.
        #expect(oldest > now.addingTimeInterval(-400 * 86_400))
        #expect(!lines.contains { $0.contains("Beginning of history") })
        await bank.stop()
    }
}
