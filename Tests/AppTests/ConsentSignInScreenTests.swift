@testable import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport
import TermUI
@testable import QapitalApp

/// The app's sign-in at the bank for a consent source (`ConsentSignInScreen` before the app,
/// `L`'s `ConsentSignInOverlay` over it), driven by a fake consent source: it says the bank's
/// address, opens it, and waits for the browser's return, which here is only ever pasted.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct ConsentSignInScreenTests {
    /// What the fake source saw: how often it ran, what it opened, whether a run was cancelled.
    final class Seen: Sendable {
        let runs = Locked(0)
        let opened = Locked<[URL]>([])
        let cancelled = Locked(0)
    }

    nonisolated static let address = "https://bank.test/sign-in?authorization_id=" + String(repeating: "0123456789abcdef", count: 12) + "&end=1"

    /// A consent source's steps: the address said and opened, then pasted addresses until one
    /// carries `state=right` (signed in) or `error=` (the bank's words); another state is noted
    /// and the wait goes on; a cancelled wait ends it.
    nonisolated static func steps(_ seen: Seen) -> @Sendable (ConsentSignInChannel) async -> SignInRefusal? {
        { channel in
            seen.runs.withLock { $0 += 1 }
            channel.say("Open this address in a browser to sign in at Fake Bank:")
            channel.say(address)
            channel.open(URL(string: address)!)
            while let line = await channel.readLine() {
                if line.contains("state=right") {
                    if line.contains("error=") { return SignInRefusal("Fake Bank did not give access: access_denied") }
                    channel.say("signed in at Fake Bank (FI): 2 accounts")
                    return nil
                }
                channel.note("refused: not from this sign-in; paste the address of this sign-in")
            }
            seen.cancelled.withLock { $0 += 1 }
            return SignInRefusal("the sign-in was cancelled")
        }
    }

    static func screen(_ seen: Seen) -> ConsentSignInScreen<String> {
        let steps = Self.steps(seen)
        return ConsentSignInScreen(title: "Fake Aggregator", refusal: nil, browse: { url in seen.opened.withLock { $0.append(url) } },
                                   run: { channel in
                                       if let refusal = await steps(channel) { return .failure(refusal) }
                                       return .success("Everyday Account")
                                   }, open: { value, events in
                                       AppCore(api: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)),
                                               configuration: .init(sourceName: value, colors: false, timeZone: TimeZone(identifier: "UTC")!),
                                               now: { fixedNow }, events: events)
                                   })
    }

    static func type(_ text: String, on terminal: TestTerminal) {
        for character in text { terminal.send(.key(.char(character))) }
        terminal.send(.key(.enter))
    }

    /// Enter starts; the address is drawn whole from the first column (wrapped, nothing cut);
    /// another state is refused and the wait goes on; the right one opens the app in the loop.
    @Test func enterShowsTheAddressWholeAndAPastedReturnSignsIn() async {
        let seen = Seen()
        let terminal = TestTerminal(width: 60, height: 24)
        let runner = AppRunner(consentSignIn: Self.screen(seen), terminal: terminal)
        await runner.run(until: { terminal.lines.contains { $0.contains("Enter: sign in") } }, timeout: .seconds(30))
        #expect(terminal.lines[0].contains("Sign in at the bank through Fake Aggregator"))
        #expect(seen.runs.withLock { $0 } == 0)  // nothing runs before Enter

        terminal.send(.key(.enter))
        await runner.run(until: { terminal.lines.contains { $0.contains("Address:") } }, timeout: .seconds(30))
        // The address's lines start at the first column and, joined, are the address.
        let first = terminal.lines.firstIndex { $0.hasPrefix("https://bank.test/") } ?? terminal.lines.count
        #expect(first < terminal.lines.count)
        let joined = terminal.lines.dropFirst(first).prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.trimmingCharacters(in: .whitespaces) }.joined()
        #expect(joined == Self.address)
        #expect(seen.opened.withLock { $0 } == [URL(string: Self.address)!])
        #expect(terminal.lines.last?.contains("Esc: cancel") == true)

        Self.type("http://127.0.0.1:8765/callback?code=c&state=forged", on: terminal)
        await runner.run(until: { terminal.lines.contains { $0.contains("refused: not from this sign-in") } }, timeout: .seconds(30))
        #expect(runner.core == nil)
        #expect(terminal.lines.contains { $0.contains("Address:") })  // still waiting

        Self.type("http://127.0.0.1:8765/callback?code=c&state=right", on: terminal)
        await runner.run(until: { runner.core?.isSettled == true }, timeout: .seconds(30))
        #expect(terminal.lines[0].contains("1 Goals"))
        #expect(terminal.lines.last?.contains("Everyday Account") == true)
        #expect(seen.runs.withLock { $0 } == 1)
    }

    /// The bank's error is shown in its words and Enter starts again; Esc while waiting cancels
    /// the run (the source's wait ends: its listener closes), and Esc then leaves without an app.
    @Test func anErrorIsShownAndEscCancelsThenLeaves() async {
        let seen = Seen()
        let terminal = TestTerminal(width: 80, height: 24)
        let runner = AppRunner(consentSignIn: Self.screen(seen), terminal: terminal)
        await runner.run(until: { terminal.lines.contains { $0.contains("Enter: sign in") } }, timeout: .seconds(30))
        terminal.send(.key(.enter))
        await runner.run(until: { terminal.lines.contains { $0.contains("Address:") } }, timeout: .seconds(30))
        Self.type("http://127.0.0.1:8765/callback?error=access_denied&state=right", on: terminal)
        await runner.run(until: { terminal.lines.contains { $0.contains("✗") } }, timeout: .seconds(30))
        #expect(terminal.lines.contains { $0.contains("✗ Fake Bank did not give access: access_denied") })
        #expect(terminal.lines.last?.contains("Enter: sign in") == true)

        terminal.send(.key(.enter))
        await runner.run(until: { seen.runs.withLock { $0 } == 2 && terminal.lines.contains { $0.contains("Address:") } }, timeout: .seconds(30))
        terminal.send(.key(.escape))
        await runner.run(until: { seen.cancelled.withLock { $0 } == 1 }, timeout: .seconds(30))
        #expect(seen.cancelled.withLock { $0 } == 1)
        #expect(terminal.lines.contains { $0.contains("Cancelled") })
        #expect(runner.core == nil)
        terminal.send(.key(.escape))
        await runner.run()
        #expect(runner.core == nil && runner.quitSignal == nil)
    }

    /// `L` opens the same sign-in over the app for a consent source, and is in the help; a
    /// pasted return closes it with a notice; without a consent source `L` only says so.
    @Test func keyLOpensTheSignInOverTheApp() async {
        let seen = Seen()
        let bankReads = Locked(0)
        var capabilities = AppCore.Capabilities(refreshCache: { bankReads.withLock { $0 += 1 } })
        capabilities.consentSignIn = ConsentSignInCapability(title: "Fake Aggregator", browse: { _ in }, run: Self.steps(seen))
        let app = AppHarness(capabilities: capabilities)
        _ = await app.start()
        #expect(KeysHelp.defaultEntries.contains { $0.keys.contains(.char("L")) && $0.help.contains("sign in at the bank") })
        await app.press(.char("L"))
        #expect(app.terminal.lines.contains { $0.contains("Sign in at the bank through Fake Aggregator") })
        app.terminal.send(.key(.enter))
        await app.runner.run(until: { app.terminal.lines.contains { $0.contains("Address:") } }, timeout: .seconds(30))
        Self.type("http://127.0.0.1:8765/callback?code=c&state=right", on: app.terminal)
        await app.runner.run(until: { app.terminal.lines.contains { $0.contains("the new consent is in use") } }, timeout: .seconds(30))
        #expect(!app.terminal.lines.contains { $0.contains("Sign in at the bank through") })
        #expect(seen.runs.withLock { $0 } == 1)
        // The sign-in read the bank itself: the reload after it asks the source for no read more.
        #expect(bankReads.withLock { $0 } == 0)
        await app.press(.char("2"), .char("r"))
        #expect(bankReads.withLock { $0 } == 1)

        let plain = AppHarness()
        _ = await plain.start()
        let lines = await plain.press(.char("L"))
        #expect(lines.contains { $0.contains("no sign-in at the bank in a browser here") })
    }

    /// A refused token puts the token form up unless the source's sign-in stands instead of it:
    /// a consent's (Enable Banking) does; an OAuth client's beside the form (Monzo's) does not.
    @MainActor
    @Test(arguments: [true, false]) func aRefusedTokenGetsTheFormUnlessTheConsentReplacesIt(replaces: Bool) {
        let token = AppCore.SignInCapability(origin: "bank.example", isRefused: { true }, check: { _, _ in nil })
        var consent = ConsentSignInCapability(title: "Bank", browse: { _ in }, run: { _ in nil })
        consent.replacesTokenForm = replaces
        #expect((SignInOffer(token, consent: consent).form(over: []) == nil) == replaces)
        #expect(SignInOffer(token).form(over: []) != nil)
    }
}
