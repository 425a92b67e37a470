@testable import DemoData
import FeedModel
import Foundation
import Testing
import TermUI
import TestSupport
@testable import QapitalApp
@testable import qapital_tui

/// For a screen reader (`--screen-reader`, `ACCESSIBLE=1`, `[ui] screen-reader`): every frame puts
/// the terminal's cursor on the first cell of the selected row's text, or a form's insertion
/// point, so a screen reader or braille display reads what is selected; the spinner is words.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct ScreenReaderTests {
    static func app(width: Int = 100, height: Int = 30, screenReader: Bool = true) -> AppHarness {
        var configuration = AppCore.Configuration(sourceName: "demo", colors: true, timeZone: TimeZone(identifier: "UTC")!, images: false)
        configuration.screenReader = screenReader
        let core = AppCore(api: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), configuration: configuration,
                           achievements: (try? BundledAchievements.load()) ?? AchievementsFile(title: "", achievements: []),
                           now: { fixedNow })
        return AppHarness(core: core, width: width, height: height)
    }

    /// The row a list's selection is drawn on.
    static func selectedRow(_ list: ListState) -> Int? {
        guard let rows = list.rowsRect else { return nil }
        return rows.y + list.selected - list.offset
    }

    /// Each tab's number key and its list as the core holds it.
    static func tabLists(_ app: AppHarness) -> [(key: Character, list: () -> ListState?)] {
        [
            ("1", { app.core.goalList.list }),
            ("2", { app.core.activity.list }),
            ("3", { app.core.screen(RoundUpsScreen.self)?.list }),
            ("4", { app.core.screen(AchievementsScreen.self)?.list }),
            ("5", { app.core.screen(PeopleScreen.self)?.list }),
        ]
    }

    @Test func theCursorFollowsTheSelectionOnEveryTabAndInTheGoal() async throws {
        let app = Self.app()
        _ = await app.start()
        let lists = Self.tabLists(app)
        for (key, list) in lists {
            _ = await app.press(.char(key), .char("j"), .char("j"))
            let state = try #require(list(), "tab \(key)")
            let cursor = try #require(app.terminal.screen.cursor, "tab \(key): no cursor")
            #expect(cursor.y == Self.selectedRow(state), "tab \(key): cursor \(cursor), selected row \(String(describing: Self.selectedRow(state)))")
            let row = app.terminal.lines[cursor.y]
            let textStart = row.firstIndex { $0 != " " }.map { row.distance(from: row.startIndex, to: $0) }
            #expect(textStart != nil && cursor.x <= textStart! + 1, "tab \(key): cursor at \(cursor.x) in \(row)")
        }
        // A goal's detail: its feed's selected row.
        _ = await app.press(.char("1"), .enter, .char("j"))
        let detail = try #require(app.core.screen(GoalDetailScreen.self))
        #expect(app.terminal.screen.cursor?.y == Self.selectedRow(detail.list))
    }

    /// Issue 50, item 4: without the mode too, at three sizes, every frame puts the cursor on the
    /// selection: each tab's selected row, the goal's, the help's first line, a form's insertion
    /// point (the writer then moves the terminal's cursor there, hidden: `ScreenWriterCursorTests`).
    @Test(arguments: [(100, 30), (80, 24), (40, 12)])
    func theCursorFollowsTheSelectionWithoutTheModeAtEverySize(width: Int, height: Int) async throws {
        let app = Self.app(width: width, height: height, screenReader: false)
        _ = await app.start()
        let lists = Self.tabLists(app)
        for (key, list) in lists {
            _ = await app.press(.char(key), .char("j"))
            let state = try #require(list(), "tab \(key)")
            let cursor = try #require(app.terminal.screen.cursor, "tab \(key) at \(width)×\(height): no cursor")
            #expect(cursor.y == Self.selectedRow(state), "tab \(key) at \(width)×\(height): cursor \(cursor)")
        }
        _ = await app.press(.char("1"), .enter, .char("j"))
        let detail = try #require(app.core.screen(GoalDetailScreen.self))
        #expect(app.terminal.screen.cursor?.y == Self.selectedRow(detail.list), "the goal at \(width)×\(height)")
        _ = await app.press(.char("?"))
        let help = try #require(app.terminal.screen.cursor, "the help at \(width)×\(height)")
        #expect(app.terminal.lines[help.y].contains("Move"), "the help at \(width)×\(height): \(app.terminal.lines[help.y])")
        _ = await app.press(.escape, .escape, .char("a"), .char("C"), .char("a"), .char("r"))
        let form = try #require(app.terminal.screen.cursor, "the form at \(width)×\(height)")
        #expect(app.terminal.lines[form.y].contains("Car"), "the form at \(width)×\(height): \(app.terminal.lines[form.y])")
    }

    @Test func theHelpAndAFormPutTheCursorOnWhatIsRead() async throws {
        let app = Self.app()
        _ = await app.start()
        _ = await app.press(.char("?"))
        let help = try #require(app.terminal.screen.cursor)
        #expect(app.terminal.lines[help.y].contains("Move"), "the help's first line: \(app.terminal.lines[help.y])")
        _ = await app.press(.escape, .char("a"))
        _ = await app.press(.char("C"), .char("a"), .char("r"))
        let form = try #require(app.terminal.screen.cursor)
        let line = app.terminal.lines[form.y]
        #expect(line.contains("Car"), "the new-goal form's name field: \(line)")
        // The insertion point: just after what was typed.
        let typed = try #require(line.range(of: "Car"))
        #expect(form.x == line.distance(from: line.startIndex, to: typed.upperBound))
    }

    @Test func theSpinnerIsWords() async throws {
        let app = await WaitingApp(screenReader: true)
        let status = app.terminal.lines.last ?? ""
        #expect(status.contains("Loading…"), "\(status)")
        #expect(!Spinner.brailleFrames.contains { status.contains($0) })
        app.api.release()
    }

    @Test func theOptionTheEnvironmentAndTheConfigFileTurnItOn() throws {
        #expect(try AppOptions.parse([]).settings(environment: [:], screen: ScreenOptions.parse(["--screen-reader"])).screenReader)
        let plain = try AppOptions.parse([]).settings(environment: [:])
        #expect(!plain.screenReader && plain.images)
        let accessible = try AppOptions.parse([]).settings(environment: ["ACCESSIBLE": "1"])
        #expect(accessible.screenReader && !accessible.images, "no pictures for a screen reader")
        #expect(!(try AppOptions.parse([]).settings(environment: ["ACCESSIBLE": "0"]).screenReader))
        let config = try ConfigFile.parse("[ui]\nscreen-reader = true\n", file: "c.toml")
        #expect(config.screenReader == true)
        #expect(throws: ConfigFile.Failure.self) { try ConfigFile.parse("[ui]\nscreen-raeder = true\n", file: "c.toml") }
    }
}
