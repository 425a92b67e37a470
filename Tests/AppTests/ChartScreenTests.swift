@testable import DemoData
import FeedModel
import Foundation
import Testing
import TermUI
import TestSupport
@testable import QapitalApp

/// The charts on the screens: the goal's balance chart appears and disappears with the height
/// and `c`, Round-ups shows twelve weeks from one request, Activity its weekly sparkline.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct ChartScreenTests {
    static func trimmed(_ lines: [String]) -> [String] { lines.map { String($0.reversed().drop { $0 == " " }.reversed()) } }

    func chartShown(_ lines: [String]) -> Bool { lines.contains { $0.contains("At this pace:") } && lines.contains { $0.contains("╌") } }

    @Test func aDemoGoalAt100By30() async {
        let app = AppHarness()
        _ = await app.start()
        let lines = Self.trimmed(await app.press(.enter))
        #expect(lines == Self.balloons)
    }

    @Test func theChartComesAndGoesWithTheHeightAndTheKey() async {
        let app = AppHarness()
        _ = await app.start()
        #expect(chartShown(await app.press(.enter)))
        // Below the height the chart needs, the feed keeps every row.
        let small = await app.resize(width: 100, height: GoalDetailScreen.headerHeight + GoalChart.minimumBodyHeight + 1)
        #expect(!chartShown(small))
        #expect(chartShown(await app.resize(width: 100, height: GoalDetailScreen.headerHeight + GoalChart.minimumBodyHeight + 2)))
        // Too narrow for the chart: left out, never squeezed.
        #expect(!chartShown(await app.resize(width: GoalChart.minimumWidth - 1, height: 30)))
        #expect(chartShown(await app.resize(width: GoalChart.minimumWidth, height: 30)))
        _ = await app.resize(width: 100, height: 30)
        let hidden = await app.press(.char("c"))
        #expect(!chartShown(hidden))
        #expect(hidden.contains { $0.contains("Johan made a roundup.") })
        #expect(chartShown(await app.press(.char("c"))))
        // Another goal: without a target there is no target line, and the pace says so.
        // Brand New Wheels (the sixth goal) has no target and savings in the last eight weeks.
        let dog = await app.press(.escape, .char("j"), .char("j"), .char("j"), .char("j"), .char("j"), .enter)
        #expect(dog.contains { $0.contains("At this pace:") && $0.contains("no target") })
        #expect(!dog.contains { $0.contains("╌") })
        #expect(KeysHelp.defaultEntries.contains { $0.keys == [.char("c")] && $0.help.contains("balance chart") })
    }

    @Test func roundUpsShowTwelveWeeksFromOneRequest() async {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "demo")
        let app = AppHarness(api: api)
        _ = await app.start()
        let lines = await app.press(.char("3"))
        #expect(lines.contains { $0.contains("Round-ups, last 12 weeks") })
        #expect(lines.contains { $0.contains("▲") })
        let week = app.core.roundUps.currentWeek
        var first = week
        for _ in 1..<12 { first = first.previous }
        let calls = api.transactionCalls
        #expect(calls.count == 2)
        #expect(calls.contains { $0.from == first.start && $0.to == week.end })
        #expect(app.core.roundUps.history.count == 12)
        #expect(app.core.roundUps.history.last?.total == app.core.roundUps.summary?.saveable)
        // Moving to the week before moves the marker, with one request for that week only.
        _ = await app.press(.char("["))
        #expect(api.transactionCalls.count == 3)
        #expect(!chartShownNowhere(await app.press(.char("c"))))
    }

    func chartShownNowhere(_ lines: [String]) -> Bool { lines.contains { $0.contains("Round-ups, last 12 weeks") } }

    @Test func activityHasItsWeeklySparklineWhereThereIsRoom() async {
        let app = AppHarness()
        _ = await app.start()
        let lines = await app.press(.char("2"))
        #expect(lines[1].hasPrefix(" Everyone's savings per week "))
        #expect(lines[1].contains { "▁▂▃▄▅▆▇█".contains($0) })
        #expect(!(await app.resize(width: 59, height: 30))[1].contains("savings per week"))
        #expect(!(await app.resize(width: 100, height: 15))[1].contains("savings per week"))
    }

    /// Balloons at 100×30, no colours (so no picture), UTC, the demo's fixed clock.
    static let balloons: [String] = [
        " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People   6 Rules",
        " BA  Balloons",
        "Saved $400.00 of $1,500.00  ██████▋··················  26%",
        "Owner Mikael · Shared with Henrik, Johan, Erik",
        "────────────────────────────────────────────────────────────────────────────────────────────────────",
        "",
        " $1,500.00┤╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌",
        "          │",
        "          │",
        "          │",
        "          │",
        "   $400.00┤                                                                                       ⣀",
        "          │                                                                          ⣀⣀⣀⣀⣀⣀⣰⠒⠒⠒⠒⠋⠉⠁",
        "     $0.00┤⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣠⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠼⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠁",
        "           18 Aug 2025                           3 Apr 2026                             18 Nov 2026",
        " At this pace: at $26.08 a week: 15 Sep 2027   ╌╌ target",
        "────────────────────────────────────────────────────────────────────────────────────────────────────",
        "17 Nov 2026 Johan made a roundup.                                      Round-up              $0.10 █",
        "14 Nov 2026 Johan made a manual transfer.                                                   $45.00 █",
        "2 Nov 2026  Johan made a manual transfer.                                                   $45.00 █",
        "30 Oct 2026 You made a roundup.                                        Round-up              $0.25 █",
        "29 Oct 2026 Erik made a roundup.                                       Round-up              $0.97 █",
        "22 Oct 2026 Johan didn't resist a guilty pleasure at Starbucks.        Guilty pleasure       $4.00 │",
        "21 Oct 2026 You made a manual transfer.                                                      $0.32 │",
        "15 Oct 2026 You made a manual transfer.                                                     $15.00 │",
        "12 Oct 2026 Henrik made a manual transfer.                                                  $10.00 │",
        "12 Oct 2026 Henrik didn't resist a guilty pleasure at Pressbyrån.      Guilty pleasure       $4.00 │",
        "10 Oct 2026 Erik made a manual transfer.                                                    $65.00 │",
        "                                                                                             1 of 24",
        " demo                                                                      Esc back  ? help  q back",
    ]
}
