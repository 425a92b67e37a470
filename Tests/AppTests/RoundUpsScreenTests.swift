@testable import QapitalClient
@testable import DemoData
@testable import DemoServer
import FeedModel
import Foundation
import Testing
import TestSupport
import TermUI
@testable import QapitalApp
@testable import qapital_tui

/// The demo backend with scripted `/transactions` (the seed's example in the current week,
/// nothing before); transfers can be made to fail after the backend applied them.
enum RoundUpsApp {
    static let stockholm = TimeZone(identifier: "Europe/Stockholm")!

    static func currentWeek(now: Date) -> Week { Week(containing: now, calendar: Week.calendar(in: stockholm)) }

    /// A week after `fixedNow`: the scripted week is over, so it can be saved (issue 37: a week is
    /// saved whole once it is over).
    static let weekLater = fixedNow.addingTimeInterval(7 * 86_400)

    static func api(backend: DemoBackend, now: Date) -> FakeSavingsAPI {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: backend), sourceName: "test")
        let currentWeek = currentWeek(now: now)
        api.script { script in
            script.transactions = { from, _ in
                guard from == currentWeek.start else { return [] }
                func at(_ hours: Double) -> Date { from.addingTimeInterval(hours * 3_600) }
                func usd(_ cents: Int64) -> Money { Money(minorUnits: cents, currency: .usd) }
                return [
                    Transaction(id: "t1", timestamp: at(24 + 9.5), amount: usd(-435), counterparty: "Tesco"),
                    Transaction(id: "t2", timestamp: at(48 + 12), amount: usd(-520), counterparty: "Blue Bottle Coffee"),
                    Transaction(id: "t3", timestamp: at(8.25), amount: usd(-87), counterparty: "Bakery Nº5"),
                    Transaction(id: "t4", timestamp: at(24 + 18), amount: Money(minorUnits: -1_230, currency: .eur), counterparty: "Ramen 一蘭"),
                    Transaction(id: "t5", timestamp: at(9), amount: usd(250_000), counterparty: "Salary"),
                    Transaction(id: "t6", timestamp: at(48 + 8), amount: usd(-700), counterparty: "Uber"),
                ]
            }
        }
        return api
    }
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct RoundUpsScreenTests {
    let backend = DemoBackend(now: fixedNow)
    let api: FakeSavingsAPI
    let core: AppCore
    let runner: AppRunner

    init() {
        api = RoundUpsApp.api(backend: backend, now: fixedNow)
        core = AppCore(api: api, configuration: .init(sourceName: "test", colors: false, timeZone: RoundUpsApp.stockholm,
                                                      currency: .usd),
                       now: { RoundUpsApp.weekLater })
        runner = AppRunner(core: core, terminal: TestTerminal(width: 80, height: 16))
    }

    /// Runs the app's event loop until nothing is in flight and every event is handled.
    func settle() async {
        await runner.run(until: { core.isSettled }, timeout: .seconds(30))
    }

    func press(_ keys: Key...) async {
        for key in keys { core.post(.terminal(.key(key))) }
        await settle()
    }

    func type(_ text: String) async {
        for character in text { core.post(.terminal(.key(.char(character)))) }
        await settle()
    }

    /// The frame at `width`×`height`, each line without its trailing blanks.
    func frame(width: Int = 80, height: Int = 16) -> [String] {
        var buffer = CellBuffer(width: width, height: height)
        core.drawFrame(into: &buffer)
        return buffer.lines.map { line in String(line.reversed().drop { $0 == " " }.reversed()) }
    }

    /// The Round-ups tab on the scripted week (the one before the clock's).
    func openRoundUps() async {
        await settle()  // the loop's first run starts the app
        await press(.char("3"), .char("["))
    }

    @Test func aWeekWithPayments() async {
        await openRoundUps()
        #expect(frame() == [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People   6 Rules",
            " Week of Mon 16 Nov – Sun 22 Nov 2026                   ← [ previous · next ] →",
            " Date              Paid to                                    Amount   Round-up",
            " Wed 18 Nov 12:00  Blue Bottle Coffee                         −$5.20      $0.80",
            " Wed 18 Nov 08:00  Uber                                       −$7.00      $0.00",
            " Tue 17 Nov 18:00  Ramen 一蘭                                −€12.30    (€0.70)",
            " Tue 17 Nov 09:30  Tesco                                      −$4.35      $0.65",
            " Mon 16 Nov 08:15  Bakery Nº5                                 −$0.87      $0.13",
            "",
            "",
            "",
            "                                                                          1 of 5",
            "",
            " Round-ups: $1.58 from 3 payments   s: save into a goal",
            " Not saved, other currencies: €0.70 (1 payment in EUR)",
            " test                                                            ? help  q quit",
        ])
        // Not past the current week, which is under way: it cannot be saved yet.
        await press(.right, .char("]"))
        #expect(core.roundUps.week == RoundUpsApp.currentWeek(now: RoundUpsApp.weekLater))
        #expect(!frame().contains { $0.contains("s: save into a goal") })
        await press(.char("s"))
        #expect(core.overlays.isEmpty)
        #expect(frame().last?.contains("This week is under way: save it from Mon 30 Nov 2026.") == true,
                "\(frame().last ?? "")")
    }

    @Test func anEmptyWeekSaysSoAndCannotBeSaved() async {
        await openRoundUps()
        await press(.char("["))
        #expect(frame(height: 8) == [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People   6 Rules",
            " Week of Mon 9 Nov – Sun 15 Nov 2026                    ← [ previous · next ] →",
            "",
            " No card payments this week: nothing to round up.",
            "",
            "",
            "",
            " test                                                            ? help  q quit",
        ])
        await press(.char("s"))
        #expect(core.overlays.isEmpty)
        #expect(frame(height: 8).last?.contains("Nothing to save: the round-ups come to zero.") == true)
        await press(.left)
        #expect(frame(height: 8)[1] == " Week of Mon 2 Nov – Sun 8 Nov 2026                     ← [ previous · next ] →")
    }

    @Test func pickerThenConfirmationThenTheBalanceInTheGoalsTab() async throws {
        await openRoundUps()
        let dogBefore = try #require(core.goals.goal(id: 2)).balance
        await press(.char("s"))
        #expect(Array(frame(height: 20)[2...17]) == [
            " Date              Paid to                                    Amount   Round-up",
            " Wed 18 Nov 12:00  Bl┌─ Save $1.58 into… ─────────────────┐   −$5.20      $0.80",
            " Wed 18 Nov 08:00  Ub│  Balloons                 $400.00  │   −$7.00      $0.00",
            " Tue 17 Nov 18:00  Ra│  Dog                       $50.00  │  −€12.30    (€0.70)",
            " Tue 17 Nov 09:30  Te│  Bike                     $500.00  │   −$4.35      $0.65",
            " Mon 16 Nov 08:15  Ba│  Graduation                 $0.00  │   −$0.87      $0.13",
            "                     │  Vacation                  $10.00  │",
            "                     │  Brand New Wheels          $40.00  │",
            "                     │  A New Crib                 $0.00  │",
            "                     │  A Rainy Day              $130.00  │",
            "                     │  Emergency fund         $1,250.50  │",
            "                     │  Tokyo trip 東京          $845.25  │",
            "                     │  Concert tickets ⚡️       $187.13  │",
            "                     └──────── Enter choose · Esc cancel ─┘               1 of 5",
            "",
            " Round-ups: $1.58 from 3 payments   s: save into a goal",
        ])
        await press(.char("j"), .enter)
        #expect(Array(frame()[5...11]) == [
            " Tue 17 Nov 18:│ Move $1.58 of round-ups                       │2.30    (€0.70)",
            " Tue 17 Nov 09:│ from the week of Mon 16 Nov – Sun 22 Nov 2026 │4.35      $0.65",
            " Mon 16 Nov 08:│ into Dog (saved now: $50.00)?                 │0.87      $0.13",
            "               │                                               │",
            "               │ Enter or y: save    Esc or n: cancel          │",
            "               └───────────────────────────────────────────────┘",
            "                                                                          1 of 5",
        ])
        core.handle(.key(.enter))
        #expect(frame()[14] == " Saving $1.58 into Dog…")
        await settle()
        #expect(frame()[14] == " ✓ Saved $1.58 into Dog: its balance is now $51.58")
        // Each message once (issue 50, item 11): the record's own line for this save is not said again.
        #expect(frame().filter { $0.contains("Saved $1.58 into Dog") }.count == 1, "\(frame().joined(separator: "\n"))")
        #expect(core.goals.goal(id: 2)?.balance == dogBefore + Money(minorUnits: 158, currency: .usd))
        await press(.char("1"))
        #expect(frame(width: 80)[2] == " DO  Dog                    $51.58 no target")
        // Saving the same week again is refused, not sent.
        await press(.char("3"), .char("s"))
        #expect(core.roundUps.transfer?.attempts == 1)
        #expect(api.transferIds.count == 1)
    }

    /// One lost answer: the saver checks at once with the same id and the tab says it moved.
    @Test func aLostAnswerIsCheckedAndTheTabSaysItMoved() async throws {
        api.script { $0.transferFaults = [.afterApplying] }
        await openRoundUps()
        let dogBefore = try #require(core.goals.goal(id: 2)).balance
        await press(.char("s"), .char("j"), .enter, .enter)
        #expect(frame()[14] == " ✓ Saved $1.58 into Dog (found by checking): its balance is now $51.58")
        let ids = api.transferIds
        #expect(ids.count == 2 && ids[0] == ids[1])
        #expect(await backend.dataset.goals.first { $0.id == 2 }?.balance == dogBefore + Money(minorUnits: 158, currency: .usd))
    }

    @Test func aFailedTransferShowsItsErrorAndRetriesWithTheSameId() async throws {
        // The send's answer and the saver's check at once are both lost.
        api.script { $0.transferFaults = [.afterApplying, .beforeApplying] }
        await openRoundUps()
        let dogBefore = try #require(core.goals.goal(id: 2)).balance
        await press(.char("s"), .char("j"), .enter, .enter)
        #expect(Array(frame()[11...15]) == [
            " Not saved, other currencies: €0.70 (1 payment in EUR)",
            " ? $1.58 into Dog may have moved: its answer was lost",
            "   s or r: check with the same transfer id (it moves once) · Esc: hide this",
            " ✗ POST /savingsgoals/2/transfers: HTTP 500 (and the check at once: the same)",
            " test                                                            ? help  q quit",
        ])
        // Keys still work while it waits: move a week back and return.
        await press(.char("["), .char("]"))
        await press(.char("r"))
        #expect(frame()[14] == " ✓ Saved $1.58 into Dog: its balance is now $51.58")
        let ids = api.transferIds
        #expect(ids.count == 3 && Set(ids).count == 1)
        #expect(await backend.dataset.goals.first { $0.id == 2 }?.balance == dogBefore + Money(minorUnits: 158, currency: .usd))
    }

    @Test func newGoalFormFromRoundUpsAddsTheGoalToTheList() async {
        await openRoundUps()
        await press(.char("a"), .enter)
        await type("  Piano")
        await press(.tab)
        await type("12.345")
        await press(.enter)
        #expect(Array(frame()[3...12]) == [
            " Wed 18│ Name      Piano                                                │ $0.80",
            " Wed 18│                                                                │ $0.00",
            " Tue 17│ Target  12.345       USD  ✗ at most 2 decimals                 │€0.70)",
            " Tue 17│                                                                │ $0.65",
            " Mon 16│ Photo                                                          │ $0.13",
            "       │         optional: a PNG or JPEG file                           │",
            "       │                                                                │",
            "       │                                                                │",
            "       │ Tab: next field   Enter: create   Esc: cancel                  │ 1 of 5",
            "       └────────────────────────────────────────────────────────────────┘",
        ])
        await press(.backspace, .enter)
        #expect(core.newGoalForm == nil)
        let created = core.goals.goals.last
        #expect(created?.name == "Piano")
        #expect(created?.target == Money(minorUnits: 1_234, currency: .usd))
        await press(.char("1"))
        #expect(frame(height: 20).contains { $0.contains("Piano") && $0.contains("$0.00 of $12.34") })
    }

    @Test func theHelpListsTheNewKeys() {
        let help = HelpOverlay.lines(for: KeysHelp.defaultEntries).map { $0.map(\.text).joined() }
        for expected in ["3", "← [", "→ ]", "s", "n"] {
            #expect(help.contains { $0.hasPrefix("  " + expected + " ") }, "no help line for \(expected)")
        }
        #expect(help.contains("Round-ups"))
    }
}

