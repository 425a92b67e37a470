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
            let api = QapitalHTTPAPI(baseURL: await server.baseURL, token: Self.token, timeout: serverAnswerTimeout, log: log)
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

    /// Every request has its line, the Qapital source's pictures too; what is not secret (an
    /// address and its port) is written as it is.
    @Test func picturesAreLoggedAndAddressesAreNotScrubbed() async throws {
        let path = logFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let log = try RequestLog(path: path)
        var origin = ""
        try await withDemoServer { server, _ in
            let base = await server.baseURL
            origin = "127.0.0.1:\(base.port ?? 0)"
            let api = QapitalHTTPAPI(baseURL: base, token: Self.token, timeout: serverAnswerTimeout, log: log)
            let goal = try #require(try await api.goals().first { $0.imageURL != nil })
            let picture = try #require(goal.imageURL)
            _ = try await api.imageData(at: picture)
            await #expect(throws: APIError.self) { _ = try await api.imageData(at: base.appendingPathComponent("images/goals/none.png")) }
        }
        let unreachable = QapitalHTTPAPI(baseURL: URL(string: "http://127.0.0.1:1")!, token: Self.token, timeout: 2, log: log)
        await #expect(throws: (any Error).self) { _ = try await unreachable.imageData(at: URL(string: "http://127.0.0.1:1/a.png?size=48")!) }
        log.note("error: GET /savingsgoals: cannot connect to 10.0.0.12:8080")

        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("GET http://\(origin)/images/goals/") && $0.contains(".png 200 ") }, "\(text)")
        #expect(lines.contains { $0.contains("GET http://\(origin)/images/goals/none.png 404 ") }, "\(text)")
        #expect(lines.contains { $0.contains("GET http://127.0.0.1:1/a.png?size=… failed: ") }, "\(text)")
        #expect(lines.contains { $0.hasSuffix("error: GET /savingsgoals: cannot connect to 10.0.0.12:8080") }, "\(text)")
        #expect(!text.contains(Self.token))
        // Amounts are still left out.
        #expect(RequestLog.redacted("HTTP 422: $1,250.50 or 12.5 GBP, from 192.168.1.20") == "HTTP 422: … or … GBP, from 192.168.1.20")
    }

    @Test func anUnwritableLogFileIsAOneLineStartError() {
        #expect(throws: RequestLog.Failure.self) { _ = try RequestLog(path: "/nonexistent-dir/q.log") }
    }
}
