@testable import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport
import TermUI
@testable import QapitalApp

/// Screens return what should happen to the stores as `Command`s and never call a store: a key
/// is tested by the command it returns, with no request started behind it.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct ScreenCommandTests {
    /// Stores that were never started, over an API that logs every call.
    let api = FakeSavingsAPI(sourceName: "none")
    let stores: AppStores
    let data: ScreenData

    init() {
        let configuration = AppCore.Configuration(sourceName: "none", colors: false, timeZone: TimeZone(identifier: "UTC")!)
        stores = AppStores(api: api, configuration: configuration, cache: nil, saver: AppCore.Capabilities().roundUpSaver,
                           events: .ignored, pictureArrived: { _ in },
                           now: { fixedNow })
        data = ScreenData(stores, achievements: AchievementsFile(title: "", achievements: []), configuration: configuration,
                          format: DisplayFormat(timeZone: configuration.timeZone, now: { fixedNow }))
    }

    @Test func roundUpsKeysReturnCommands() {
        let screen = RoundUpsScreen()
        let week = stores.roundUps.week
        #expect(screen.appear(data) == [.loadWeek])
        #expect(screen.appear(data) == [], "only the first time the tab is shown")
        #expect(screen.refresh(data) == [.loadWeek])
        #expect(screen.handle(.char("["), action: RoundUpsScreen.Action.previousWeek.action, data).commands == [.showPreviousWeek])
        #expect(stores.roundUps.week == week, "the screen asked; it did not move the store")
        #expect(screen.handle(.char("]"), action: RoundUpsScreen.Action.nextWeek.action, data).commands == [], "this week has no next")
        #expect(screen.handle(.escape, action: .back, data).commands == [.dismissTransfer])
        // Before the week is in, `s` says why it cannot save and asks for nothing.
        guard case .notice(let why) = screen.handle(.char("s"), action: RoundUpsScreen.Action.save.action, data) else {
            Issue.record("s before the week loaded should be a notice")
            return
        }
        #expect(why == RoundUpStore.SaveProblem.notLoaded.message)
        #expect(api.calls.isEmpty && !stores.isBusy)
    }

    @Test func activityKeysReturnCommands() {
        let screen = ActivityScreen()
        #expect(screen.start(data) == [.startActivity])
        #expect(screen.handle(.char("m"), action: ActivityScreen.Action.lookFurtherBack.action, data).commands == [.fetchOlderActivity])
        #expect(screen.refresh(data) == [.retryUsers, .refreshCache, .refreshActivity])
        #expect(screen.handle(.char("j"), action: .moveDown, data).commands == [])
        #expect(api.calls.isEmpty && !stores.isBusy)
    }

    /// The sign-in form over the app: Enter returns the check as a command (the source's check is
    /// not called), whose text never shows the token; the answer is read from `TokenCheck`.
    @Test func theSignInFormsEnterIsACommandThatHidesTheToken() async {
        let checked = Locked<[String]>([])
        let capability = AppCore.SignInCapability(origin: "bank.example", isRefused: { true }) { token, _ in
            checked.withLock { $0.append(token) }
            return token == "good" ? nil : SignInRefusal("refused")
        }
        let probe = EventProbe<StoreEvent>()
        let stores = AppStores(api: api, configuration: AppCore.Configuration(sourceName: "none", colors: false),
                               cache: nil, saver: AppCore.Capabilities().roundUpSaver, signIn: capability,
                               events: probe.sink, pictureArrived: { _ in }, now: { fixedNow })
        let data = ScreenData(stores, achievements: AchievementsFile(title: "", achievements: []),
                              configuration: AppCore.Configuration(sourceName: "none", colors: false),
                              format: DisplayFormat(timeZone: TimeZone(identifier: "UTC")!, now: { fixedNow }))
        let form = SignInOverlay(capability, refusal: nil)
        for character in "bad" { _ = form.handle(.char(character), data) }
        let commands = form.handle(.enter, data).commands
        #expect(commands == [.checkToken(SignInAttempt(token: "bad", remember: false))])
        #expect(checked.withLock { $0 }.isEmpty && !stores.isBusy, "the form asked; nothing was checked")
        #expect(!"\(commands)".contains("bad") && !String(reflecting: commands).contains("bad"))
        var dumped = ""
        dump(commands, to: &dumped)
        #expect(!dumped.contains("bad"))
        // Carried out, the check answers through the queue; the form shows the refusal.
        #expect(CommandRunner(stores: stores, refreshCache: nil).run(commands[0]) == nil)
        #expect(stores.isBusy)
        #expect(await probe.wait { !stores.isBusy })
        #expect(checked.withLock { $0 } == ["bad"])
        #expect(form.receive(.signIn, data).isIgnored == false)
        guard case .refused(let message) = form.form.phase else {
            Issue.record("a refused token should show its refusal, got \(form.form.phase)")
            return
        }
        #expect(message == "refused")
    }

    @Test func goalKeysAndTheNewGoalFormReturnCommands() throws {
        let list = GoalListScreen()
        #expect(list.start(data) == [.loadGoals])
        #expect(list.refresh(data) == [.loadGoals])
        let opened = list.handle(.char("a"), action: .newGoal, data)
        #expect(opened.commands == [.resetGoalCreation])
        guard case .run(_, then: .present(let overlay)) = opened, let form = overlay as? NewGoalForm else {
            Issue.record("a should open the new-goal form")
            return
        }
        #expect(GoalDetailScreen(goalId: 7).refresh(data) == [.loadGoalFeed(7)])
        for character in "Piano" { _ = form.handle(.char(character), data) }
        let created = form.handle(.enter, data).commands
        #expect(created.map(\.name) == ["create-goal"], "Enter should ask to create the goal, got \(created)")
        let goal = try #require(created.first?.argument as? NewGoal)
        #expect(goal.name == "Piano" && goal.target == nil)
        #expect(form.handle(.escape, data).commands == [.resetGoalCreation])
        #expect(api.calls.isEmpty && !stores.isBusy)
    }

    /// On the demo's loaded week: `s` opens the picker, the confirmation's `y` asks to save, and
    /// after a failed transfer `s` and `r` ask to retry it (with its id); the screens send nothing.
    @Test func savingAndRetryingAreCommands() async throws {
        let api = RoundUpsApp.api(backend: DemoBackend(now: fixedNow), now: fixedNow)
        // The send's answer and the saver's check are both lost.
        api.script { $0.transferFaults = [.afterApplying, .beforeApplying] }
        // A week later, on the scripted week: a week is saved once it is over.
        let app = AppHarness(api: api, width: 80, height: 24, now: RoundUpsApp.weekLater, timeZone: RoundUpsApp.stockholm)
        _ = await app.start()
        await app.press(.char("3"), .char("["))
        let data = app.core.screenData
        let screen = try #require(app.core.screen(RoundUpsScreen.self))
        let calls = api.calls.count
        guard case .present(let overlay) = screen.handle(.char("s"), action: RoundUpsScreen.Action.save.action, data),
              let picker = overlay as? GoalPicker else {
            Issue.record("s on a loaded week should open the goal picker")
            return
        }
        let goal = try #require(app.core.goals.goals.first).id
        #expect(SaveConfirmation(picker.offer, into: goal).handle(.char("y"), data).commands == [.save(into: goal)])
        #expect(app.core.goalList.handle(.enter, action: .open, data).commands == [.loadGoalFeed(goal)])
        #expect(api.calls.count == calls, "the screens asked; nothing was sent")
        await app.press(.char("s"), .enter, .enter)
        #expect(app.core.roundUps.transfer?.failureMessage != nil)
        #expect(screen.handle(.char("s"), action: RoundUpsScreen.Action.save.action, data).commands == [.retryTransfer])
        #expect(screen.refresh(data) == [.retryTransfer])
        #expect(api.transferIds.count == 2)
    }
}
