@testable import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport
import TermUI
@testable import QapitalApp

/// The one event loop: it takes every queued event before it draws, and the sign-in before
/// the app is a screen of the same loop, on the test terminal like the rest.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct EventLoopTests {
    /// A hundred arrivals queued before the loop wakes are one frame, not a hundred.
    @Test func aBurstOfArrivalsIsOneFrame() async {
        let app = AppHarness(width: 80, height: 24)
        _ = await app.start()
        let before = app.terminal.presentCount
        for index in 0..<100 {
            app.core.post(.store(index.isMultiple(of: 2) ? .goals : .activityPage))
        }
        #expect(app.core.pendingEvents == 100)
        _ = await app.screen()
        #expect(app.core.pendingEvents == 0)
        #expect(app.terminal.presentCount == before + 1)
        // Keys queued together are one frame too, and each is handled in order.
        app.terminal.send(.key(.char("j")))
        app.terminal.send(.key(.char("j")))
        app.terminal.send(.key(.char("2")))
        _ = await app.screen()
        #expect(app.terminal.presentCount == before + 2)
        #expect(app.core.goalList.list.selected == 2)
        #expect(app.core.tabIndex == 1)
    }

    nonisolated static let good = "good-token-123"

    /// A sign-in over the demo: "good-token-123" opens it, anything else is refused.
    static func signIn() -> SignInScreen<String> {
        SignInScreen(form: SignInForm(origin: "bank.test", title: "Starling Bank"), check: { token in
            token == good ? .success("account 42") : .failure(SignInRefusal("the token was refused (HTTP 401)"))
        }, open: { accepted in
            let core = AppCore(api: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)),
                               configuration: .init(sourceName: accepted.value, colors: false, timeZone: TimeZone(identifier: "UTC")!),
                               now: { fixedNow }, events: accepted.events)
            core.showNotice(accepted.remember ? "remembered" : "not remembered")
            return core
        })
    }

    static func type(_ text: String, on terminal: TestTerminal) {
        for character in text { terminal.send(.key(.char(character))) }
    }

    /// The first sign-in on the test terminal: a wrong token is refused under the field, a good
    /// one opens the app's screens in the same loop; the token is never drawn.
    @Test func theFirstSignInIsAScreenOfTheLoop() async {
        let terminal = TestTerminal(width: 80, height: 24)
        let runner = AppRunner(signIn: Self.signIn(), terminal: terminal)
        await runner.run(until: { runner.isSettled }, timeout: .seconds(30))
        #expect(terminal.lines.contains { $0.contains("Sign in to bank.test") })
        #expect(runner.core == nil)

        Self.type("wrong-token", on: terminal)
        terminal.send(.key(.enter))
        await runner.run(until: { runner.isSettled && terminal.lines.contains { $0.contains("✗") } }, timeout: .seconds(30))
        #expect(terminal.lines.contains { $0.contains("✗ the token was refused (HTTP 401)") })
        #expect(runner.core == nil)

        terminal.send(.key(.ctrl("u")))
        Self.type(Self.good, on: terminal)
        terminal.send(.key(.tab))
        terminal.send(.key(.char(" ")))  // remember it
        terminal.send(.key(.enter))
        await runner.run(until: { runner.core?.isSettled == true }, timeout: .seconds(30))
        #expect(terminal.lines[0].contains("1 Goals   2 Activity"))
        #expect(terminal.lines.contains { $0.contains("Balloons") })
        #expect(terminal.lines.last?.contains("account 42") == true)
        #expect(terminal.lines.last?.contains("remembered") == true)
        #expect(!terminal.lines.joined().contains(Self.good) && !terminal.lines.joined().contains("wrong-token"))

        // The app goes on in the same loop: keys reach its screens, q ends it.
        terminal.send(.key(.char("2")))
        await runner.run(until: { runner.core?.isSettled == true }, timeout: .seconds(30))
        #expect(runner.core?.tabIndex == 1)
        terminal.send(.key(.char("q")))
        await runner.run()
        #expect(runner.core?.shouldQuit == true && runner.quitSignal == nil)
    }

    /// Esc on the sign-in ends the loop without an app; a quit signal ends it with its number.
    @Test func leavingTheSignIn() async {
        let terminal = TestTerminal(width: 80, height: 24)
        let runner = AppRunner(signIn: Self.signIn(), terminal: terminal)
        await runner.run(until: { runner.isSettled }, timeout: .seconds(30))
        terminal.send(.key(.escape))
        await runner.run()
        #expect(runner.core == nil && runner.quitSignal == nil)

        let second = TestTerminal(width: 80, height: 24)
        let signalled = AppRunner(signIn: Self.signIn(), terminal: second)
        await signalled.run(until: { signalled.isSettled }, timeout: .seconds(30))
        Self.type(Self.good, on: second)
        second.send(.key(.enter))
        second.send(.quitSignal(15))
        await signalled.run()
        #expect(signalled.core == nil && signalled.quitSignal == 15)
    }
}

/// The queue hands events out in the order they came, however many and however they interleave.
@MainActor
@Suite struct EventQueueTests {
    @Test func eventsComeOutInOrder() {
        let queue = EventQueue()
        var taken: [Int] = []
        var next = 0
        // Post in uneven bursts and take in others, past the point where the queue compacts itself.
        for round in 0..<200 {
            for _ in 0..<(round % 7 + 40) {
                queue.post(.store(.user(next)))
                next += 1
            }
            for _ in 0..<(round % 5 + 30) {
                guard case .store(.user(let id))? = queue.take() else { break }
                taken.append(id)
            }
        }
        while case .store(.user(let id))? = queue.take() { taken.append(id) }
        #expect(taken == Array(0..<next))
        #expect(queue.pending == 0 && queue.take() == nil)
    }
}
