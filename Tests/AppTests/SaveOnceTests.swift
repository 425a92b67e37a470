@testable import DemoServer
@testable import DemoData
import FeedCache
import FeedModel
import Foundation
@testable import StarlingSource
import QapitalClient
import StarlingClient
import Testing
import TestSupport
@testable import QapitalApp

/// Issue 27.1: a week's round-ups move once across restarts and machines, through `serve` in
/// both APIs. Each "session" is a new GoalStore and RoundUpStore over a record file read anew.
@Suite(.timeLimit(.minutes(1))) struct SaveOnceTests {
    static let calendar = Week.calendar(in: TimeZone(identifier: "Europe/London")!)

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("save-once-\(UUID().uuidString)")
    }

    @MainActor
    /// One run of the app's Round-ups tab: loads goals and the week, and returns the store.
    static func session(api: any SavingsAPI, currency: Currency, saver: RoundUpSaver)
        async -> (RoundUpStore, GoalStore, EventProbe<StoreEvent>) {
        let probe = EventProbe<StoreEvent>()
        let goals = GoalStore(api: api, events: probe.sink)
        goals.load()
        await probe.wait { goals.status == .loaded }
        let store = RoundUpStore(api: api, goals: goals, accountCurrency: currency, calendar: calendar,
                                 now: { fixedNow }, events: probe.sink, saver: saver)
        store.showPreviousWeek()
        await probe.wait { store.status == .loaded }
        return (store, goals, probe)
    }

    /// Save, restart, save again; then another machine (an empty record) saves the same week.
    @MainActor
    static func saveRestartAndAnotherMachine(api: any SavingsAPI, currency: Currency, identity: SaveIdentity,
                                             balance: @escaping @Sendable () async throws -> Money, goalName: String) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = RoundUpSaver(identity: identity, record: RoundUpRecordFile(directory: directory, identity: identity))
        let before = try await balance()

        let (store, goals, probe) = await session(api: api, currency: currency, saver: first)
        let amount = try #require(store.unsavedTotal)
        #expect(amount.minorUnits > 0)
        let goal = try #require(goals.goals.first { $0.name == goalName })
        try store.save(into: goal)
        await probe.wait { store.transfer?.isSending == false }
        guard case .succeeded? = store.transfer?.phase else {
            Issue.record("not saved: \(String(describing: store.transfer?.phase))")
            return
        }
        #expect(store.transfer?.id == identity.weekKey(store.week))
        #expect(try await balance() == before + amount)

        // A restart: a new store over the same record file.
        let again = RoundUpSaver(identity: identity, record: RoundUpRecordFile(directory: directory, identity: identity))
        let (second, secondGoals, _) = await session(api: api, currency: currency, saver: again)
        guard case .alreadySaved(let part)? = second.saveProblem else {
            Issue.record("not shown as saved: \(String(describing: second.saveProblem))")
            return
        }
        #expect(part.goalName == goalName && part.amount == amount && part.savedAt != nil)
        #expect(second.progress?.isSaved == true)
        #expect(throws: RoundUpStore.SaveProblem.self) { try second.save(into: secondGoals.goals[0]) }
        #expect(!second.retryTransfer())
        #expect(try await balance() == before + amount)

        // Another machine, no record, into another goal: the same key, so nothing moves again.
        let elsewhere = RoundUpSaver(identity: identity, record: MemoryRoundUpRecord())
        let (third, thirdGoals, thirdProbe) = await session(api: api, currency: currency, saver: elsewhere)
        #expect(third.saveProblem == nil)
        try third.save(into: try #require(thirdGoals.goals.first { $0.name != goalName && $0.status == .active }))
        await thirdProbe.wait { third.transfer?.isSending == false }
        #expect(third.transfer?.phase == .savedElsewhere())
        #expect(third.saveProblem == .alreadySaved(try #require(third.progress?.saved.last)))
        #expect(try await balance() == before + amount)
    }

    @Test func qapitalThroughServe() async throws {
        let backend = DemoBackend(now: fixedNow)
        try await withDemoServer(backend: backend) { server, api in
            let identity = SaveIdentity(source: "qapital " + (await server.baseURL).absoluteString, account: "")
            try await Self.saveRestartAndAnotherMachine(api: api, currency: .usd, identity: identity, balance: {
                try #require(try await api.goals().first { $0.name == "Balloons" }).balance
            }, goalName: "Balloons")
            let transfers = await server.receivedRequests().filter { $0.method == "POST" }
            #expect(transfers.count == 2)
        }
    }

    @Test func starlingThroughServe() async throws {
        try await withStarlingServer { _, url in
            let api = try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken, now: { fixedNow })
            let identity = SaveIdentity(source: "starling " + url.absoluteString, account: api.primary.accountUid)
            try await Self.saveRestartAndAnotherMachine(api: api, currency: .gbp, identity: identity, balance: {
                try #require(try await api.goals().first { $0.name == "Balloons" }).balance
            }, goalName: "Balloons")
        }
    }

    @Test func theRecordFileIsPrivateAndHoldsNoToken() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let identity = SaveIdentity(source: "qapital https://example.test", account: SaveIdentity.digest("secret-token-123"))
        let record = RoundUpRecordFile(directory: directory, identity: identity)
        let part = SavedRoundUp(key: identity.weekKey(Week(containing: fixedNow, calendar: Self.calendar)), week: "2026-W47",
                                goalId: 3, goalName: "Dog", amount: Money(minorUnits: 116, currency: .usd),
                                payments: ["a", "b"], startedAt: fixedNow)
        try record.keep(part)
        let attributes = try FileManager.default.attributesOfItem(atPath: record.fileURL.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let text = try String(contentsOf: record.fileURL, encoding: .utf8)
        #expect(!text.contains("secret-token-123"))
        #expect(RoundUpRecordFile(directory: directory, identity: identity).parts(week: "2026-W47") == [part])
        // A damaged record is never replaced: keeping refuses, so nothing is sent.
        try Data("{".utf8).write(to: record.fileURL)
        #expect(throws: RoundUpRecordFile.DamagedRecord.self) { try record.keep(part) }
        // Not a cache file: pruning old caches never removes it.
        #expect(!CacheFiles.isCacheFile(record.fileURL.lastPathComponent))
    }
}

