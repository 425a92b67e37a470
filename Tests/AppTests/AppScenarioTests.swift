@testable import QapitalClient
@testable import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport
import TermUI
@testable import QapitalApp
@testable import qapital_tui

/// The whole app driven by keys in memory, asserting what a person would see.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct AppScenarioTests {
    @Test func opensOnTheGoalsWithTheSelectedGoalsSummaryBeside() async {
        let app = AppHarness()
        let lines = await app.start()
        #expect(lines[0].hasPrefix(" 1 Goals   2 Activity"))
        let balloons = try! #require(app.row(containing: "Balloons"))
        #expect(lines[balloons].contains("$400.00 of $1,500.00"))
        #expect(lines.contains { $0.contains("26%") })  // in the summary: the list keeps the names whole
        #expect(app.isSelected(row: balloons))
        #expect(lines.contains { $0.contains("Shared with") })
        #expect(lines.contains { $0.contains("• Henrik") })
        #expect(lines.last!.hasPrefix(" demo"))
        #expect(lines.last!.hasSuffix("? help  q quit "))
        #expect(!lines.contains { $0.contains("Old laptop") })
        #expect(lines.contains { $0.contains("Dog") && $0.contains("no target") })
    }

    @Test func enterOpensTheGoalAndEscGoesBackToTheSameSelection() async {
        let app = AppHarness()
        _ = await app.start()
        var lines = await app.press(.char("j"), .char("j"), .enter)
        #expect(lines[1].contains("Bike"))
        #expect(lines[2].hasPrefix("Saved $500.00 of $500.00"))
        #expect(lines[2].contains("100%"))
        #expect(lines[3].hasPrefix("Owner Mikael"))
        #expect(lines.contains { $0.contains("made a") })
        // Under the header and the balance chart block (100×30 has room for it).
        #expect(app.isSelected(row: 6 + GoalChart.height(bodyHeight: 28 - 5)))
        lines = await app.press(.escape)
        let bike = try! #require(app.row(containing: "BI  Bike"))
        #expect(app.isSelected(row: bike))
        #expect(lines[bike].contains("$500.00 of $500.00"))
        // h and Backspace go back too; q in a goal goes back rather than quitting.
        for key in [Key.char("h"), .backspace, .char("q")] {
            _ = await app.press(.enter)
            #expect(app.terminal.lines[2].hasPrefix("Saved"))
            _ = await app.press(key)
            #expect(app.isSelected(row: bike))
            #expect(!app.core.shouldQuit)
        }
        _ = await app.press(.char("q"))
        #expect(app.core.shouldQuit)
    }

    @Test func theDetailShowsSharedPeopleRulesAndBoldWords() async {
        let app = AppHarness(width: 120, height: 40)
        _ = await app.start()
        let lines = await app.press(.enter)
        #expect(lines[3] == "Owner Mikael · Shared with Henrik, Johan, Erik".padding(toLength: 120, withPad: " ", startingAt: 0))
        #expect(lines.contains { $0.contains("Round-up") })
        let roundup = try! #require(lines.firstIndex { $0.contains("made a roundup") && !app.isSelected(row: lines.firstIndex(of: $0)!) })
        let nameStart = lines[roundup].distance(from: lines[roundup].startIndex, to: lines[roundup].range(of: "made a roundup")!.lowerBound)
        // The saver's name (before "made") is bold, the rest is not.
        #expect(app.terminal.attributes(atX: 12, y: roundup).contains(.bold))
        #expect(!app.terminal.attributes(atX: nameStart, y: roundup).contains(.bold))
    }

    @Test func tabsSwitchAndTheActivityFeedGroupsByDay() async {
        let app = AppHarness()
        _ = await app.start()
        var lines = await app.press(.tab)
        #expect(lines[0].hasPrefix(" 1 Goals   2 Activity"))
        // Row 1 is the weekly sparkline (100×30 has room for it).
        #expect(lines[1].hasPrefix(" Everyone's savings per week "))
        #expect(lines[2].hasPrefix("Today") || lines[2].hasPrefix("Yesterday"))
        #expect(app.isSelected(row: 3))
        #expect(lines[3].contains("$"))
        #expect(lines.contains { $0.hasPrefix("Yesterday") })
        lines = await app.press(.backTab)
        #expect(lines.contains { $0.contains("Balloons") })
        lines = await app.press(.char("2"))
        #expect(lines[2].hasPrefix("Today") || lines[2].hasPrefix("Yesterday"))
        lines = await app.press(.char("1"))
        #expect(lines.contains { $0.contains("Balloons") })
    }

    @Test func scrollingTheFeedReachesTheBeginningOfHistoryThroughTheGaps() async {
        let backend = DemoBackend(now: fixedNow)
        let dataset = await backend.dataset
        let app = AppHarness(api: DemoSavingsAPI(backend: backend))
        _ = await app.start()
        _ = await app.press(.char("2"))
        var presses = 0
        while !(app.terminal.lines.contains { $0.contains("Beginning of history") }) && presses < 300 {
            _ = await app.press(.char("G"))
            presses += 1
        }
        #expect(app.terminal.lines.contains { $0.contains("— Beginning of history (") })
        #expect(app.core.feed.activities == dataset.activities)
        // Back at the top, the newest activity is first again.
        let lines = await app.press(.char("g"))
        #expect(lines[2].hasPrefix("Today") || lines[2].hasPrefix("Yesterday"))
    }

    @Test func pagingKeysMoveByAScreen() async {
        let app = AppHarness()
        _ = await app.start()
        _ = await app.press(.char("2"))
        let before = app.core.activity.list.selected
        _ = await app.press(.pageDown)
        let after = app.core.activity.list.selected
        #expect(after - before >= 20)
        _ = await app.press(.ctrl("b"))
        #expect(app.core.activity.list.selected <= before + 1)
        _ = await app.press(.ctrl("f"), .mouseWheelUp)
        #expect(app.core.activity.list.selected == after - 3 || app.core.activity.list.selected == after - 4)
    }

    @Test func slashFiltersAndEscClears() async {
        let app = AppHarness()
        _ = await app.start()
        var lines = await app.press(.char("/"))
        #expect(lines.last!.hasPrefix("/"))
        lines = await app.type("BIKE")
        #expect(lines.filter { $0.contains("$") && $0.contains(" of ") || $0.contains("no target") }.count == 1)
        #expect(lines.contains { $0.contains("Bike") })
        lines = await app.press(.enter)
        #expect(lines.last!.contains("filter: BIKE"))
        lines = await app.press(.escape)
        #expect(lines.contains { $0.contains("Balloons") })
        #expect(lines.contains { $0.contains("Dog") })
        lines = await app.press(.char("/"))
        lines = await app.type("zzz")
        #expect(lines.contains { $0.contains("No goal matches “zzz”") })
        lines = await app.press(.escape)
        #expect(lines.contains { $0.contains("Balloons") })
    }

    @Test func theActivityFilterMatchesMessagesAndNames() async {
        let app = AppHarness()
        _ = await app.start()
        _ = await app.press(.char("2"), .char("/"))
        let lines = await app.type("guilty")
        let rows = lines.dropFirst().dropLast(2).filter { $0.hasPrefix("  ") && $0.contains("$") }
        #expect(!rows.isEmpty)
        #expect(rows.allSatisfy { $0.contains("guilty pleasure") })
    }

    @Test func helpListsEveryKeyOfTheKeyMap() async {
        let app = AppHarness(width: 100, height: 40)
        _ = await app.start()
        // The help may be taller than the screen: scroll it through and read every line.
        var text = (await app.press(.char("?"))).joined(separator: "\n")
        for _ in 0..<120 { text += (await app.press(.char("j"))).joined(separator: "\n") }
        for (label, help) in KeysHelp.defaultEntries.map({ ($0.keyLabel, $0.help) }) {
            #expect(text.contains(help), "help is missing \(help)")
            #expect(text.contains(label), "help is missing \(label)")
        }
        let closed = await app.press(.escape)
        #expect(!closed.joined().contains("this help"))
        #expect(closed.contains { $0.contains("Balloons") })
    }

    @Test func anActivityErrorShowsAnErrorRowAndRRetries() async {
        let api = flakyActivitiesAPI()
        let app = AppHarness(api: api)
        _ = await app.start()
        var lines = await app.press(.char("2"))
        #expect(lines.contains { $0.contains("✗ GET /activities: HTTP 500 — press r to retry") })
        // Said once: the bar does not say it again (issue 50, item 11).
        #expect(!lines.last!.contains("✗"), "\(lines.last!)")
        // The rest of the app keeps working.
        lines = await app.press(.char("1"))
        #expect(lines.contains { $0.contains("Balloons") })
        failing(api, false)
        lines = await app.press(.char("2"), .char("r"))
        #expect(!lines.contains { $0.contains("✗") })
        #expect(lines[2].hasPrefix("Today") || lines[2].hasPrefix("Yesterday"))
    }

    @Test func aYearWithoutActivityStopsWithARowAndMLooksFurther() async {
        let api = emptyHistoryAPI()
        let app = AppHarness(api: api)
        _ = await app.start()
        var lines = await app.press(.char("2"))
        let day = DisplayFormat(timeZone: TimeZone(identifier: "UTC")!, now: { fixedNow }).shortDate(fixedNow)
        #expect(lines.contains { $0.contains("— No activity in the year before \(day) — press m to look further back —") },
                "\(lines.joined(separator: "\n"))")
        #expect(api.activityCalls.count == 27)
        // Other keys ask for nothing more; m walks one more year.
        lines = await app.press(.char("j"), .char("G"), .char("k"))
        #expect(api.activityCalls.count == 27)
        lines = await app.press(.char("m"))
        #expect(api.activityCalls.count == 54)
        let earlier = DisplayFormat(timeZone: TimeZone(identifier: "UTC")!, now: { fixedNow }).shortDate(fixedNow.addingTimeInterval(-27 * ActivityPager.windowLength))
        #expect(lines.contains { $0.contains("— No activity in the year before \(earlier) —") })
    }

    @Test func anUnreachableServerOpensTheAppAndSaysSo() async throws {
        let refusing = try RefusingPort()
        let port = refusing.port
        let api = QapitalHTTPAPI(baseURL: URL(string: "http://127.0.0.1:\(port)")!, timeout: 5)
        let app = AppHarness(api: api)
        let lines = await app.start()
        #expect(lines.contains { $0.contains("✗ GET /savingsgoals: cannot connect to 127.0.0.1:\(port) — press r to retry") })
        #expect(lines.last!.hasPrefix(" 127.0.0.1:\(port)"))
        let activity = await app.press(.char("2"))
        #expect(activity.contains { $0.contains("✗ GET /activities: cannot connect") })
        withExtendedLifetime(refusing) {}
    }

    @Test func resizingKeepsTheSelectionAndTinyTerminalsSaySo() async {
        let app = AppHarness()
        _ = await app.start()
        _ = await app.press(.char("j"), .char("j"))
        var lines = await app.resize(width: 60, height: 20)
        let bike = try! #require(app.row(containing: "BI  Bike"))
        #expect(app.isSelected(row: bike))
        #expect(!lines.contains { $0.contains("Shared with") })  // no summary below 100 columns
        lines = await app.resize(width: 20, height: 6)
        #expect(lines[0].hasPrefix(" 1  2  3  4  5  6 "))  // the numbers alone, closer, where the names do not fit
        #expect(lines.last!.hasPrefix(" demo"))
        #expect(lines.last!.hasSuffix("? help "))
        lines = await app.resize(width: 19, height: 6)
        #expect(lines[0].hasPrefix("Terminal too small"))
        lines = await app.resize(width: 100, height: 30)
        #expect(app.isSelected(row: try! #require(app.row(containing: "BI  Bike"))))
    }

    @Test func aNarrowScreenReadsWholeLines() async {
        let app = AppHarness(width: 44, height: 8)
        let lines = await app.start()
        // The target gives way before any name is cut ("Concert tickets ⚡️" further down would
        // be; issue 50, item 12): each name whole, the saved amount beside it.
        #expect(lines == [
            " 1 Goals   2   3   4   5   6                ",
            " BA  Balloons                       $400.00█",
            " DO  Dog                             $50.00█",
            " BI  Bike                           $500.00│",
            " GR  Graduation                       $0.00│",
            " VA  Vacation                        $10.00│",
            "                                     1 of 11",
            " demo                        ? help  q quit ",
        ])
    }

    @Test func wideCharactersKeepTheColumnsAligned() async {
        let app = AppHarness(width: 90, height: 20)
        let lines = await app.start()
        let tokyo = try! #require(lines.first { $0.contains("東京") })
        let bike = try! #require(lines.first { $0.contains("Bike") })
        func column(of text: String, in line: String) -> Int {
            TextWidth.of(String(line[..<line.range(of: text)!.lowerBound]))
        }
        #expect(column(of: " of ", in: tokyo) == column(of: " of ", in: bike))
        #expect(TextWidth.of(tokyo) == 90)
    }
}

