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

/// Issue 50, item 12: at 80 columns (and 64) the help's descriptions wrap at words under
/// themselves, every one read whole, no line wider than the box.
@MainActor @Suite struct HelpWrapsTests {
    @Test(arguments: [76, 60])
    func everyDescriptionIsReadWhole(width: Int) {
        let entries = KeysHelp.defaultEntries
        let lines = HelpOverlay.lines(for: entries, width: width)
        let widest = lines.map { $0.map(\.text).joined() }.max { TextWidth.of($0) < TextWidth.of($1) } ?? ""
        #expect(TextWidth.of(widest) <= width, "wider than \(width): \(widest)")
        let words = lines.map { $0.map(\.text).joined() }.joined(separator: " ")
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for entry in entries {
            #expect(words.contains(entry.help.split(separator: " ").joined(separator: " ")), "\(entry.help)")
        }
        #expect(entries.contains { TextWidth.of($0.help) + 21 > 76 }, "at least one description is longer than its room at 80 columns")
    }
}

/// Issue 50, item 12: at 40×12 what matters least gives way: the payee keeps its name in
/// Round-ups (the date is the weekday), an achievement's state is its mark rather than a cut word,
/// and at 19 columns the too-small line is read whole.
@MainActor @Suite(.timeLimit(.minutes(1))) struct NarrowTerminalTests {
    @Test func fortyColumnsKeepWhatMatters() async throws {
        let core = AppCore(api: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)),
                           configuration: .init(sourceName: "demo", colors: false, timeZone: TimeZone(identifier: "UTC")!, images: false),
                           achievements: try BundledAchievements.load(), now: { fixedNow })
        let app = AppHarness(core: core, width: 40, height: 12)
        _ = await app.start()
        let roundUps = await app.press(.char("3"))
        let payees = app.core.roundUps.summary?.lines.map(\.transaction.counterparty) ?? []
        // A payee of up to 13 characters is whole (was 3: "Pai" for "Paid to", "B…" for Bakery).
        let short = try #require(payees.prefix(4).first { TextWidth.of($0) <= 13 && TextWidth.of($0) >= 5 })
        #expect(roundUps.contains { $0.contains(short) }, "\(roundUps.joined(separator: "\n"))")
        #expect(roundUps.contains { $0.contains("Paid to") })
        let achievements = await app.press(.char("4"))
        #expect(!achievements.joined().contains("lo…"), "\(achievements.joined(separator: "\n"))")
        let tiny = await app.resize(width: 19, height: 6)
        let words = tiny.joined(separator: " ").split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        #expect(words.contains("Terminal too small (19×6); need 20×6"), "\(tiny)")
    }
}
