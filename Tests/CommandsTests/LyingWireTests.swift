import BunqClient
import BunqSource
import Commands
import DemoData
import DemoServer
import FeedCache
import FeedModel
import Foundation
import HTTPTransport
import MonzoClient
import MonzoSource
import QapitalClient
import StarlingClient
import StarlingSource
import Testing
import TestSupport

/// Issue 46: money moves once even when the wire lies. Every source that moves money runs
/// `roundups --save` (`RoundUpsCommands.save`, the saver and the record the binary uses) through
/// a `FaultProxy` whose faults come from a seeded schedule, run after run as a timer would, then
/// once over a clean wire. Checked for every schedule:
///
/// - no copy sent by the transport: each state-changing request the proxy read is one the app
///   chose to send (one line of its `--log-file` each);
/// - the week moved exactly once: the goal grew by the week's round-ups, not twice that, not zero;
/// - the record stays readable, and ends with the week saved;
/// - the words were true: a run that said it moved the money moved it; one that said nothing
///   moved, or that it was already saved, moved nothing.
///
/// Serialized: one schedule at a time keeps a core for the rest of the suite on a 2-core machine.
@Suite(.serialized, .timeLimit(.minutes(5))) struct LyingWireTests {
    /// A source under test: its look-alike, and its client through a given base URL.
    struct Source: Sendable {
        let kind: String
        let currency: Currency
        /// The look-alike's handler, and the path under the server's root its API lives at.
        let serve: @Sendable () throws -> (any ServeHandler, path: String)
        /// The client at `url` (the proxy's or the server's), logging its requests to `log`.
        let connect: @Sendable (URL, RequestLog?, URL) async throws -> any SavingsAPI

        static let qapital = Source(kind: "qapital", currency: .usd,
                                    serve: { (DemoAPIHandler(backend: DemoBackend(now: fixedNow)), "") },
                                    connect: { url, log, _ in QapitalHTTPAPI(baseURL: url, log: log) })
        static let starling = Source(kind: "starling", currency: .gbp,
                                     serve: { (StarlingDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: .gbp))), "") },
                                     connect: { url, log, _ in
                                         try await StarlingAPI.connect(baseURL: url, token: StarlingDemoAPI.testToken, log: log, now: { fixedNow })
                                     })
        static let monzo = Source(kind: "monzo", currency: .gbp,
                                  serve: { (MonzoDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: .gbp)), clock: { fixedNow }), "") },
                                  connect: { url, log, _ in
                                      try await MonzoAPI.connect(baseURL: url, token: MonzoDemoAPI.testToken, log: log, now: { fixedNow })
                                  })
        static let bunq = Source(kind: "bunq", currency: .eur,
                                 serve: {
                                     (try BunqDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: .eur)),
                                                      options: .init(rateLimits: false), clock: { fixedNow }), "/v1")
                                 },
                                 connect: { url, log, context in
                                     try await BunqAPI.connect(baseURL: url, apiKey: BunqDemoAPI.testKey, contextDirectory: context, log: log,
                                                               pacing: false, now: { fixedNow }, sleep: { _ in })
                                 })
    }

    /// A source's look-alike behind a `FaultProxy` running `script`, with a folder of its own
    /// (removed after): what each test here starts from.
    struct Wire {
        /// The look-alike's API, straight and through the proxy.
        let direct: URL
        let through: URL
        let proxy: FaultProxy
        let folder: URL
        /// The app's `--log-file`: one line per request it chose to send.
        var logPath: String { folder.appendingPathComponent("requests.log").path }

        /// No copy sent by the transport: every request of `methods` the proxy read is one the app logged.
        func expectNoCopies(_ methods: [String] = ["POST", "PUT", "PATCH", "DELETE"], story: String) throws {
            let sent = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").map { line in
                line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            }
            for method in methods {
                let read = proxy.requests.filter { $0.request.method == method }.count
                #expect(read == sent.filter { $0 == method }.count,
                        "\(method): the proxy read \(read), the app sent \(sent.filter { $0 == method }.count): \(story)")
            }
        }
    }

    static func withWire(_ source: Source, _ name: String, isolation: isolated (any Actor)? = #isolation,
                         script: @escaping @Sendable (FaultProxy.Request) -> FaultProxy.Fault,
                         _ body: (Wire) async throws -> Void) async throws {
        let (handler, path) = try source.serve()
        let server = try DemoHTTPServer(handler: handler)
        try await server.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wire-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let base = await server.baseURL
        let proxy = try FaultProxy(upstreamPort: UInt16(base.port ?? 0), script: script)
        defer {
            proxy.stop()
            try? FileManager.default.removeItem(at: folder)
        }
        do {
            try await body(Wire(direct: URL(string: base.absoluteString + path)!, through: URL(string: proxy.url + path)!,
                                proxy: proxy, folder: folder))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    static func source(_ kind: String) -> Source {
        switch kind {
        case "starling": .starling
        case "monzo": .monzo
        case "bunq": .bunq
        default: .qapital
        }
    }

    /// Schedules per source in `swift test`; `Fuzz/wire.sh` runs more (`QT_WIRE_SCHEDULES`).
    static let schedules = UInt64(ProcessInfo.processInfo.environment["QT_WIRE_SCHEDULES"] ?? "") ?? 50
    /// The first seed (`QT_WIRE_SEED`), so a longer run can go past the ones `swift test` tries.
    static let firstSeed = UInt64(ProcessInfo.processInfo.environment["QT_WIRE_SEED"] ?? "") ?? 1

    @Test(arguments: ["qapital", "starling", "monzo", "bunq"])
    func everyScheduleMovesTheWeekOnceAndSaysSoTruly(kind: String) async throws {
        // bunq's handshake makes RSA keys for every schedule: half as many of its.
        let count = kind == "bunq" ? max(1, Self.schedules / 2) : Self.schedules
        for seed in Self.firstSeed..<(Self.firstSeed + count) {
            try await Self.run(Self.source(kind), seed: seed)
        }
    }

    /// The reused-connection case, for each source: reads leave a kept-alive connection, and the
    /// connection of the first state-changing request of the save dies after the server read it.
    /// The transport sends no copy: the only second request is the saver's own check, which the
    /// run says found the money moved, once.
    @Test(arguments: ["qapital", "starling", "monzo", "bunq"])
    func aSaveWhoseConnectionDiesIsCheckedNotResent(kind: String) async throws {
        let source = Self.source(kind)
        let dropped = Locked(false)
        // bunq's handshake is a POST too: only the payment (the first after the session) is dropped.
        let script: @Sendable (FaultProxy.Request) -> FaultProxy.Fault = { request in
            guard request.method != "GET",
                  !["/installation", "/device-server", "/session-server"].contains(where: request.target.hasSuffix) else { return .pass }
            return dropped.withLock { done in
                defer { done = true }
                return done ? .pass : .dropAfterRequest
            }
        }
        try await Self.withWire(source, "dies-\(kind)", script: script) { wire in
            let api = try await source.connect(wire.through, try RequestLog(path: wire.logPath), wire.folder.appendingPathComponent("bunq"))
            let goal = try #require(try await api.goals().first { $0.status == .active })
            let identity = SaveIdentity(source: "\(kind) dies", account: "")
            let record = MemoryRoundUpRecord()
            let (command, out) = commandContext(api, format: .table, kind: kind, currency: source.currency,
                                                saver: RoundUpSaver(identity: identity, record: record))
            try await RoundUpsCommands.save(command, week: try command.week("last"), goal: goal.name, dryRun: false, yes: true) { _ in nil }
            #expect(out.value.hasPrefix("saved "), "\(out.value)")
            #expect(out.value.contains("(its first answer was lost; checking found it moved once)") || kind == "bunq", "\(out.value)")
            #expect(dropped.withLock { $0 })
            try wire.expectNoCopies(story: "\(wire.proxy.requests.map { "\($0.request.method) \($0.request.target) \($0.fault)" })")
            // The dropped request came after a read on a connection kept alive.
            #expect(wire.proxy.requests.contains { $0.request.requestOnConnection > 0 })
        }
    }

    /// The Round-ups tab's path (`RoundUpStore`, the same saver) under the same schedules: `s`
    /// pressed again while the tab says it failed or may have moved, as a user would, then once
    /// over a clean wire. The week moves once; a tab that said "Saved" had moved it, one that
    /// said "failed" (nothing moved) had not.
    @Test(arguments: ["qapital", "starling", "monzo", "bunq"])
    func theTabsSaveMovesTheWeekOnceAndSaysSoTruly(kind: String) async throws {
        let count = kind == "bunq" ? max(1, Self.schedules / 5) : max(1, Self.schedules / 2)
        for seed in Self.firstSeed..<(Self.firstSeed + count) {
            try await Self.saveInTheTab(Self.source(kind), seed: seed + 1_000)
        }
    }

    @MainActor
    static func saveInTheTab(_ source: Source, seed: UInt64) async throws {
        let schedule = Schedule(seed: seed)
        try await withWire(source, "tab-\(source.kind)-\(seed)", script: { schedule.fault(for: $0) }) { wire in
            let folder = wire.folder
            let clean = try await source.connect(wire.direct, nil, folder.appendingPathComponent("bunq-clean"))
            let target = try #require(try await clean.goals().first { $0.status == .active })
            func balance() async throws -> Money { try #require(try await clean.goals().first { $0.id == target.id }).balance }
            let calendar = Week.calendar(in: TimeZone(identifier: "Europe/London")!)
            let week = Week(containing: fixedNow, calendar: calendar).previous
            let total = RoundUp.Summary(transactions: try await clean.transactions(from: week.start, to: week.end).filter { week.contains($0.timestamp) },
                                        accountCurrency: source.currency, step: nil).saveable
            let start = try await balance()
            let identity = SaveIdentity(source: "\(source.kind) tab", account: "")
            let record = MemoryRoundUpRecord()
            var story: [String] = []
            // The app keeps one connection (bunq: one session) for the run.
            var connected: (any SavingsAPI)?
            for attempt in 0..<6 {
                if attempt >= 4 { schedule.heal() }
                if connected == nil { connected = try? await source.connect(wire.through, nil, folder.appendingPathComponent("bunq")) }
                guard let api = connected else {
                    story.append("attempt \(attempt): no connection")
                    continue
                }
                let probe = EventProbe<StoreEvent>()
                let goals = GoalStore(api: api, events: probe.sink)
                goals.load()
                #expect(await probe.wait { goals.status != .loading })
                let store = RoundUpStore(api: api, goals: goals, accountCurrency: source.currency, calendar: calendar, now: { fixedNow },
                                         events: probe.sink, saver: RoundUpSaver(identity: identity, record: record))
                store.showPreviousWeek()
                #expect(await probe.wait { !store.status.isLoading })
                let before = try await balance()
                if store.progress?.pending != nil {
                    #expect(store.retryTransfer())
                } else {
                    do { try store.save(into: goals.goal(id: target.id) ?? target) } catch let problem as RoundUpStore.SaveProblem {
                        story.append("attempt \(attempt): \(problem)")
                        if case .alreadySaved = problem { break }
                        continue
                    }
                }
                #expect(await probe.wait { store.transfer?.isSending == false })
                let moved = (try await balance() - before).minorUnits
                let phase = store.transfer?.phase
                story.append("attempt \(attempt): moved \(moved): \(String(describing: phase))")
                switch phase {
                // Saved: it has moved (now, or by an earlier attempt whose answer was lost).
                case .succeeded?: #expect(try await balance() - start == total, "said saved: \(story)")
                case .failed?: #expect(moved == 0, "said failed (nothing moved), moved: \(story)")
                case .savedElsewhere?: #expect(moved == 0, "said saved elsewhere, moved: \(story)")
                default: break
                }
                if case .succeeded? = phase { break }
                if case .savedElsewhere? = phase { break }
            }
            let grew = try await balance() - start
            #expect(grew == total, "seed \(seed), \(source.kind): the week moved \(grew.formatted), not \(total.formatted) once: \(story)")
        }
    }

    /// Creating a goal has no key on any source: under generated faults, the creator looks after
    /// a lost answer and never sends again by itself; the user presses Enter again only when it
    /// says no goal was made. In the end exactly one goal of the name exists, and every word was true.
    @Test(arguments: ["qapital", "starling", "bunq"])
    func everyScheduleCreatesTheGoalOnce(kind: String) async throws {
        for seed in Self.firstSeed..<(Self.firstSeed + Self.schedules / 2) {
            try await Self.create(Self.source(kind), seed: seed)
        }
    }

    /// Not a name the demo's goals have.
    nonisolated static let goalName = "Bike 46"

    @MainActor
    static func create(_ source: Source, seed: UInt64) async throws {
        let schedule = Schedule(seed: seed)
        try await withWire(source, "goal-\(source.kind)-\(seed)", script: { schedule.fault(for: $0) }) { wire in
            let folder = wire.folder
            let clean = try await source.connect(wire.direct, nil, folder.appendingPathComponent("bunq-clean"))
            func made() async throws -> Int { try await clean.goals().filter { $0.name == Self.goalName }.count }
            let log = try RequestLog(path: wire.logPath)
            var story: [String] = []
            var created = false
            for attempt in 0..<6 where !created {
                if attempt >= 4 { schedule.heal() }
                let api: any SavingsAPI
                do {
                    api = try await source.connect(wire.through, log, folder.appendingPathComponent("bunq"))
                } catch {
                    story.append("attempt \(attempt): no connection: \(error)")
                    continue
                }
                let probe = EventProbe<StoreEvent>()
                let goals = GoalStore(api: api, events: probe.sink)
                goals.load()
                #expect(await probe.wait { goals.status != .loading })
                let creator = GoalCreator(api: api, goals: goals, events: probe.sink)
                creator.create(NewGoal(name: Self.goalName, target: nil))
                #expect(await probe.wait { !creator.isBusy })
                let count = try await made()
                story.append("attempt \(attempt): \(creator.phase), \(count) on the server")
                switch creator.phase {
                case .created:
                    #expect(count == 1, "created, but \(count) on the server: \(story)")
                    created = true
                case .failed(let message) where message.contains("No goal “\(Self.goalName)” was made"):
                    #expect(count == 0, "said none was made: \(story)")
                case .failed(let message):
                    // Any other failure: the user looks (r) before making it again; once one exists, stop.
                    if count > 0 { created = true } else { #expect(!message.isEmpty) }
                default:
                    Issue.record("still busy: \(story)")
                }
            }
            #expect(try await made() == 1, "seed \(seed), \(source.kind): \(story)")
            try wire.expectNoCopies(story: "seed \(seed), \(source.kind): \(story)")
        }
    }

    /// What the proxy does to a state-changing request, and (rarely) to a read.
    static let breaking: [FaultProxy.Fault] = [
        .dropBeforeForwarding, .dropAfterRequest, .dropMidHead, .dropAfterHead, .truncateBody, .reset,
        .delay(milliseconds: 3), .drip(microsecondsPerByte: 20),
    ]

    /// A schedule: for each request, from a seeded stream, whether and how it breaks, while `faulty`.
    final class Schedule: Sendable {
        private let state: Locked<(random: SeededRandom, faulty: Bool)>
        init(seed: UInt64) { state = Locked((SeededRandom(seed: seed), true)) }

        func fault(for request: FaultProxy.Request) -> FaultProxy.Fault {
            state.withLock { state in
                guard state.faulty else { return .pass }
                let changes = request.method != "GET"
                // Reads break rarely (a look that fails is part of the story), writes often.
                let odds = changes ? 0.6 : 0.08
                guard Double.random(in: 0..<1, using: &state.random) < odds else { return .pass }
                return LyingWireTests.breaking[Int.random(in: 0..<LyingWireTests.breaking.count, using: &state.random)]
            }
        }

        func heal() { state.withLock { $0.faulty = false } }
        var isHealed: Bool { state.withLock { !$0.faulty } }
    }

    /// One schedule against one source: faulty runs until one ends the week, then a clean one.
    static func run(_ source: Source, seed: UInt64, faultyRuns: Int = 4) async throws {
        let schedule = Schedule(seed: seed)
        try await withWire(source, "\(source.kind)-\(seed)", script: { schedule.fault(for: $0) }) { wire in
            try await check(source, wire: wire, schedule: schedule, seed: seed, faultyRuns: faultyRuns)
        }
    }

    private static func check(_ source: Source, wire: Wire, schedule: Schedule, seed: UInt64, faultyRuns: Int) async throws {
        let (direct, through, folder, logPath) = (wire.direct, wire.through, wire.folder, wire.logPath)
        let log = try RequestLog(path: logPath)
        // bunq's context (its session) is kept between runs, as the binary keeps it.
        let bunqContext = folder.appendingPathComponent("bunq")
        let clean = try await source.connect(direct, nil, folder.appendingPathComponent("bunq-clean"))
        let goal = try #require(try await clean.goals().first { $0.status == .active })
        func balance() async throws -> Money { try #require(try await clean.goals().first { $0.id == goal.id }).balance }
        let identity = SaveIdentity(source: "\(source.kind) wire", account: "")
        let recordFolder = folder.appendingPathComponent("record")
        try FileManager.default.createDirectory(at: recordFolder, withIntermediateDirectories: true)
        let start = try await balance()
        // The week's round-ups as the clean wire reads them: what must move, once.
        let week = try commandContext(clean, format: .table).0.week("last")
        let total = RoundUp.Summary(transactions: try await clean.transactions(from: week.start, to: week.end).filter { week.contains($0.timestamp) },
                                    accountCurrency: source.currency, step: nil).saveable
        var runs: [String] = []
        var ended = false

        for run in 0...faultyRuns {
            if run == faultyRuns || ended { schedule.heal() }
            let before = try await balance()
            let said: String
            do {
                let api = try await source.connect(through, log, bunqContext)
                let saver = RoundUpSaver(identity: identity, record: RoundUpRecordFile(directory: recordFolder, identity: identity))
                let (command, out) = commandContext(api, format: .table, kind: source.kind, currency: source.currency, saver: saver)
                try await RoundUpsCommands.save(command, week: week, goal: goal.name, dryRun: false, yes: true) { _ in nil }
                said = out.value
            } catch let failure as CommandFailure {
                said = "failed: " + failure.message
            } catch {
                said = "failed: \(error)"
            }
            let after = try await balance()
            let moved = (after - before).minorUnits
            runs.append("run \(run): moved \(moved): \(said)")
            let story = "seed \(seed), \(source.kind):\n" + runs.joined(separator: "\n")
            // The words are true.
            if said.hasPrefix("saved "), said.contains("its balance is now") {
                #expect(moved > 0, "said it moved, moved nothing: \(story)")
            }
            if said.contains("nothing moved") || said.hasPrefix("already saved") || said.hasPrefix("failed: not saved") {
                #expect(moved == 0, "said nothing moved, moved: \(story)")
            }
            #expect(!said.contains("saved twice"), "\(story)")
            // The record is readable after every run, whatever happened to the wire.
            let parts = RoundUpRecordFile(directory: recordFolder, identity: identity).parts(week: week.isoLabel)
            #expect(parts.count <= 1, "\(story)")
            if said.hasPrefix("saved ") || said.hasPrefix("already saved") { ended = true }
            if ended && schedule.isHealed { break }
        }
        let context = "seed \(seed), \(source.kind):\n" + runs.joined(separator: "\n")
        // Exactly once, in the end.
        #expect(total.minorUnits > 0)
        let grew = try await balance() - start
        #expect(grew == total, "the week moved \(grew.formatted), not \(total.formatted) once: \(context)")
        let parts = RoundUpRecordFile(directory: recordFolder, identity: identity).parts(week: week.isoLabel)
        #expect(parts.map(\.state) == [.saved] || parts.map(\.state) == [.savedElsewhere], "\(context)")
        // No copy sent by the transport: every state-changing request the proxy read is one the app sent.
        try wire.expectNoCopies(story: context)
    }
}