/// Over HTTP: a transfer the server applied but whose answer failed, retried by the store with
/// the same `transferId`, moves money once.
@Suite(.timeLimit(.minutes(1))) struct RoundUpsOverHTTPTests {
    /// Passes everything to the demo handler, but answers the first two transfers (the send and
    /// the saver's check at once) with a 500 after applying them, and records each transfer body.
    actor LosingFirstAnswer: ServeHandler {
        let inner: DemoAPIHandler
        var transferBodies: [String] = []
        init(backend: DemoBackend) { inner = DemoAPIHandler(backend: backend) }

        func handle(_ request: ServeRequest) async -> ServeResponse {
            guard request.path.hasSuffix("/transfers") else { return await inner.handle(request) }
            transferBodies.append(String(decoding: request.body, as: UTF8.self))
            let response = await inner.handle(request)
            if transferBodies.count <= 2 { return .error(500, "lost on the way") }
            return response
        }
    }

    @Test func aRetryAfterALostAnswerMovesMoneyOnce() async throws {
        let backend = DemoBackend(now: fixedNow)
        let handler = LosingFirstAnswer(backend: backend)
        try await withServer(handler: handler) { _, api in
            try await RoundUpsOverHTTPTests.saveTwice(api: api, handler: handler)
        }
    }

    @MainActor
    static func saveTwice(api: QapitalHTTPAPI, handler: LosingFirstAnswer) async throws {
        do {
            let probe = EventProbe<StoreEvent>()
            let goals = GoalStore(api: api, events: probe.sink)
            goals.load()
            #expect(await probe.wait { goals.status == .loaded })
            let store = RoundUpStore(api: api, goals: goals, accountCurrency: .usd,
                                     calendar: Week.calendar(in: RoundUpsApp.stockholm), now: { RoundUpsApp.weekLater },
                                     events: probe.sink)
            store.showPreviousWeek()
            #expect(await probe.wait { store.status == .loaded })
            let amount = try #require(store.summary?.saveable)
            #expect(amount.minorUnits > 0)
            let before = try #require(goals.goal(id: 4)).balance
            try store.save(into: try #require(goals.goal(id: 4)))
            #expect(await probe.wait { store.transfer?.isSending == false })
            #expect(store.transfer?.phase == .mayHaveMoved("POST /savingsgoals/4/transfers: HTTP 500: lost on the way (and the check at once: the same)"))
            #expect(store.retryTransfer())
            #expect(await probe.wait { store.transfer?.isSending == false })
            #expect(store.transfer?.failureMessage == nil)
            #expect(goals.goal(id: 4)?.balance == before + amount)
            #expect(try await api.goals().first { $0.id == 4 }?.balance == before + amount)
            let bodies = await handler.transferBodies
            #expect(bodies.count == 3 && Set(bodies).count == 1)
            #expect(bodies[0].contains(store.transfer!.id.uuidString))
        }
    }
}

/// Issue 50, item 11: on a read-only source the tab says why nothing is sent; `s` does not say
/// it a second time.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct ReadOnlySaysItOnceTests {
    @Test func sOnAReadOnlySourcePointsAtTheReasonInsteadOfRepeatingIt() async throws {
        let reason = "SimpleFIN is read-only: these round-ups are suggestions and nothing is sent"
        var configuration = AppCore.Configuration(sourceName: "simplefin", colors: false, timeZone: TimeZone(identifier: "UTC")!, images: false)
        configuration.noMoneyMoves = reason
        let core = AppCore(api: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), configuration: configuration, now: { fixedNow })
        let app = AppHarness(core: core, width: 100, height: 30)
        _ = await app.start()
        await app.press(.char("3"), .char("["), .char("s"))
        let screen = app.terminal.lines.joined(separator: "\n")
        #expect(screen.components(separatedBy: "SimpleFIN is read-only").count - 1 == 1, "\(screen)")
        #expect(screen.contains("Nothing is sent from here"))
    }
}

