import FeedModel
import Testing
import TermUI
@testable import QapitalApp

/// Every screen at 80×24, 100×30 and 160×45: a message is never cut where the width allows it
/// whole (the who-column gives way first), and nothing runs into the scrollbar.
@MainActor @Suite struct LayoutSizeTests {
    nonisolated static let sizes = [(80, 24), (100, 30), (160, 45)]

    @Test(arguments: sizes)
    func messagesAreWholeWhereTheyFit(width: Int, height: Int) async throws {
        let app = AppHarness(width: width, height: height, images: false)
        var screen = await app.start()
        #expect(screen.contains { $0.contains("Balloons") })
        #expect(screen.allSatisfy { TextWidth.of($0) <= width })

        // Goal detail: date (12) · message · amount (11) and a column clear of the scrollbar.
        screen = await app.press(.enter)
        let goal = try #require(app.core.goals.goals.first)
        let entries = app.core.goals.feed(for: goal.id).entries
        #expect(!entries.isEmpty)
        var checked = 0
        let detail = try #require(app.core.screen(GoalDetailScreen.self))
        for index in detail.list.visibleRange(count: entries.count) {
            let text = entries[index].item.message.plainText
            guard TextWidth.of(text) <= width - 12 - 11 - 3 else { continue }
            // The row is found by its text: the balance chart may sit above the feed.
            #expect(screen.contains { $0.contains(text) }, "cut at \(width): \(text)")
            checked += 1
        }
        #expect(checked >= 5)
        if width == 80 {
            #expect(screen.contains { $0.contains("Johan didn't resist a guilty pleasure at Starbucks.") })
        }
        // The rule column stays clear of the scrollbar (a space before it).
        for line in screen where line.hasSuffix("█") || line.hasSuffix("│") {
            #expect(line.dropLast().last == " ", "\(line)")
        }

        // Activity: time · message · amount.
        await app.press(.escape)
        screen = await app.press(.char("2"))
        checked = 0
        let activity = app.core.activity
        for index in activity.list.visibleRange(count: activity.rows.count) {
            guard case .activity(let item) = activity.rows.rows[index] else { continue }
            let text = app.core.feed.activities[item].message.plainText
            guard TextWidth.of(text) <= width - 9 - 10 - 3 else { continue }
            // Found by its text: the weekly sparkline row may sit above the feed.
            #expect(screen.contains { $0.contains(text) }, "cut at \(width): \(text)")
            checked += 1
        }
        #expect(checked >= 3)
        if width == 80 {
            #expect(screen.contains { $0.contains("Johan moved money into Concert tickets ⚡️.") })
        }

        screen = await app.press(.char("3"))
        #expect(screen.contains { $0.contains("Week of") })
        #expect(screen.contains { $0.contains("Round-ups:") })
        screen = await app.press(.char("4"))
        #expect(app.core.tabIndex == 3 && screen[0].contains("4 Achievements"))
        #expect(screen.allSatisfy { TextWidth.of($0) <= width })
    }
}
