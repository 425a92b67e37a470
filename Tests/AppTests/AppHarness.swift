@testable import DemoData
import FeedModel
import Foundation
import TermUI
import TestSupport
@testable import QapitalApp
@testable import qapital_tui

/// The app in memory, driven through its real event loop (`AppRunner` on a `TestTerminal`):
/// keys in, whole screens out, at a fixed size, clock and time zone. After each key it runs
/// the loop until the app is settled (nothing in flight, every event handled), never sleeping.
@MainActor
final class AppHarness {
    let core: AppCore
    let terminal: TestTerminal
    let runner: AppRunner

    init(api: any SavingsAPI = DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), width: Int = 100, height: Int = 30,
         colors: Bool = false, images: Bool = true, now: Date = fixedNow, timeZone: TimeZone = TimeZone(identifier: "UTC")!,
         capabilities: AppCore.Capabilities = AppCore.Capabilities(), currency: Currency = .usd,
         achievements: AchievementsFile = AchievementsFile(title: "", achievements: []), keys: KeyOverrides = KeyOverrides(),
         clock: (@Sendable () -> Date)? = nil, pictureCellPixels: PixelSize? = nil) {
        core = AppCore(api: api, configuration: .init(sourceName: api.sourceName, colors: colors, timeZone: timeZone,
                                                      currency: currency, images: images, pictureSchemes: ["http", "https", DemoImages.scheme],
                                                      keys: keys, pictureCellPixels: pictureCellPixels),
                       capabilities: capabilities, achievements: achievements, now: clock ?? { now })
        terminal = TestTerminal(width: width, height: height)
        runner = AppRunner(core: core, terminal: terminal)
    }

    /// The app as the command builds it (`AppOptions.openBank`, `openApp`).
    init(core: AppCore, width: Int = 100, height: Int = 30) {
        self.core = core
        terminal = TestTerminal(width: width, height: height)
        runner = AppRunner(core: core, terminal: terminal)
    }

    /// Starts the app (the loop's first run) and returns the settled screen.
    func start() async -> [String] {
        await screen()
    }

    /// Presses keys one after another, letting the app settle after each.
    @discardableResult
    func press(_ keys: Key...) async -> [String] {
        for key in keys {
            terminal.send(.key(key))
            _ = await screen()
        }
        return terminal.lines
    }

    func type(_ text: String) async -> [String] {
        for character in text { await press(.char(character)) }
        return terminal.lines
    }

    func resize(width: Int, height: Int) async -> [String] {
        terminal.send(terminal.resize(width: width, height: height))
        return await screen()
    }

    /// Runs the loop until the app is settled; the last frame presented.
    func screen() async -> [String] {
        await runner.run(until: { self.core.isSettled }, timeout: .seconds(30))
        return terminal.lines
    }

    /// One tick of the app's clock, then the frame it leads to.
    func tick() -> [String] {
        core.tick()
        runner.draw()
        return terminal.lines
    }

    /// The row whose text contains `text`.
    func row(containing text: String) -> Int? {
        terminal.lines.firstIndex { $0.contains(text) }
    }

    /// Whether row `y` is drawn as the selection (reverse video at its first cell).
    func isSelected(row y: Int) -> Bool {
        terminal.attributes(atX: 0, y: y).contains(.reverse)
    }
}

/// The screens and overlays as tests look at them.
extension AppCore {
    func screen<S: Screen>(_ type: S.Type) -> S? { stacks.joined().lazy.compactMap { $0 as? S }.first }
    var activity: ActivityScreen { screen(ActivityScreen.self)! }
    var goalList: GoalListScreen { screen(GoalListScreen.self)! }
    var newGoalForm: NewGoalForm? { overlays.lazy.compactMap { $0 as? NewGoalForm }.last }
}

/// The demo API, with activities failing until `failing(false)`.
func flakyActivitiesAPI() -> FakeSavingsAPI {
    let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "flaky")
    failing(api, true)
    return api
}

func failing(_ api: FakeSavingsAPI, _ on: Bool) {
    let failure: @Sendable (Date, Date) throws -> ActivityPage = { _, _ in
        throw APIError(kind: .http(status: 500), request: "GET /activities", message: "GET /activities: HTTP 500")
    }
    api.script { $0.activities = on ? failure : nil }
}

/// The demo with an activity history empty back to the year 1 (an absurd `oldest`).
func emptyHistoryAPI() -> FakeSavingsAPI {
    let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "empty")
    api.script { $0.activities = { _, _ in ActivityPage(oldest: Date(timeIntervalSince1970: -62_135_596_800), activities: []) } }
    return api
}

/// An app whose goals never answer, 1.5 s into waiting on a manual clock: the spinner's state
/// (`DrawingReadsOnlyTests`, `ScreenReaderTests`). Release `api` when done.
@MainActor
struct WaitingApp {
    let clock = ManualClock(fixedNow)
    let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "held")
    let core: AppCore
    let terminal = TestTerminal(width: 80, height: 12)
    let runner: AppRunner

    init(screenReader: Bool = false) async {
        api.hold([.goals])
        var configuration = AppCore.Configuration(sourceName: "held", colors: false, timeZone: TimeZone(identifier: "UTC")!)
        configuration.screenReader = screenReader
        let clock = self.clock
        let core = AppCore(api: api, configuration: configuration, now: { clock.now })
        self.core = core
        runner = AppRunner(core: core, terminal: terminal)
        await runner.run(until: { core.pendingEvents == 0 && !core.isIdle }, timeout: .seconds(30))
        core.update(.tick)
        clock.advance(by: 1.5)
        core.update(.tick)
        runner.draw()
    }
}
