import DemoData
import FeedModel
import Foundation
import TermUI
import Testing
import TestSupport
@testable import QapitalApp

/// The status bar's error: the newest failure, whatever its text.
@MainActor @Suite struct StatusLineTests {
    /// Lets store tasks run (without the loop handling their events) until `condition` holds.
    static func letTasksRun(until condition: () -> Bool) async -> Bool {
        for _ in 0..<10_000 where !condition() { await Task.yield() }
        return condition()
    }

    @Test func twoFailuresInOneBurstShowTheNewestNotTheFirstByName() async {
        // The activity feed fails first, then the goal list ("GET /savingsgoals…", which sorts
        // after "GET /activities…"); both land before the loop reads either event.
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "fake")
        api.script { $0.unreachable = [.goals, .activities] }
        api.hold([.goals, .activities])
        let app = AppHarness(api: api)
        #expect(await app.runner.run(until: { api.heldCount == 2 }, timeout: .seconds(10)))
        let before = app.core.pendingEvents
        api.releaseOne(.activities)
        #expect(await Self.letTasksRun { app.core.pendingEvents > before })
        let afterActivities = app.core.pendingEvents
        api.releaseOne(.goals)
        #expect(await Self.letTasksRun { app.core.pendingEvents > afterActivities })
        api.release()
        let screen = await app.screen()
        let bar = screen.last ?? ""
        #expect(bar.contains("✗ GET /savingsgoals: cannot connect"), "\(bar)")
    }

    /// A long bank header (SimpleFIN's: account, connection, age, available) gives way part by
    /// part in a narrow bar, and the balance is always drawn whole.
    @Test(arguments: [200, 100, 80, 60, 44])
    func aNarrowBarKeepsTheBalance(width: Int) async {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "fake")
        let account = Account(id: "A", name: "Everyday Checking", currency: .usd, createdAt: fixedNow,
                              holder: "Everyday Checking · SimpleFIN Demo Bank", accountNumber: "as of 1 h ago · available $1,200.00",
                              effectiveBalance: Money(minorUnits: 123_456, currency: .usd))
        api.script { $0.account = { account } }
        let app = AppHarness(api: api, width: width, height: 24)
        let screen = await app.start()
        let bar = screen.last ?? ""
        #expect(bar.contains("$1,234.56"), "\(bar)")
        #expect(bar.contains("? help") || bar.contains("?"), "\(bar)")
        if width >= 120 { #expect(bar.contains(account.summary), "\(bar)") }
        if width == 80 { #expect(bar.contains(" Everyday Checking · SimpleFIN Demo Bank · $1,234.56 "), "\(bar)") }
    }
}
