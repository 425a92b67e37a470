@testable import DemoData
import FeedModel
import Foundation
import Synchronization
import TermUI
@testable import QapitalApp
@testable import qapital_tui

/// The app core in memory: keys in, whole screens out, at a fixed size, clock and time zone.
/// It waits for the app to be idle (nothing in flight) instead of sleeping.
@MainActor
final class AppHarness {
    let core: AppCore
    let terminal: TestTerminal
    private var buffer: CellBuffer

    init(api: any SavingsAPI = DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), width: Int = 100, height: Int = 30,
         colors: Bool = false, images: Bool = true, now: Date = fixedNow) {
        core = AppCore(api: api, configuration: .init(sourceName: api.sourceName, colors: colors, timeZone: TimeZone(identifier: "UTC")!,
                                                      images: images, pictureSchemes: ["http", "https", DemoImages.scheme]),
                       now: { now })
        terminal = TestTerminal(width: width, height: height)
        buffer = CellBuffer(width: width, height: height)
    }

    func start() async -> [String] {
        core.start()
        return await screen()
    }

    /// Presses keys one after another, letting the app settle after each.
    @discardableResult
    func press(_ keys: Key...) async -> [String] {
        for key in keys {
            core.handle(.key(key))
            _ = await screen()
        }
        return terminal.lines
    }

    func type(_ text: String) async -> [String] {
        for character in text { await press(.char(character)) }
        return terminal.lines
    }

    func resize(width: Int, height: Int) async -> [String] {
        core.handle(terminal.resize(width: width, height: height))
        buffer = CellBuffer(width: width, height: height)
        return await screen()
    }

    /// Draws, waits until nothing is in flight (drawing may start user look-ups), draws again.
    func screen() async -> [String] {
        for _ in 0..<50 {
            draw()
            if core.isIdle { break }
            await settle()
        }
        draw()
        return terminal.lines
    }

    private func draw() {
        core.render(into: &buffer)
        terminal.present(buffer)
    }

    private func settle() async {
        if core.isIdle { return }
        let (changes, continuation) = AsyncStream<Void>.makeStream()
        core.onChange = { continuation.yield() }
        defer { core.onChange = nil }
        for await _ in changes where core.isIdle { return }
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

/// The demo API, with activities failing while `failing` is set.
final class FlakyActivitiesAPI: SavingsAPI {
    let base: DemoSavingsAPI
    let failing = Mutex(true)
    init(base: DemoSavingsAPI) { self.base = base }

    var sourceName: String { "flaky" }
    func goals() async throws -> [Goal] { try await base.goals() }
    func feed(goalId: GoalID) async throws -> [FeedItem] { try await base.feed(goalId: goalId) }
    func rules() async throws -> [SavingsRule] { try await base.rules() }
    func user(id: Int) async throws -> User { try await base.user(id: id) }
    func activities(from: Date, to: Date) async throws -> ActivityPage {
        if failing.withLock({ $0 }) {
            throw APIError(kind: .http(status: 500), request: "GET /activities", message: "GET /activities: HTTP 500")
        }
        return try await base.activities(from: from, to: to)
    }
    func transactions(from: Date, to: Date) async throws -> [Transaction] { try await base.transactions(from: from, to: to) }
    func createGoal(name: String, target: Money?) async throws -> Goal { try await base.createGoal(name: name, target: target) }
    func transfer(goalId: GoalID, transferId: UUID, amount: Money) async throws -> Goal {
        try await base.transfer(goalId: goalId, transferId: transferId, amount: amount)
    }
}

/// The demo API whose activity history is empty back to the year 1 (an absurd `oldest`).
final class EmptyHistoryAPI: SavingsAPI {
    let base: DemoSavingsAPI
    private let count = Mutex(0)
    init(base: DemoSavingsAPI) { self.base = base }

    var calls: Int { count.withLock { $0 } }
    var sourceName: String { "empty" }
    func goals() async throws -> [Goal] { try await base.goals() }
    func feed(goalId: GoalID) async throws -> [FeedItem] { try await base.feed(goalId: goalId) }
    func rules() async throws -> [SavingsRule] { try await base.rules() }
    func user(id: Int) async throws -> User { try await base.user(id: id) }
    func activities(from: Date, to: Date) async throws -> ActivityPage {
        count.withLock { $0 += 1 }
        return ActivityPage(oldest: Date(timeIntervalSince1970: -62_135_596_800), activities: [])
    }
    func transactions(from: Date, to: Date) async throws -> [Transaction] { try await base.transactions(from: from, to: to) }
    func createGoal(name: String, target: Money?) async throws -> Goal { try await base.createGoal(name: name, target: target) }
    func transfer(goalId: GoalID, transferId: UUID, amount: Money) async throws -> Goal {
        try await base.transfer(goalId: goalId, transferId: transferId, amount: amount)
    }
}
