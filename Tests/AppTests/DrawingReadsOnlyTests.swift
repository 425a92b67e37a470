@testable import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport
import TermUI
@testable import QapitalApp

/// Drawing reads only: a screen's `draw` (and an overlay's) changes none of its state, however
/// different the size it is drawn at; what it laid out comes back as a value (`Layout`), which
/// the core hands back after the frame. The spinner moves with events and ticks, not frames.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct DrawingReadsOnlyTests {
    /// Draws `screen` at sizes other than the app's and with its selection past the end: a
    /// drawing that clamped, scrolled or kept its height would change its list.
    func expectDrawingChangesNothing(_ screen: any Screen, list: () -> ListState, _ app: AppHarness,
                                     sourceLocation: SourceLocation = #_sourceLocation) {
        let data = app.core.screenData
        for (width, height) in [(30, 8), (100, 40), (160, 12)] {
            let before = list()
            var buffer = CellBuffer(width: width, height: height)
            let layout = screen.draw(into: &buffer, area: buffer.area, data)
            #expect(list() == before, "\(type(of: screen)) at \(width)×\(height)", sourceLocation: sourceLocation)
            #expect(layout.area == buffer.area || type(of: screen) == ActivityScreen.self, sourceLocation: sourceLocation)
        }
    }

    @Test func screensDrawWithoutChangingTheirState() async throws {
        let app = AppHarness(width: 100, height: 30)
        _ = await app.start()
        for tab in ["2", "3", "4", "5", "1"] { await app.press(.char(Character(tab))) }
        let goals = app.core.goalList
        goals.list.selected = 10_000
        expectDrawingChangesNothing(goals, list: { goals.list }, app)
        let activity = app.core.activity
        let rows = activity.rows.count
        activity.list.selected = 10_000
        expectDrawingChangesNothing(activity, list: { activity.list }, app)
        #expect(activity.rows.count == rows)
        let roundUps = try #require(app.core.screen(RoundUpsScreen.self))
        roundUps.list.selected = 10_000
        expectDrawingChangesNothing(roundUps, list: { roundUps.list }, app)
        let achievements = try #require(app.core.screen(AchievementsScreen.self))
        achievements.list.selected = 10_000
        expectDrawingChangesNothing(achievements, list: { achievements.list }, app)
        let people = try #require(app.core.screen(PeopleScreen.self))
        people.list.selected = 10_000
        expectDrawingChangesNothing(people, list: { people.list }, app)

        // A goal's detail, a person, and the goal picker.
        (goals.list.selected, people.list.selected) = (0, 0)
        await app.press(.enter)
        let detail = try #require(app.core.screen(GoalDetailScreen.self))
        detail.list.selected = 10_000
        expectDrawingChangesNothing(detail, list: { detail.list }, app)
        await app.press(.escape, .char("5"), .enter)
        let person = try #require(app.core.screen(PersonScreen.self))
        person.list.selected = 10_000
        expectDrawingChangesNothing(person, list: { person.list }, app)
        let offer = RoundUpsScreen.offer(app.core.roundUps)
        let picker = GoalPicker(offer: offer)
        picker.model.list.selected = 3
        var buffer = CellBuffer(width: 80, height: 40)
        picker.draw(into: &buffer, area: buffer.area, statusBar: buffer.area.bottom(1), app.core.screenData)
        #expect(picker.model.list == GoalPicker(offer: offer).model.list.with(selected: 3))
    }

    /// Everything a frame could change, as text: every screen and overlay of every tab, and what
    /// each store holds (`dump` reaches every stored property).
    static func state(of core: AppCore) -> String {
        var text = ""
        for stack in core.stacks { for screen in stack { dump(screen, to: &text) } }
        for overlay in core.overlays { dump(overlay, to: &text) }
        let stores = core.stores
        dump(stores.goals.goals, to: &text)
        dump(stores.goals.status, to: &text)
        dump(stores.goals.feeds.mapValues(\.entries.count).sorted { $0.key.rawValue < $1.key.rawValue }, to: &text)
        dump((stores.feed.activities.count, stores.feed.phase, stores.feed.listIdentity, stores.feed.isBusy), to: &text)
        dump((stores.roundUps.week, stores.roundUps.status, stores.roundUps.summary, stores.roundUps.history.count), to: &text)
        dump(stores.users.isBusy, to: &text)
        if let images = stores.images { dump((images.useOrder, images.fetchCount, images.cancelCount, images.pendingCount), to: &text) }
        return text
    }

    /// `render` only draws: on every tab, an overlay open or not, at other sizes, no screen,
    /// overlay or store changes and no request goes out; what the frame showed is asked for
    /// only when the core is handed the frame back (`drawn`).
    @Test func renderingStartsNoWorkAndChangesNothing() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)))
        let app = AppHarness(api: api, width: 100, height: 30)
        _ = await app.start()
        for keys in [["1"], ["2"], ["3"], ["4"], ["5"], ["1", "\r"], ["2", "?"]] {
            for key in keys { await app.press(key == "\r" ? .enter : .char(Character(key))) }
            for (width, height) in [(30, 8), (160, 50), (100, 30)] {
                var buffer = CellBuffer(width: width, height: height)
                app.core.layOut(buffer.area)
                let before = Self.state(of: app.core)
                let calls = api.calls.count
                _ = app.core.render(into: &buffer)
                #expect(Self.state(of: app.core) == before, "rendering \(keys) at \(width)×\(height) changed the state")
                #expect(api.calls.count == calls, "rendering \(keys) at \(width)×\(height) asked the API")
                #expect(app.core.isIdle, "rendering \(keys) started work")
            }
            if keys.last == "?" { await app.press(.escape) }
        }
    }

    /// After a frame the screen keeps what it laid out: a selection past the end comes back
    /// within the list, and the list knows the height it was drawn at (paging follows it).
    @Test func theCoreKeepsWhatTheFrameLaidOut() async {
        let app = AppHarness(width: 100, height: 30)
        _ = await app.start()
        let goals = app.core.goalList
        let count = app.core.goals.goals.count
        goals.list.selected = 10_000
        app.runner.draw()
        #expect(goals.list.selected == count - 1)
        #expect(goals.list.visibleRows == 27)  // the body (30 − tab bar − status bar) less the "N of M" line
    }

    /// The spinner moves on with the events and ticks of the loop; drawing again later shows the same frame.
    @Test func theSpinnerMovesWithTicksNotFrames() async {
        let app = await WaitingApp()
        let (clock, api, core, terminal, runner) = (app.clock, app.api, app.core, app.terminal, app.runner)
        let first = terminal.lines.last ?? ""
        #expect(Spinner.brailleFrames.contains { first.contains($0) }, "a spinner after 1.5 s of waiting: \(first)")
        clock.advance(by: 0.35)
        runner.draw()
        #expect(terminal.lines.last == first, "drawing alone does not move the spinner")
        core.update(.tick)
        runner.draw()
        #expect(terminal.lines.last != first, "a tick does")
        api.release()
    }
}

extension ListState {
    func with(selected: Int) -> ListState {
        var copy = self
        copy.selected = selected
        return copy
    }
}
