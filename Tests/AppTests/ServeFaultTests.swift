import DemoServer
import FeedModel
import Foundation
import QapitalClient
import Testing
import TestSupport
@testable import QapitalApp

/// A faulty server's answer as the app shows it (the client's side: QapitalClientTests' `ServeFaultTests`).
@Suite struct ServeFaultTests {
    @Test func aGoalThatCannotBeMoneyIsSkippedAndNamedInTheStatusBar() async throws {
        let goals = #"{"savingsGoals":[{"id":1,"name":"Bike","currentBalance":5,"targetAmount":10},"#
            + #"{"id":2,"name":"Yacht","currentBalance":1,"targetAmount":1e308},{"id":3,"name":"Trip","currentBalance":7}]}"#
        let oldest = Timestamp.queryString(fixedNow.addingTimeInterval(-86_400))
        let handler = RoutedHandler(routes: [
            ("/savingsgoals/", #"{"feed":[]}"#), ("/savingsgoals", goals), ("/savingsrules", #"{"savingsRules":[]}"#),
            ("/activities", #"{"oldest":"\#(oldest)","activities":[]}"#),
        ])
        try await withServer(handler: handler) { _, api in
            try await ServeFaultTests.showSkippedGoal(api: api)
        }
    }

    @MainActor
    static func showSkippedGoal(api: QapitalHTTPAPI) async throws {
        let app = AppHarness(api: api, width: 160, height: 20, capabilities: AppCore.Capabilities(skippedRecords: api.skippedRecords))
        let lines = await app.start()
        #expect(lines.contains { $0.contains("Bike") })
        #expect(lines.contains { $0.contains("Trip") })
        #expect(!lines.contains { $0.contains("Yacht") })
        let status = try #require(lines.last)
        #expect(status.contains("GET /savingsgoals: skipped 1 bad record (savingsGoals[1].targetAmount: the amount 1e308 cannot be represented (id 2))"),
                "\(status)")
        #expect(!lines.joined().contains("not valid JSON"))
    }
}
