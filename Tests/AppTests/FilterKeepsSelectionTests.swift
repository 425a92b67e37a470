@testable import DemoData
import FeedModel
import Foundation
import Testing
import TermUI
import TestSupport
@testable import QapitalApp

/// Issue 50, item 10: clearing a filter keeps the selection on the row it was on (less, tig and
/// lazygit do), on every list, by Esc on the screen, Esc in the filter line, or deleting the
/// line's last character.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct FilterKeepsSelectionTests {
    /// The demo with the bundled achievements.
    static func app() throws -> AppHarness {
        let core = AppCore(api: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)),
                           configuration: .init(sourceName: "demo", colors: false, timeZone: TimeZone(identifier: "UTC")!, images: false),
                           achievements: try BundledAchievements.load(), now: { fixedNow })
        return AppHarness(core: core, width: 100, height: 30)
    }

    /// Each tab with a filter that leaves several rows; the last of them is selected, then the
    /// filter is cleared.
    @Test(arguments: [("1", "o"), ("2", "a"), ("3", "e"), ("4", "e"), ("5", "a")])
    func escKeepsTheSelectedRow(tab: String, filter: String) async throws {
        let app = try Self.app()
        _ = await app.start()
        await app.press(.char(Character(tab)), .char("/"), .char(Character(filter)), .enter, .char("G"))
        let screen = app.core.screen
        let kept = try #require(screen.selection(app.core.screenData), "tab \(tab): nothing selected under the filter")
        await app.press(.escape)
        #expect(screen.filter.isEmpty)
        #expect(screen.selection(app.core.screenData) == kept, "tab \(tab)")
    }

    @Test func theFilterLinesEscAndItsLastBackspaceKeepItToo() async throws {
        let app = AppHarness(width: 100, height: 30)
        _ = await app.start()
        let goals = app.core.goals.goals
        // "Dog" is the second goal: under the filter it is the first row, cleared the second.
        let dog = try #require(goals.firstIndex { $0.name == "Dog" })
        #expect(dog > 0)
        await app.press(.char("/"), .char("D"), .char("o"), .char("g"))
        #expect(app.core.goalList.list.selected == 0)
        await app.press(.escape)
        #expect(app.core.goalList.list.selected == dog)
        await app.press(.char("/"), .char("D"), .char("o"), .char("g"), .backspace, .backspace, .backspace)
        #expect(app.core.goalList.filter.isEmpty)
        #expect(app.core.goalList.list.selected == dog)
    }

    @Test func inAGoalTheSavingStaysSelected() async throws {
        let app = AppHarness(width: 100, height: 30)
        _ = await app.start()
        await app.press(.enter, .char("/"), .char("a"), .enter, .char("G"))
        let detail = try #require(app.core.screen(GoalDetailScreen.self))
        let kept = try #require(detail.selection(app.core.screenData))
        await app.press(.escape)
        #expect(detail.filter.isEmpty && detail.selection(app.core.screenData) == kept)
    }
}

/// Issue 50, item 6: a bank's goal name drops the institution where it does not fit, never the
/// name the user chose.
@Suite struct FittedGoalNameTests {
    @Test func theInstitutionGoesFirst() {
        #expect(DisplayFormat.fitted("Vacation · SimpleFIN Demo Bank", to: 40) == "Vacation · SimpleFIN Demo Bank")
        #expect(DisplayFormat.fitted("Vacation · SimpleFIN Demo Bank", to: 20) == "Vacation")
        #expect(DisplayFormat.fitted("Vacation Fund · Maple Credit Union (needs attention)", to: 30) == "Vacation Fund")
        #expect(DisplayFormat.fitted("A long name without an institution", to: 10) == "A long name without an institution")
    }
}