/// Issue 50, item 8: keys typed while the week loads are kept and done in order once it is in
/// (`s j Enter y` during bunq's 2 s load did nothing); Esc drops them.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct KeysWhileTheWeekLoadsTests {
    static func app() -> (AppHarness, FakeSavingsAPI) {
        let api = RoundUpsApp.api(backend: DemoBackend(now: fixedNow), now: fixedNow)
        let core = AppCore(api: api, configuration: .init(sourceName: "test", colors: false, timeZone: RoundUpsApp.stockholm),
                           now: { RoundUpsApp.weekLater })
        return (AppHarness(core: core, width: 80, height: 24), api)
    }

    static func transactionsAsked(_ api: FakeSavingsAPI) -> Int {
        api.calls.count { if case .transactions = $0 { true } else { false } }
    }

    /// The app on Round-ups with last week (the scripted one, over by now) held on its way.
    static func loadingLastWeek() async -> (AppHarness, FakeSavingsAPI) {
        let (app, api) = Self.app()
        _ = await app.start()
        api.hold([.transactions])
        app.terminal.send(.key(.char("3")))
        app.terminal.send(.key(.char("[")))
        let asked = Self.transactionsAsked(api)
        _ = await app.runner.run(until: { Self.transactionsAsked(api) > asked }, timeout: .seconds(30))
        return (app, api)
    }

    @Test func sAndTheKeysAfterItWaitForTheWeekThenAreDoneInOrder() async throws {
        let (app, api) = await Self.loadingLastWeek()
        for key in [Key.char("s"), .char("j"), .enter, .char("y")] { app.terminal.send(.key(key)) }
        _ = await app.runner.run(until: { app.terminal.lines.contains { $0.contains("Waiting for the week to load") } }, timeout: .seconds(30))
        #expect(app.terminal.lines.contains { $0.contains("Waiting for the week to load") }, "\(app.terminal.lines.joined(separator: "\n"))")
        #expect(api.transferIds.isEmpty)
        api.release()
        _ = await app.screen()
        // s opened the picker, j chose its second goal (Dog), Enter the confirmation, y saved.
        #expect(api.transferIds.count == 1, "\(app.terminal.lines.joined(separator: "\n"))")
        #expect(api.calls.contains { if case .transfer(let goal, _, _) = $0 { goal == 2 } else { false } })
    }

    @Test func escDropsWhatWasHeld() async throws {
        let (app, api) = await Self.loadingLastWeek()
        for key in [Key.char("s"), .char("j"), .escape] { app.terminal.send(.key(key)) }
        _ = await app.runner.run(until: { app.terminal.lines.contains { $0.contains("Cancelled") } }, timeout: .seconds(30))
        api.release()
        _ = await app.screen()
        #expect(api.transferIds.isEmpty && !(app.core.overlays.last is GoalPicker))
    }
}
