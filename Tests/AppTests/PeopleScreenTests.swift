@testable import DemoData
import FeedModel
import Foundation
import Testing
import TermUI
import TestSupport
@testable import QapitalApp

/// Tab 5, People: the demo's people at 80×24 and 120×40, search, a person's page, a goal opened from it,
/// and a source with nobody else.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct PeopleScreenTests {
    static let dataset = DemoDataset(now: fixedNow)

    /// What the demo says `id` saved into goals in the 30 days before `fixedNow`, in cents.
    static func saved(_ id: Int) -> Money {
        let since = fixedNow.addingTimeInterval(-30 * 86_400)
        let active = Set(dataset.goals.filter { $0.status == .active }.map(\.id))
        let cents = dataset.feeds.filter { active.contains($0.key) }.values.joined()
            .filter { $0.userId == id && $0.timestamp >= since && $0.timestamp <= fixedNow }
            .reduce(Int64(0)) { $0 + $1.amount.minorUnits }
        return Money(minorUnits: cents, currency: .usd)
    }

    static func row(_ lines: [String], _ name: String) -> String? { lines.first { $0.contains(name) && !$0.contains("People") } }

    /// Everyone and their sums are worked out once per change of the stores, not per key or
    /// frame (before, three times a key and again each frame, over every loaded activity).
    @Test func thePeopleAreWorkedOutOncePerChangeNotPerKey() async throws {
        let app = AppHarness(width: 100, height: 30)
        _ = await app.start()
        _ = await app.press(.char("5"))
        let derived = app.core.screenData.derived
        let settled = derived.peopleComputations
        #expect(settled >= 1)
        for _ in 0..<10 { _ = await app.press(.char("j")) }
        _ = await app.press(.char("k"), .char("G"), .char("g"))
        #expect(derived.peopleComputations == settled, "keys and frames worked the people out again")
        // A change of a store does: a refresh loads the goals and their feeds again.
        _ = await app.press(.char("r"))
        #expect(derived.peopleComputations > settled)
    }

    @Test(arguments: [(80, 24), (120, 40)]) func theTabListsEveryoneWithGoalsAndWhatTheySaved(size: (Int, Int)) async throws {
        let app = AppHarness(width: size.0, height: size.1)
        _ = await app.start()
        let lines = await app.press(.char("5"))
        #expect(lines[0].contains("5 People"))
        #expect(lines[1].contains("Name") && lines[1].contains("goals") && lines[1].contains("saved 30 d"))
        for user in Self.dataset.users {
            let row = try #require(Self.row(lines, user.displayName), "\(user.displayName) missing at \(size)")
            #expect(row.contains(Self.saved(user.id).formatted), "\(user.displayName): \(row)")
        }
        let mikael = try #require(Self.row(lines, "Mikael"))
        #expect(mikael.contains("(you)") && mikael.contains(" 11 "), "\(mikael)")
        let johan = try #require(Self.row(lines, "Johan"))
        #expect(johan.contains(" 2 "))
        if size.0 >= 100 {
            #expect(johan.contains("Balloons, Concert tickets"))
        }
        // The first person is selected; every goal's feed was asked for once.
        #expect(app.isSelected(row: 2))
    }

    /// The saved column of `name`'s row: its last word.
    static func savedColumn(_ lines: [String], _ name: String) -> String? {
        row(lines, name).flatMap { $0.split(separator: " ").last.map(String.init) }
    }

    /// While goal feeds load, a sum over them is "…", never a partial sum; each row shows its
    /// amount once all of that person's goals are in.
    @Test func aSumIsDotsWhileItsFeedsLoadAndTheAmountOnceTheyAreIn() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "demo")
        api.hold([.feed])
        let app = AppHarness(api: api, width: 90, height: 24)
        let idle = { app.core.pendingEvents == 0 }
        await app.runner.run(until: idle, timeout: .seconds(30))
        app.terminal.send(.key(.char("5")))
        await app.runner.run(until: { idle() && api.heldCount == Self.dataset.goals.filter { $0.status == .active }.count },
                             timeout: .seconds(30))
        var lines = app.terminal.lines
        for user in Self.dataset.users {
            #expect(Self.savedColumn(lines, user.displayName) == "…", "\(user.displayName): \(Self.row(lines, user.displayName) ?? "")")
        }
        // Feeds arrive one at a time: a person's sum shows only once all of their goals are in.
        let active = Self.dataset.goals.filter { $0.status == .active }
        var partial = 0
        for released in 1...active.count {
            api.releaseOne(.feed)
            await app.runner.run(until: { idle() && active.count { app.core.goals.feed(for: $0.id).status == .loaded } == released },
                                 timeout: .seconds(30))
            lines = app.terminal.lines
            for user in Self.dataset.users {
                let theirs = active.filter { $0.ownerId == user.id || $0.connectedUserIds.contains(user.id) }
                let known = theirs.allSatisfy { app.core.goals.feed(for: $0.id).status == .loaded }
                if !known { partial += 1 }
                #expect(Self.savedColumn(lines, user.displayName) == (known ? Self.saved(user.id).formatted : "…"),
                        "\(user.displayName) after \(released) feeds")
            }
        }
        #expect(partial > 0)
        api.release()
        lines = await app.screen()
        for user in Self.dataset.users {
            #expect(Self.savedColumn(lines, user.displayName) == Self.saved(user.id).formatted, "\(user.displayName)")
        }
    }

    /// Offline with the goals' feeds not kept, a sum is "—" (not $0.00); when the server answers
    /// again it is filled in without `r`.
    @Test func aSumIsADashOfflineAndFilledInWhenTheServerAnswersAgain() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "demo")
        api.script { $0.unreachable = [.feed] }
        let app = AppHarness(api: api, width: 90, height: 24)
        _ = await app.start()
        var lines = await app.press(.char("5"))
        for user in Self.dataset.users {
            #expect(Self.savedColumn(lines, user.displayName) == "—", "\(user.displayName): \(Self.row(lines, user.displayName) ?? "")")
        }
        #expect(!lines.joined().contains("$0.00"))
        _ = await app.press(.enter)
        lines = app.terminal.lines
        #expect(lines.contains { $0.contains("saved — in the last 30 days (not available offline)") }, "\(lines)")
        _ = await app.press(.escape)
        // Back online: the goals come again (as the reconnect tick asks), and with them the feeds.
        api.script { $0.unreachable = [] }
        app.core.goals.load()
        lines = await app.screen()
        for user in Self.dataset.users {
            #expect(Self.savedColumn(lines, user.displayName) == Self.saved(user.id).formatted, "\(user.displayName)")
        }
    }

    @Test func slashSearchesNamesIdsAndGoalNames() async {
        let app = AppHarness(width: 100, height: 24)
        _ = await app.start()
        _ = await app.press(.char("5"), .char("/"))
        var lines = await app.type("hen")
        lines = await app.press(.enter)
        #expect(Self.row(lines, "Henrik") != nil)
        #expect(Self.row(lines, "Johan") == nil && Self.row(lines, "Mikael") == nil)
        // Goal names: the Tokyo trip's people.
        _ = await app.press(.escape, .char("/"))
        _ = await app.type("tokyo")
        lines = await app.press(.enter)
        #expect(Self.row(lines, "Lucía Fernández") != nil && Self.row(lines, "佐藤 美咲") != nil && Self.row(lines, "Mikael") != nil)
        #expect(Self.row(lines, "Henrik") == nil)
        // Ids.
        _ = await app.press(.escape, .char("/"))
        _ = await app.type("#6")
        lines = await app.press(.enter)
        #expect(Self.row(lines, "Daniel") != nil && Self.row(lines, "George") == nil)
        _ = await app.press(.escape, .char("/"))
        _ = await app.type("nobody")
        lines = await app.press(.enter)
        #expect(lines.contains { $0.contains("No one matches “nobody”") })
    }

    @Test(arguments: [(80, 24), (120, 40)]) func enterOpensThePersonWithGoalsAndActivity(size: (Int, Int)) async throws {
        let app = AppHarness(width: size.0, height: size.1)
        _ = await app.start()
        _ = await app.press(.char("5"), .char("/"))
        _ = await app.type("Henrik")
        _ = await app.press(.enter, .enter)
        let lines = app.terminal.lines
        #expect(lines.contains { $0.contains("Henrik") })
        #expect(!lines.contains { $0.contains("User #2") })  // named once
        #expect(lines.contains { $0.contains("Part of 1 goal · saved \(Self.saved(2).formatted) in the last 30 days") })
        #expect(lines.contains { $0.contains("Goals (1)") })
        let balloons = try #require(lines.firstIndex { $0.contains("Balloons") && $0.contains("shared") })
        #expect(app.isSelected(row: balloons), "the cursor starts on the first goal")
        #expect(lines.contains { $0.contains("Recent savings and activity") })
        #expect(lines.contains { $0.contains("→ Balloons") } || lines.contains { $0.contains("· activity") })
        // Without colours the avatar is a monogram block; with them, the demo's picture in half blocks.
        #expect(lines.prefix(10).contains { $0.hasPrefix("       HE") })
        let colored = AppHarness(width: size.0, height: size.1, colors: true)
        _ = await colored.start()
        _ = await colored.press(.char("5"), .char("j"), .enter)
        let blocks = colored.terminal.lines[1...8].filter { $0.prefix(16).contains { "▀▄█".contains($0) } }.count
        #expect(blocks == 8, "\(colored.terminal.lines.prefix(10))")
        // Esc goes back to the list.
        let back = await app.press(.escape)
        #expect(back[1].contains("saved 30 d"))
    }

    @Test func aGoalOpensFromThePersonAndEscReturns() async throws {
        let app = AppHarness(width: 100, height: 30)
        _ = await app.start()
        _ = await app.press(.char("5"), .char("/"))
        _ = await app.type("Johan")
        _ = await app.press(.enter, .enter)
        // Johan's second goal, Concert tickets.
        var lines = await app.press(.char("j"), .enter)
        #expect(app.core.screen is GoalDetailScreen)
        #expect((app.core.screen as? GoalDetailScreen)?.goalId == GoalID(12))
        #expect(lines.contains { $0.contains("Concert tickets") && $0.contains("Owner") == false } )
        #expect(lines.contains { $0.contains("Shared with") && $0.contains("Johan") })
        lines = await app.press(.escape)
        #expect(app.core.screen is PersonScreen)
        // A saving opens its goal with that saving selected.
        _ = await app.press(.char("G"))
        let person = try #require(app.core.screen as? PersonScreen)
        let rows = person.rows(app.coreData)
        guard case .event(let event) = rows[person.list.selected] else {
            Issue.record("the cursor is not on an event")
            return
        }
        _ = await app.press(.enter)
        if case .saving(let goalId, let item) = event {
            let detail = try #require(app.core.screen as? GoalDetailScreen)
            #expect(detail.goalId == goalId)
            #expect(app.core.goals.feed(for: goalId).entries[detail.list.selected].item == item)
        }
    }

    @Test func aSourceWithNobodyElseSaysSoInOneLine() async throws {
        let api = FakeSavingsAPI(sourceName: "bank")
        api.script { script in
            script.goals = { [Goal(id: "g1", name: "Holiday", ownerId: 1, target: nil, balance: Money(minorUnits: 500, currency: .gbp))] }
            script.feed = { _ in [] }
            script.user = { User(id: $0, displayName: "Jane Doe") }
            script.activities = { from, _ in ActivityPage(oldest: from, activities: []) }
        }
        let app = AppHarness(api: api, width: 80, height: 24, currency: .gbp)
        _ = await app.start()
        let lines = await app.press(.char("5"))
        #expect(lines[1].contains("Only you here"))
        let row = try #require(Self.row(lines, "Jane Doe"))
        #expect(row.contains("(you)") && row.contains("£0.00"))
        #expect(lines.filter { $0.contains("Jane Doe") }.count == 1)
    }

    @Test func theRosterIsPureAndCountsOnlyTheLast30Days() {
        let usd = Currency.usd
        let goals = [Goal(id: 1, name: "A", ownerId: 1, target: nil, balance: .zero(usd), connectedUserIds: [2]),
                     Goal(id: 2, name: "B", ownerId: 1, target: nil, balance: .zero(usd))]
        let recent = FeedItem(id: "a", timestamp: fixedNow.addingTimeInterval(-86_400), message: MarkupText(parsing: "x"),
                              amount: Money(minorUnits: 1_001, currency: usd), userId: 2)
        let old = FeedItem(id: "b", timestamp: fixedNow.addingTimeInterval(-31 * 86_400), message: MarkupText(parsing: "x"),
                           amount: Money(minorUnits: 5_000, currency: usd), userId: 2)
        let stranger = Activity(message: MarkupText(parsing: "hi"), amount: Money(minorUnits: 1, currency: usd), userId: 9, timestamp: fixedNow)
        let people = PeopleRoster.people(goals: goals, feeds: { $0 == 1 ? ([recent, old], .known) : ([], .loading) },
                                         activities: [stranger], currency: usd, now: fixedNow)
        #expect(people.map(\.id) == [1, 2, 9])
        #expect(people[0].isHolder && people[0].goalIds == [1, 2] && !people[0].savedIsComplete)
        #expect(people[1].saved.minorUnits == 1_001 && people[1].savingsCount == 1 && people[1].savedIsComplete)
        #expect(people[2].goalIds.isEmpty && people[2].saved.minorUnits == 0)
        let events = PeopleRoster.events(of: 2, goals: goals, feeds: { $0 == 1 ? [old, recent] : [] }, activities: [stranger])
        #expect(events == [.saving(goalId: 1, item: recent), .saving(goalId: 1, item: old)])
        // The same saving in the activity (one ledger) is listed once; another activity of theirs stays.
        let same = Activity(message: MarkupText(parsing: "into A"), amount: recent.amount, userId: 2, timestamp: recent.timestamp)
        let other = Activity(message: MarkupText(parsing: "else"), amount: recent.amount, userId: 2, timestamp: fixedNow)
        let deduplicated = PeopleRoster.events(of: 2, goals: goals, feeds: { $0 == 1 ? [old, recent] : [] }, activities: [same, other])
        #expect(deduplicated == [.activity(other), .saving(goalId: 1, item: recent), .saving(goalId: 1, item: old)])
    }
}

extension AppHarness {
    /// What the screens read (for tests that look at a screen's rows).
    var coreData: ScreenData { core.screenData }
}
