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
        // On Achievements, whose body says no failure, the bar says the newest.
        let bar = await app.press(.char("4")).last ?? ""
        #expect(bar.contains("✗ GET /savingsgoals: cannot connect"), "\(bar)")
    }

    /// A failure a tab says in its body ("✗ … — press r to retry") is not said again in the bar;
    /// nor is another request failing for the same reason. A tab without such a body (Achievements)
    /// leaves it to the bar (issue 50, item 11: "an offline error twice").
    @Test func aFailureTheBodySaysIsNotSaidAgainInTheBar() async {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "fake")
        api.script { $0.unreachable = [.goals, .activities, .transactions] }
        let app = AppHarness(api: api)
        _ = await app.start()
        for (tab, request) in [("1", "GET /savingsgoals"), ("2", "GET /activities"), ("3", "GET /transactions"), ("5", "GET /savingsgoals")] {
            let screen = await app.press(.char(Character(tab)))
            let body = screen.dropFirst().dropLast()
            #expect(body.contains { $0.contains("✗ \(request)") && $0.contains("press r to retry") }, "tab \(tab): \(screen)")
            #expect(screen.last?.contains("✗") == false, "tab \(tab): \(screen.last ?? "")")
        }
        let achievements = await app.press(.char("4"))
        #expect(achievements.last?.contains("✗ GET /") == true, "\(achievements.last ?? "")")
        #expect(!achievements.dropLast().contains { $0.contains("✗") }, "\(achievements)")
    }

    @Test func theSameReasonIsTheSameNews() {
        #expect(StatusLine.sameNews("GET /a: cannot connect to h", "GET /b: cannot connect to h"))
        #expect(StatusLine.sameNews("disk full", "disk full"))
        #expect(!StatusLine.sameNews("GET /a: cannot connect to h", "GET /a: HTTP 500"))
        #expect(!StatusLine.sameNews("disk full", nil))
        #expect(!StatusLine.sameNews("refused", "also refused"))
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
