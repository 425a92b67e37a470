import FeedModel
import Foundation
@testable import SimpleFINClient
import Testing

@Suite struct SimpleFINBudgetTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simplefin-budget-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The app and a timer's command (two budgets on one file, both opened before either sent
    /// anything) count each other's requests: together they send the day's 24 and no more
    /// without a yes. Before, each counted only its own and the two sent 40.
    @Test func twoProcessesShareOneCount() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("simplefin-requests-abc.json")
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let app = SimpleFINBudget(fileURL: file, now: { now })
        let command = SimpleFINBudget(fileURL: file, now: { now })
        var sent = 0
        for index in 0..<40 {
            do {
                try (index.isMultiple(of: 2) ? app : command).take(label: "GET /accounts", headless: true)
                sent += 1
            } catch {
                #expect(error.request == SimpleFINBudget.label)
            }
        }
        #expect(sent == SimpleFINBudget.daily)
        #expect(SimpleFINBudget.read(file)?.count == SimpleFINBudget.daily)
        #expect(app.usedToday == SimpleFINBudget.daily && command.usedToday == SimpleFINBudget.daily)
    }

    /// A day later the count starts again, whichever process asks.
    @Test func theCountRollsWithTheDay() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("simplefin-requests-abc.json")
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        for _ in 0..<SimpleFINBudget.daily { try SimpleFINBudget(fileURL: file, now: { start }).take(label: "GET /accounts", headless: true) }
        #expect(throws: APIError.self) { try SimpleFINBudget(fileURL: file, now: { start }).take(label: "GET /accounts", headless: true) }
        let later = start.addingTimeInterval(86_401)
        try SimpleFINBudget(fileURL: file, now: { later }).take(label: "GET /accounts", headless: true)
        #expect(SimpleFINBudget.read(file)?.count == 1)
    }
}
