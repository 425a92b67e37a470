import DemoData
import FeedModel
import Foundation
@testable import QapitalApp
import Testing
import TestSupport

/// What a read-only source says (where its goals come from, why nothing is sent, its own note) is
/// read whole, at any width: tried on SimpleFIN's look-alike at 100 columns, each was cut ("…the
/// config file's [simplefin] g…", "move the total in yo…", "the bank asks to sign …").
@MainActor @Suite struct ReadOnlyWordsTests {
    static let noGoals = "This source is read-only: goals are the accounts named in the config file's [bank] goals setting (see docs/banks.md)."
    static let noMoves = "This source is read-only: these round-ups are suggestions and nothing is sent; move the total in your bank's own app."
    nonisolated static let note = "Maple Credit Union needs attention on the Bridge: the bank asks to sign in again there, then press r here."

    static func app(width: Int) -> AppHarness {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)))
        api.script { $0.goals = { [] } }
        var configuration = AppCore.Configuration(sourceName: "bank", colors: false, timeZone: TimeZone(identifier: "UTC")!)
        configuration.noGoalCreation = noGoals
        configuration.noMoneyMoves = noMoves
        var capabilities = AppCore.Capabilities()
        capabilities.sourceNote = { note }
        let core = AppCore(api: api, configuration: configuration, capabilities: capabilities,
                           achievements: AchievementsFile(title: "", achievements: []), now: { fixedNow })
        return AppHarness(core: core, width: width, height: 30)
    }

    /// The screen's words, lines joined with blanks between, runs of blanks as one.
    static func words(_ lines: [String]) -> String {
        lines.joined(separator: " ").split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    @Test(arguments: [60, 100])
    func aReadOnlySourceIsReadWhole(width: Int) async {
        let app = Self.app(width: width)
        let goals = await app.start()
        #expect(Self.words(goals).contains("No goals. " + Self.noGoals), "\(goals.joined(separator: "\n"))")
        // The source's own note, with no other message: whole, above the bar where it is long.
        #expect(Self.words(goals.suffix(4)).contains(Self.note), "\(goals.suffix(4).joined(separator: "\n"))")
        let roundUps = await app.press(.char("3"))
        #expect(Self.words(roundUps).contains(Self.noMoves), "\(roundUps.joined(separator: "\n"))")
    }

    /// Beside a message the note keeps its place in the bar, before the source's name.
    @Test func besideAMessageTheNoteStaysInTheBar() async {
        let app = Self.app(width: 200)
        _ = await app.start()
        let lines = await app.press(.char("a"))  // the source cannot create goals: a notice
        let bar = lines.last ?? ""
        #expect(bar.hasPrefix(" " + Self.note), "\(bar)")
        #expect(bar.contains(Self.noGoals) || Self.words(lines.suffix(4)).contains(Self.noGoals))
    }
}

/// Issue 50, item 11: a long note beside a message never pushes the balance out of the bar
/// (bunq: "…may round up twice  €6,0…"); the note is cut instead.
@MainActor @Suite struct TheBalanceStaysInTheBarTests {
    @Test(arguments: [80, 100, 120])
    func aLongNoteGivesWayToTheBalance(width: Int) async {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)))
        api.script { $0.account = { Account(id: "a", name: "Main", currency: .usd, createdAt: fixedNow, holder: "Alex",
                                            effectiveBalance: Money(minorUnits: 604_248, currency: .usd)) } }
        var configuration = AppCore.Configuration(sourceName: "bank", colors: false, timeZone: TimeZone(identifier: "UTC")!)
        configuration.noGoalCreation = ReadOnlyWordsTests.noGoals
        var capabilities = AppCore.Capabilities()
        capabilities.sourceNote = { ReadOnlyWordsTests.note }
        let core = AppCore(api: api, configuration: configuration, capabilities: capabilities,
                           achievements: AchievementsFile(title: "", achievements: []), now: { fixedNow })
        let app = AppHarness(core: core, width: width, height: 30)
        _ = await app.start()
        let lines = await app.press(.char("a"))  // a notice beside the note
        let bar = lines.last ?? ""
        #expect(bar.contains("$6,042.48"), "\(bar)")
    }
}

/// A source without idempotency keys (bunq) finds its mark and says when and into which goal the
/// week was saved; the Round-ups tab said only "Already saved by another run or machine".
@MainActor @Suite struct SavedElsewhereWordsTests {
    @Test func theSourcesOwnWordsAreShown() async {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)))
        api.script { $0.transfer = { _, _, _ in throw AlreadySaved(message: "already saved on 23 Nov 2026 into Dog; nothing moved") } }
        let app = AppHarness(api: api, width: 100, height: 30)
        _ = await app.start()
        _ = await app.press(.char("3"), .char("["))
        let lines = await app.press(.char("s"), .enter, .enter)
        #expect(lines.contains { $0.contains("✓ Already saved on 23 Nov 2026 into Dog; nothing moved") }, "\(lines.joined(separator: "\n"))")
    }
}