/// The Round-ups tab after a restart: the week saved in the last run shows as saved, and `s`
/// moves nothing.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct SavedWeekScreenTests {
    @Test func aRestartShowsTheWeekAsSaved() async throws {
        let backend = DemoBackend(now: fixedNow)
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: backend), sourceName: "test")
        let record = MemoryRoundUpRecord()
        var capabilities = AppCore.Capabilities()
        capabilities.roundUpSaver = RoundUpSaver(identity: SaveIdentity(source: "test", account: ""), record: record)

        let first = AppHarness(api: api, capabilities: capabilities)
        _ = await first.start()
        // Last week: a week is saved once it is over.
        _ = await first.press(.char("3"), .char("["))
        let amount = try #require(first.core.roundUps.unsavedTotal)
        #expect(amount.minorUnits > 0)
        _ = await first.press(.char("s"), .char("j"), .enter, .enter)
        #expect(first.terminal.lines.contains { $0.contains("✓ Saved \(amount.formatted) into Dog: its balance is now") })
        #expect(api.transferIds.count == 1)

        // A new run over the same record.
        let second = AppHarness(api: api, capabilities: capabilities)
        _ = await second.start()
        let lines = await second.press(.char("3"), .char("["))
        #expect(lines.contains { $0.contains("✓ Saved \(amount.formatted) into Dog on Wed 18 Nov 2026:") }, "\(lines.joined(separator: "\n"))")
        #expect(!lines.contains { $0.contains("s: save into a goal") })
        let after = await second.press(.char("s"))
        #expect(second.core.overlays.isEmpty)
        #expect(after.last?.contains("Already saved: \(amount.formatted) into Dog on ") == true, "\(after.last ?? "")")
        #expect(api.transferIds.count == 1)
    }
}
