import Commands
@testable import DemoData
import DemoServer
import FeedModel
import Foundation
@testable import StarlingSource
import StarlingClient
import Testing
import TermUI
import TestSupport
@testable import QapitalApp

/// Saving round-ups checks the account's balance first where the source knows it, and says so
/// in one line instead of failing at the bank.
@Suite(.timeLimit(.minutes(1))) struct BalanceCheckTests {
    static func account(balance minorUnits: Int64) -> Account {
        Account(id: "acc", name: "Personal", currency: .usd, createdAt: fixedNow.addingTimeInterval(-400 * 86_400),
                holder: "Mikael", effectiveBalance: Money(minorUnits: minorUnits, currency: .usd))
    }

    @MainActor
    @Test func aBalanceBelowTheRoundUpsIsSaidAndNothingIsSent() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)))
        api.script { $0.account = { BalanceCheckTests.account(balance: 12) } }
        let app = AppHarness(api: api, width: 100, height: 30)
        _ = await app.start()
        // Last week: a week is saved once it is over.
        _ = await app.press(.char("3"), .char("["))
        let amount = try #require(app.core.roundUps.summary?.saveable)
        #expect(amount.minorUnits > 12)
        var lines = await app.press(.char("s"), .enter, .enter)
        #expect(lines.contains { $0.contains("failed: the balance is only $0.12; nothing was sent") },
                "\(lines.joined(separator: "\n"))")
        #expect(api.count(.transfer) == 0)
        // Money came in: the retry goes through, with the same transfer id.
        let id = try #require(app.core.roundUps.transfer?.id)
        api.script { $0.account = { BalanceCheckTests.account(balance: 1_000_000) } }
        lines = await app.press(.char("r"))
        #expect(lines.contains { $0.contains("✓ Saved \(amount.formatted)") })
        #expect(api.transferIds == [id])
    }

    /// The check asks the balance live (`currentAccount`), never what a cache kept (`account`):
    /// a cache that says rich while the bank says poor moves nothing.
    @MainActor
    @Test func theBalanceIsAskedLiveNotFromTheCache() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)))
        api.script { script in
            script.account = { BalanceCheckTests.account(balance: 1_000_000) }
            script.currentAccount = { BalanceCheckTests.account(balance: 12) }
        }
        let poor = await RoundUpStore.balanceTooLow(api, for: Money(minorUnits: 13, currency: .usd))
        #expect(poor == Money(minorUnits: 12, currency: .usd))
        let app = AppHarness(api: api, width: 100, height: 30)
        _ = await app.start()
        _ = await app.press(.char("3"), .char("["))
        let amount = try #require(app.core.roundUps.summary?.saveable)
        #expect(amount.minorUnits > 12)
        let lines = await app.press(.char("s"), .enter, .enter)
        // RoundUpStore.BalanceTooLow's words, with the live balance.
        #expect(lines.contains { $0.contains("failed: the balance is only $0.12; nothing was sent") }, "\(lines.joined(separator: "\n"))")
        #expect(api.count(.transfer) == 0)
    }

    /// `roundups --save` checks the same live balance: refused in one line, nothing sent.
    @Test func theCommandAsksTheBalanceLiveToo() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)))
        api.script { script in
            script.account = { BalanceCheckTests.account(balance: 1_000_000) }
            script.currentAccount = { BalanceCheckTests.account(balance: 12) }
        }
        let goal = try #require(try await api.goals().first { $0.status == .active })
        let (command, _) = commandContext(api, format: .table)
        let week = try command.week("last")
        let failure = await #expect(throws: CommandFailure.self) {
            try await RoundUpsCommands.save(command, week: week, goal: goal.name, dryRun: false, yes: true) { _ in nil }
        }
        #expect(failure?.message.hasPrefix("the balance is only $0.12; ") == true, "\(String(describing: failure))")
        #expect(api.count(.transfer) == 0)
    }

    @MainActor
    @Test func aSourceWithoutABalanceIsNotChecked() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)))
        let app = AppHarness(api: api, width: 100, height: 30)
        _ = await app.start()
        let lines = await app.press(.char("3"), .char("["), .char("s"), .enter, .enter)
        #expect(lines.contains { $0.contains("✓ Saved") })
        #expect(api.count(.transfer) == 1)
    }

    @Test func starlingsEffectiveBalanceIsCheckedOverServe() async throws {
        let backend = DemoBackend(now: fixedNow, options: .init(currency: .gbp))
        // An account £5 overdrawn before the demo's payments and salaries.
        let handler = StarlingDemoAPI(backend: backend, openingBalance: -1_000_000)
        try await withStarlingServer(handler: handler) { _, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken, now: { fixedNow })
            let balance = try #require(try await api.account()?.effectiveBalance)
            #expect(balance.isNegative)
            try await Self.save(api: api, expecting: "the balance is only \(balance.formatted); nothing was sent")
        }
    }

    @MainActor
    static func save(api: StarlingAPI, expecting message: String) async throws {
        let probe = EventProbe<StoreEvent>()
        let goals = GoalStore(api: api, events: probe.sink)
        goals.load()
        await probe.wait { goals.status == .loaded }
        let store = RoundUpStore(api: api, goals: goals, accountCurrency: api.accountCurrency,
                                 calendar: Week.calendar(in: TimeZone(identifier: "Europe/London")!), now: { fixedNow },
                                 events: probe.sink)
        store.showPreviousWeek()  // a week is saved once it is over
        await probe.wait { store.status == .loaded }
        let target = try #require(goals.goals.first { $0.name == "Graduation" })
        try store.save(into: target)
        await probe.wait { store.transfer?.isSending == false }
        #expect(store.transfer?.failureMessage == message)
        #expect(try await api.goals().first { $0.id == target.id }?.balance == target.balance)
    }
}
