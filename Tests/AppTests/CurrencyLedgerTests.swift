@testable import QapitalClient
@testable import DemoData
@testable import DemoServer
import FeedModel
import Foundation
import Testing
import TermUI
import TestSupport
@testable import QapitalApp

/// Issue 27 through `serve`: the demo's ledger as the app's HTTP client decodes it, and each
/// currency decoded, summed, rounded up and drawn with no amount cut.
@Suite struct CurrencyLedgerTests {
    /// Goals, every goal's feed and the whole activity, as the client reads them.
    static func read(_ api: QapitalHTTPAPI, walkingFrom start: Date) async throws -> (goals: [Goal], feeds: [GoalID: [FeedItem]], activities: [Activity]) {
        let goals = try await api.goals()
        var feeds: [GoalID: [FeedItem]] = [:]
        for goal in goals { feeds[goal.id] = try await api.feed(goalId: goal.id) }
        let walked = try await walkActivities(api, from: start)
        #expect(walked.oldest != nil, "the walk never reached oldest")
        return (goals, feeds, walked.activities)
    }

    @Test(arguments: ["USD", "JPY", "KWD"])
    func theLedgerHoldsOverServeBeforeAndAfterASave(code: String) async throws {
        let currency = try #require(Currency.from(code: code))
        let backend = DemoBackend(now: fixedNow, options: .init(currency: currency))
        let server = try DemoHTTPServer(backend: backend)
        try await server.start()
        defer { Task { await server.stop() } }
        let api = QapitalHTTPAPI(baseURL: await server.baseURL, accountCurrency: currency)

        let before = try await Self.read(api, walkingFrom: fixedNow)
        #expect(!before.activities.isEmpty)
        #expect(LedgerCheck.problems(goals: before.goals, feeds: before.feeds, activities: before.activities, currency: currency) == [])

        // A saved week of round-ups is a saving into the goal and an activity that names it.
        let amount = Money(minorUnits: 116, currency: currency)
        _ = try await api.transfer(goalId: 2, transferId: UUID(), amount: amount, attempt: .init(week: "2026-W47", resent: false))
        let after = try await Self.read(api, walkingFrom: max(Date(), fixedNow).addingTimeInterval(3_600))
        #expect(after.activities.count == before.activities.count + 1)
        #expect(after.activities.contains { LedgerCheck.goalName(of: $0) == "Dog" && $0.amount == amount })
        #expect(LedgerCheck.problems(goals: after.goals, feeds: after.feeds, activities: after.activities, currency: currency) == [])
        await server.stop()
    }

    /// A saved week of round-ups shows at once as an activity and in the goal's feed, and the
    /// person's sum follows: every figure agrees without `r`.
    @Test @MainActor func aSaveShowsInActivityAndInTheSumsAtOnce() async throws {
        let backend = DemoBackend(now: fixedNow, clock: { fixedNow.addingTimeInterval(-60) })
        let app = AppHarness(api: DemoSavingsAPI(backend: backend), width: 100, height: 30)
        _ = await app.start()
        _ = await app.press(.char("2"), .char("5"))
        let holder = { PeopleRoster.people(goals: app.core.goals.goals, feeds: { (app.core.goals.feed(for: $0).entries.map(\.item), .known) },
                                           activities: [], currency: .usd, now: fixedNow).first { $0.isHolder } }
        let before = try #require(holder())
        _ = await app.press(.char("3"), .char("["))  // last week: a week is saved once it is over
        let amount = try #require(app.core.roundUps.summary?.saveable)
        var lines = await app.press(.char("s"), .enter, .enter)
        #expect(lines.contains { $0.contains("✓ Saved \(amount.formatted) into Balloons") }, "\(lines.joined(separator: "\n"))")
        lines = await app.press(.char("2"))
        // Today's first row: the demo's history ends at midnight, so the save opens "Today" above
        // the selection, which stays at the top (issue 41, item 3).
        #expect(lines.contains { $0.contains("You saved your round-ups into Balloons.") && $0.contains(amount.formatted) },
                "\(lines.joined(separator: "\n"))")
        #expect(app.core.goals.feed(for: 1).entries.contains { $0.item.amount == amount && $0.item.message.plainText == "You saved your round-ups." })
        lines = await app.press(.char("5"))
        let mikael = try #require(lines.first { $0.contains("Mikael (you)") })
        // The holder's sum is the goals' feeds' as they are now, the new saving among them.
        let after = try #require(holder())
        #expect(mikael.contains(after.saved.formatted), "\(mikael)")
        #expect(after.savingsCount == before.savingsCount + 1 && after.saved == before.saved + amount)
    }

    /// An amount cut short ends in a digit and "…".
    static func cutAmounts(_ lines: [String]) -> [String] {
        lines.filter { line in
            let characters = Array(line)
            return zip(characters, characters.dropFirst()).contains { $0.isNumber && $1 == "…" }
        }
    }

    @Test(arguments: ["USD", "GBP", "EUR", "JPY", "KWD", "CHF"], [80, 100])
    @MainActor
    func eachCurrencyIsDrawnWholeAtEightyAndAHundredColumns(code: String, width: Int) async throws {
        let currency = try #require(Currency.from(code: code))
        let backend = DemoBackend(now: fixedNow, options: .init(currency: currency))
        let server = try DemoHTTPServer(backend: backend)
        try await server.start()
        let api = QapitalHTTPAPI(baseURL: await server.baseURL, accountCurrency: currency)
        let app = AppHarness(api: api, width: width, height: 30, currency: currency)
        var screens: [[String]] = [await app.start()]
        let goalsScreen = screens[0]
        let goals = await backend.goals().filter { $0.status == .active }
        for goal in goals {
            guard let row = goalsScreen.first(where: { $0.contains(String(goal.name.prefix(5))) }) else { continue }
            #expect(row.contains(goal.balance.formatted), "\(code) at \(width): \(row)")
            if let target = goal.target, width == 80 { #expect(row.contains(" of " + target.formatted), "\(code) at \(width): \(row)") }
            if currency.minorDigits == 0 { #expect(!goal.balance.formatted.contains(".")) }
        }
        #expect(goalsScreen.contains { $0.contains("CHF 1,250.50") } == (code == "CHF"))
        for tab in ["2", "3", "5"] {
            screens.append(await app.press(.char(Character(tab))))
        }
        for screen in screens {
            #expect(Self.cutAmounts(screen) == [], "\(code) at \(width)")
        }
        // The week's round-ups are never zero for want of a step.
        let roundUps = try #require(screens[2].first { $0.contains("Round-ups: ") })
        #expect(!roundUps.contains("Round-ups: \(Money.zero(currency).formatted) "), "\(roundUps)")
        await server.stop()
    }
}
