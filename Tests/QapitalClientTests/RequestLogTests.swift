import FeedModel
import Foundation
import HTTPTransport
import QapitalClient
import Testing
import TestSupport

/// `--log-file`: a line per request and per failure, never the token, a query value or an amount.
@Suite struct RequestLogTests {
    static let token = "tok-SECRET-123"

    func logFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("qapital-log-\(UUID().uuidString).log").path
    }

    @Test func aLineForEveryRequestAndFailureAndNeverTheTokenOrAnAmount() async throws {
        let path = logFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let log = try RequestLog(path: path)
        try await withDemoServer { server, _ in
            let api = QapitalHTTPAPI(baseURL: await server.baseURL, token: Self.token, timeout: 5, log: log)
            let goals = try await api.goals()
            let goal = try #require(goals.first { $0.balance.minorUnits > 0 })
            let feed = try await api.feed(goalId: goal.id)
            #expect(!feed.isEmpty)
            _ = try await api.activities(from: fixedNow.addingTimeInterval(-14 * 86_400), to: fixedNow)
            await #expect(throws: APIError.self) { _ = try await api.user(id: 987_654) }
        }
        let unreachable = QapitalHTTPAPI(baseURL: URL(string: "http://127.0.0.1:1")!, token: Self.token, timeout: 2, log: log)
        await #expect(throws: (any Error).self) { _ = try await unreachable.goals() }
        log.note("error: POST /transfers: HTTP 422: $1,250.50 is more than £40 or 12.5 GBP")

        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 6, "\(text)")
        #expect(lines.contains { $0.contains("GET /savingsgoals 200 ") && $0.hasSuffix(" ms") })
        #expect(lines.contains { $0.contains("GET /users/987654 404 ") })
        #expect(lines.contains { $0.contains("GET /savingsgoals failed: GET /savingsgoals: ") }, "\(text)")
        let activities = try #require(lines.first { $0.contains("/activities") })
        #expect(activities.contains("?from=…&to=…"), "\(activities)")
        #expect(!text.contains(Self.token) && !text.contains("SECRET"))
        #expect(!text.contains("Bearer"))
        // No amount: not the goal's balance, not any money in the error.
        #expect(text.firstMatch(of: /\d+\.\d\d|[$£€]/) == nil, "\(text)")
    }

    @Test func anUnwritableLogFileIsAOneLineStartError() {
        #expect(throws: RequestLog.Failure.self) { _ = try RequestLog(path: "/nonexistent-dir/q.log") }
    }
}
