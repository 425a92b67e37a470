@testable import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport
import TermUI
@testable import QapitalApp
@testable import qapital_tui

@MainActor
@Suite(.timeLimit(.minutes(1))) struct PeopleAndAchievementsTests {
    static let recorded: AchievementsFile = try! AppOptions.loadAchievements(path: nil)

    @Test func theAchievementsTabShowsTheRecordedFileByLevel() async {
        let core = AppCore(api: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)),
                           configuration: .init(sourceName: "demo", colors: false, timeZone: TimeZone(identifier: "UTC")!),
                           achievements: Self.recorded, now: { fixedNow })
        var buffer = CellBuffer(width: 80, height: 12)
        core.handle(.key(.char("4")))
        core.drawFrame(into: &buffer)
        let lines = buffer.lines
        #expect(lines[0].contains("4 Achievements"))
        #expect(lines[1].hasPrefix(" Smart Investing"))
        let level1 = try! #require(lines.firstIndex { $0.contains("Level 1") })
        #expect(lines[level1].contains("10 / 50 pts"))
        #expect(!lines[level1].contains("locked"))
        let level2 = try! #require(lines.firstIndex { $0.contains("Level 2") })
        #expect(lines[level2].contains("0 / 50 pts"))
        #expect(lines[level2].contains("🔒 locked"))
        #expect(lines[level2 + 1].contains("Level 3") && lines[level2 + 1].contains("🔒 locked"))
        #expect(buffer.style(atX: 1, y: level2 + 1).attributes.contains(.dim))
        #expect(!buffer.style(atX: 1, y: level1).attributes.contains(.dim))
    }

    @Test func aBadEntryIsSkippedWithANoteInTheStatusBar() async throws {
        let json = #"{"overview":{"title":"T"},"achievements":[{"id":1,"level":"x","progress":1,"total":2,"accessible":true},{"id":2,"level":"1","progress":1,"total":2,"accessible":true}]}"#
        let file = try AchievementsLoader.decode(Data(json.utf8), name: "a.json")
        let core = AppCore(api: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)),
                           configuration: .init(sourceName: "demo", colors: false), achievements: file, now: { fixedNow })
        core.start()
        var buffer = CellBuffer(width: 120, height: 10)
        core.drawFrame(into: &buffer)
        #expect(buffer.lines.last!.contains("achievements: skipped 1 bad entry (achievements[0].level"))
    }

    @Test func uShowsWhoIsBehindASharedGoal() async {
        let app = AppHarness()
        _ = await app.start()
        var lines = await app.press(.char("u"))
        var text = lines.joined(separator: "\n")
        #expect(text.contains("Person"))
        #expect(text.contains("Henrik"))
        #expect(!text.contains("User #2"))  // named once: the id line read as the unknown-user fallback
        #expect(text.contains("Goals with Henrik:"))
        #expect(text.contains("• Balloons"))
        #expect(text.contains("← → 2 of 4"))
        lines = await app.press(.right)
        text = lines.joined(separator: "\n")
        #expect(text.contains("Johan") && !text.contains("User #3"))
        #expect(text.contains("Goals with Johan:"))
        #expect(text.contains("• Concert tickets"))
        lines = await app.press(.escape)
        #expect(!lines.joined().contains("Goals with"))
        #expect(lines.contains { $0.contains("Balloons") })
    }

    /// Enter means one thing on every list (issue 50, item 9): in a goal's feed it opens the
    /// saving's card, as in Activity; `u` shows the people.
    @Test func enterInAGoalShowsTheSavingAndUItsPeople() async {
        let app = AppHarness()
        _ = await app.start()
        _ = await app.press(.enter)
        var lines = await app.press(.enter)
        #expect(app.core.overlays.last is DetailCard)
        #expect(lines.joined(separator: "\n").contains("Saving"))
        _ = await app.press(.escape)
        lines = await app.press(.char("u"))
        let text = lines.joined(separator: "\n")
        #expect(text.contains("Person"))
        #expect(text.contains("of 4 · Esc closes"))  // the saver, the owner and the three shared
        _ = await app.press(.escape)
        #expect(app.terminal.lines[2].hasPrefix("Saved"))  // still in the goal
    }

    @Test func uInTheFeedShowsTheSaver() async {
        let app = AppHarness()
        _ = await app.start()
        _ = await app.press(.char("2"))
        let first = app.core.feed.activities[0]
        let name = app.core.stores.users.displayName(for: first.userId)
        let lines = await app.press(.char("u"))
        #expect(!lines.joined(separator: "\n").contains("User #\(first.userId)"))
        #expect(lines.joined(separator: "\n").contains(name))
    }
}