@MainActor
@Suite struct KeyDocumentationTests {
    /// docs/keys.md lists every binding of the key maps (shared, the screens', the overlays'),
    /// with its keys and its help text.
    @Test func docsListEveryBinding() throws {
        #expect(Self.undocumented(in: try Self.docs()) == [])
    }

    static func docs() throws -> String {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/keys.md")
        return try String(contentsOf: docs, encoding: .utf8)
    }

    /// The table rows (`| keys | help |`) the help has and `text` lacks, in the help's order.
    static func undocumented(in text: String) -> [String] {
        KeysHelp.defaultEntries.map { entry in
            "| \(entry.keys.map { "`\($0.displayName)`" }.joined(separator: " ")) | \(entry.help) |"
        }.filter { !text.contains($0) }
    }
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct SearchTests {
    @Test func highlightingSplitsSpansAtEveryMatch() {
        let spans = DisplayFormat.highlighting([Span("You", .bold), Span(" made a roundup at Round Table")], "round")
        #expect(spans.map(\.text) == ["You", " made a ", "round", "up at ", "Round", " Table"])
        #expect(spans[2].style.attributes.contains(.underline))
        #expect(spans[4].style.attributes.contains(.underline))
        #expect(!spans[3].style.attributes.contains(.underline))
        #expect(spans[0].style == .bold)
        #expect(DisplayFormat.highlighting([Span("abc")], "") == [Span("abc")])
        #expect(DisplayFormat.highlighting([Span("Café 東京")], "東") .map(\.text) == ["Café ", "東", "京"])
    }

    @Test func matchesAreHighlightedAndNJumpsBetweenThem() async {
        let app = AppHarness()
        _ = await app.start()
        _ = await app.press(.char("/"))
        var lines = await app.type("O")
        _ = await app.press(.enter)
        lines = app.terminal.lines
        let rows = lines.indices.filter { lines[$0].contains(" of $") || lines[$0].contains("no target") }
        // Balloons, Dog, Graduation, Vacation, Tokyo trip, Concert tickets.
        #expect(rows.count == 6)
        for row in rows {
            let text = lines[row]
            // After the monogram ("DO"), in the name.
            let range = text.range(of: "o", options: .caseInsensitive, range: text.index(text.startIndex, offsetBy: 5)..<text.endIndex)!
            let x = TextWidth.of(String(text[..<range.lowerBound]))
            #expect(app.terminal.attributes(atX: x, y: row).contains(.underline), "row \(row) x \(x): \(text)")
        }
        let first = app.core.goalList.list.selected
        _ = await app.press(.char("n"))
        #expect(app.core.goalList.list.selected == first + 1)
        _ = await app.press(.char("N"), .char("N"))
        #expect(app.core.goalList.list.selected == rows.count - 1)  // wrapped to the last match
        #expect(app.core.newGoalForm == nil)
    }

    @Test func aFilterLoadsOnlyEnoughHistoryToFillTheScreen() async {
        let app = AppHarness()
        _ = await app.start()
        _ = await app.press(.char("2"), .char("/"))
        _ = await app.type("guilty")
        #expect(app.core.feed.phase != .atEnd)
        #expect(app.core.feed.pager.requestCount < 10)
        // Going to the end of the matches asks for more, as scrolling does.
        let before = app.core.feed.pager.requestCount
        _ = await app.press(.enter, .char("G"))
        #expect(app.core.feed.pager.requestCount > before)
    }

    @Test func theRoundUpsFilterMatchesCounterparties() async {
        let app = AppHarness()
        _ = await app.start()
        _ = await app.press(.char("3"), .char("/"))
        let lines = await app.type("zzzz")
        #expect(lines.contains { $0.contains("No payment matches “zzzz”") })
        #expect(lines.contains { $0.contains("Round-ups: $") })  // the week's total stays
    }
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct AnySizeTests {
    /// Every screen and overlay drawn at every size from 1×1 to 40×12 (and a few wide ones):
    /// nothing may crash, and below 20×6 the one line says the terminal is too small.
    @Test func everyScreenDrawsAtEverySize() async {
        let app = AppHarness(colors: true)
        _ = await app.start()
        let states: [[Key]] = [
            [], [.enter], [.enter, .char("u")], [.escape, .char("u")], [.escape, .char("?")],
            [.escape, .char("2")], [.char("u")], [.escape, .char("/"), .char("x")], [.escape, .escape, .char("3")],
            [.char("s")], [.enter], [.escape, .escape, .char("a")], [.escape, .char("4")], [.char("1")],
        ]
        let sizes = (1...40).flatMap { width in (1...12).map { (width, $0) } } + [(100, 30), (200, 60), (20, 6)]
        for keys in states {
            for key in keys { await app.press(key) }
            for (width, height) in sizes {
                var buffer = CellBuffer(width: width, height: height)
                app.core.drawFrame(into: &buffer)
                if width >= 2 && (width < AppFrame.minimumWidth || height < AppFrame.minimumHeight) {
                    #expect(buffer.rowText(0).hasPrefix("T"), "\(width)×\(height): \(buffer.rowText(0))")
                }
            }
        }
    }
}

/// Its time limit is a net for a hang, not a speed target: it takes 20–40 s beside the rest of
/// the suite on 2 cores, so the net is wide enough for a loaded CI machine.
@MainActor
@Suite(.timeLimit(.minutes(4))) struct RandomKeysTests {
    /// A thousand keys chosen by a seeded generator, from every binding and a few strays: the
    /// app never crashes, never quits by itself, and its lists keep their selection in range.
    @Test func aThousandRandomKeysLeaveTheAppConsistent() async {
        let app = AppHarness(width: 70, height: 18)
        _ = await app.start()
        var keys = KeysHelp.defaultEntries.flatMap(\.keys).filter { $0 != .char("q") }
        keys += [.char("x"), .char("é"), .char("東"), .delete, .function(5), .unknown(9999), .resize, .ctrl("z")]
        var random = SeededRandom(seed: 7)
        for _ in 0..<1_000 {
            let key = keys[Int(random.next() % UInt64(keys.count))]
            await app.press(key)
            #expect(!app.core.shouldQuit)
            let list = app.core.activity.list
            #expect(list.selected >= 0 && list.selected <= app.core.activity.rowCount)
        }
    }
}
