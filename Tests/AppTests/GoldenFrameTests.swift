@testable import DemoData
import FeedModel
import Foundation
import Testing
import TermUI
import TestSupport
@testable import QapitalApp
@testable import qapital_tui

/// Whole screens compared with files, `Tests/AppTests/Golden/<frame>-<width>x<height>.txt` (text
/// and colour layers, see `GoldenFile`; ratatui's `Buffer::with_lines`, tig's `save-display`):
/// the five tabs, a goal's detail and every overlay on the demo, and Goals, a goal's detail and
/// Activity loading, empty and failed, each at 80×24 and 120×40; fixed clock, UTC, colours on,
/// pictures off (a picture is hundreds of colours; the picture tests look at those), but for the
/// frames that show where pictures go (`-pictures`: picture cells named `▀`, colours not compared).
/// `QAPITAL_UPDATE_GOLDEN=1 swift test --filter GoldenFrameTests` writes the files.
@MainActor
@Suite(.timeLimit(.minutes(2))) struct GoldenFrameTests {
    nonisolated static let sizes = [(width: 80, height: 24), (width: 120, height: 40)]

    /// A frame on the demo: the keys that lead to it from the start.
    struct DemoFrame: Sendable, CustomTestStringConvertible {
        let name: String
        let keys: [Key]
        var signIn = false
        /// Pictures on (half blocks): where they are drawn is compared, not their colours.
        var pictures = false
        var testDescription: String { name }
    }

    nonisolated static let demoFrames: [DemoFrame] = [
        DemoFrame(name: "goals", keys: []),
        DemoFrame(name: "activity", keys: [.char("2")]),
        DemoFrame(name: "round-ups", keys: [.char("3")]),
        // Last week's: the chart's ▲ and its label under that week's bar.
        DemoFrame(name: "round-ups-last-week", keys: [.char("3"), .char("[")]),
        DemoFrame(name: "achievements", keys: [.char("4")]),
        DemoFrame(name: "people", keys: [.char("5")]),
        DemoFrame(name: "goal-detail", keys: [.enter]),
        // The detail's photo: 8×4 in the compact header, large from 100×30 (GoalDetailHeader).
        DemoFrame(name: "goal-detail-pictures", keys: [.enter], pictures: true),
        // The overlays (KeysHelp.overlayTypes).
        DemoFrame(name: "keys-help", keys: [.char("?")]),
        DemoFrame(name: "filter-line", keys: [.char("/"), .char("b")]),
        DemoFrame(name: "user-popup", keys: [.char("u")]),
        // Last week's: a week is saved once it is over.
        DemoFrame(name: "goal-picker", keys: [.char("3"), .char("["), .char("s")]),
        DemoFrame(name: "save-confirmation", keys: [.char("3"), .char("["), .char("s"), .enter]),
        DemoFrame(name: "new-goal-form", keys: [.char("a")]),
        // Details cards: an activity whole (its message wrapped), a payment.
        DemoFrame(name: "activity-card", keys: [.char("2"), .char("j"), .char("j"), .enter]),
        DemoFrame(name: "payment-card", keys: [.char("3"), .char("["), .enter]),
        DemoFrame(name: "sign-in", keys: [], signIn: true),
        DemoFrame(name: "rules", keys: [.char("6")]),
        DemoFrame(name: "rules-last-week", keys: [.char("6"), .char("[")]),
        DemoFrame(name: "rules-card", keys: [.char("6"), .char("["), .char("j"), .enter]),
        DemoFrame(name: "rules-save", keys: [.char("6"), .char("["), .char("s")]),
        DemoFrame(name: "rules-backtest", keys: [.char("6"), .char("b")]),
        DemoFrame(name: "rules-form", keys: [.char("6"), .char("e")]),
    ]

    @Test(arguments: demoFrames) func demo(frame: DemoFrame) async throws {
        for size in Self.sizes {
            // A source whose token was refused from the start: the sign-in form is up at once.
            var signIn = AppCore.SignInCapability(origin: "api.example.test", isRefused: { true }, check: { _, _ in nil })
            signIn.title = "Starling Bank"
            // The demo's rules, as the app wires them (tab 6).
            let rules = RulesTabSetup()
            var capabilities = rules.capabilities
            capabilities.signIn = frame.signIn ? signIn : nil
            let app = AppHarness(api: rules.api, width: size.width, height: size.height, colors: true, images: frame.pictures,
                                 capabilities: capabilities, achievements: Self.achievements)
            _ = await app.start()
            for key in frame.keys { await app.press(key) }
            let text = try GoldenFile.render(app.terminal.screen, title: "\(frame.name) on the demo", pictures: frame.pictures)
            GoldenFile.check(text, name: "\(frame.name)-\(size.width)x\(size.height)")
        }
    }

    static let achievements: AchievementsFile = try! AppOptions.loadAchievements(path: nil)

    enum State: String, CaseIterable, Sendable { case loading, empty, error }

    /// One goal (none for an empty goal list) with no savings and no activity.
    static func api(_ state: State, goalList: Bool) -> FakeSavingsAPI {
        let api = FakeSavingsAPI(sourceName: "fake")
        let goal = Goal(id: 7, name: "Rainy day", ownerId: 1, imageURL: nil, target: Money(minorUnits: 50_000, currency: .usd),
                        balance: Money(minorUnits: 12_345, currency: .usd), status: .active, connectedUserIds: [])
        api.script { script in
            script.goals = { state == .empty && goalList ? [] : [goal] }
            script.user = { User(id: $0, displayName: "Ada") }
            // The whole history is one empty window.
            script.activities = { from, _ in ActivityPage(oldest: from, activities: []) }
        }
        return api
    }

    /// A screen whose states are compared: the keys that open it, the endpoints it waits for.
    struct StateScreen: Sendable, CustomTestStringConvertible {
        let name: String
        let keys: [Key]
        let endpoints: Set<FakeSavingsAPI.Endpoint>
        var testDescription: String { name }
    }

    nonisolated static let stateScreens = [
        StateScreen(name: "goals", keys: [], endpoints: [.goals, .rules]),
        StateScreen(name: "goal-detail", keys: [.enter], endpoints: [.feed]),
        StateScreen(name: "activity", keys: [.char("2")], endpoints: [.activities]),
    ]

    /// The frame once the app settled (while loading: once every posted event is handled);
    /// the screen's endpoints are held (loading) or unreachable (error) from the start.
    @Test(arguments: stateScreens, State.allCases) func states(screen: StateScreen, state: State) async throws {
        for size in Self.sizes {
            let api = Self.api(state, goalList: screen.keys.isEmpty)
            if state == .loading { api.hold(screen.endpoints) }
            if state == .error { api.script { $0.unreachable = screen.endpoints } }
            let app = AppHarness(api: api, width: size.width, height: size.height, colors: true, images: false)
            let settled = { app.core.pendingEvents == 0 && (state == .loading || app.core.isSettled) }
            await app.runner.run(until: settled, timeout: .seconds(30))
            for key in screen.keys {
                app.terminal.send(.key(key))
                await app.runner.run(until: settled, timeout: .seconds(30))
            }
            api.release()
            let text = try GoldenFile.render(app.terminal.screen, title: "\(screen.name), \(state.rawValue)")
            GoldenFile.check(text, name: "\(screen.name)-\(state.rawValue)-\(size.width)x\(size.height)")
        }
    }

    /// The helper itself: a missing file fails (never a silent pass), a changed cell fails in
    /// either layer, and the diff names the line.
    @Test func aMissingOrDifferentFileFails() throws {
        var buffer = CellBuffer(width: 6, height: 2)
        _ = buffer.write([Span("ab", .role(.accent))], x: 0, y: 0, maxWidth: 6)
        let text = try GoldenFile.render(buffer, title: "t")
        #expect(text.contains("\n" + GoldenFile.styleSeparator + "\naa\n\n" + GoldenFile.legendSeparator + "\na fg=accent\n"))
        var recolored = buffer
        _ = recolored.write([Span("ab", .role(.error, .bold))], x: 0, y: 0, maxWidth: 6)
        let other = try GoldenFile.render(recolored, title: "t")
        #expect(other != text)
        #expect(GoldenFile.lineDiff(expected: text, actual: other).contains("- a fg=accent\n+ a fg=error bold"))
        guard !GoldenFile.updating else { return }
        let missing = try #require(GoldenFile.problem(text, name: "no-such-frame"))
        #expect(missing.contains("no golden file") && missing.contains("QAPITAL_UPDATE_GOLDEN=1 swift test"))
        let file = try String(contentsOf: GoldenFile.directory.appendingPathComponent("goals-80x24.txt"), encoding: .utf8)
        var lines = file.components(separatedBy: "\n")
        let third = lines[2]
        lines[2] = "changed"
        let diff = try #require(GoldenFile.problem(lines.joined(separator: "\n"), name: "goals-80x24"))
        #expect(diff.contains("line 3:\n- \(third)\n+ changed"))
    }

    /// With pictures, a picture's cells are named `▀` whatever their colours (so a frame keeps
    /// where pictures are, not their hundreds of colours); other `▀` cells keep their style.
    @Test func pictureCellsAreNamedWithoutTheirColours() throws {
        var buffer = CellBuffer(width: 4, height: 1)
        buffer[0, 0] = Cell("▀", style: Style(fg: .rgb(1, 2, 3), bg: .rgb(4, 5, 6)))
        buffer[1, 0] = Cell("▀", style: Style(fg: .rgb(7, 8, 9), bg: .rgb(0, 0, 0)))
        buffer[2, 0] = Cell("▀", style: Style(fg: .role(.accent)))
        let text = try GoldenFile.render(buffer, title: "t", pictures: true)
        #expect(text.contains("\n" + GoldenFile.styleSeparator + "\n▀▀a\n" + GoldenFile.legendSeparator + "\na fg=accent\n▀ a picture's"))
        #expect(try GoldenFile.render(buffer, title: "t").contains("\n" + GoldenFile.styleSeparator + "\nabc\n"))
    }
}
