import Commands
import FeedModel
import Foundation
import Testing
import TestSupport

/// Issue 36, defect 1: every transaction once, by its id; two that look alike are two.
@Suite(.timeLimit(.minutes(1))) struct TransactionIdTests {
    /// Two coffees in one second, as the Qapital API sends them (no ids): two activities.
    static let twoCoffeesJSON = """
    {"oldest": "2026-01-01T00:00:00+00:00", "activities": [
     {"message": "<strong>You</strong> saved into <strong>Dog</strong>.", "amount": 2.50, "userId": 1, "timestamp": "2026-11-10T09:00:00.000+00:00"},
     {"message": "<strong>You</strong> saved into <strong>Dog</strong>.", "amount": 2.50, "userId": 1, "timestamp": "2026-11-10T09:00:00.000+00:00"},
     {"message": "<strong>You</strong> saved into <strong>Dog</strong>.", "amount": 1.00, "userId": 1, "timestamp": "2026-11-09T09:00:00.000+00:00"}
    ]}
    """

    static func apiAnswering(_ json: String) throws -> FakeSavingsAPI {
        let page = try PayloadDecoder(accountCurrency: .usd).decode(ActivityPage.self, from: Data(json.utf8), resource: "test")
        let api = FakeSavingsAPI(base: CommandFormatTests.demo)
        api.script { script in
            script.activities = { from, to in
                ActivityPage(oldest: page.oldest, activities: page.activities.filter { $0.timestamp >= from && $0.timestamp < to })
            }
        }
        return api
    }

    @Test(arguments: [OutputFormat.json, .csv, .ledger, .table])
    func lookAlikeQapitalRowsAreTwoActivities(format: OutputFormat) async throws {
        let api = try Self.apiAnswering(Self.twoCoffeesJSON)
        let (context, _) = commandContext(api, format: format)
        let totals = try await ActivityExport.run(context, kind: .export, since: nil, until: fixedNow, goal: nil)
        #expect(totals.rows == 3)
        #expect(totals.total == Money(minorUnits: 600, currency: .usd))
    }
}

extension TransactionIdTests {
    static func coffee(_ id: String, at date: Date, minor: Int64 = 250) -> Activity {
        Activity(id: id, message: MarkupText(parsing: "<strong>Coffee</strong>"), amount: Money(minorUnits: minor, currency: .usd),
                 userId: 1, timestamp: date, kind: .other)
    }

    /// A bank's two taps in one second (ids of their own), and one id delivered in two windows.
    static func bankAPI() -> FakeSavingsAPI {
        let moment = fixedNow.addingTimeInterval(-3_600)
        let early = fixedNow.addingTimeInterval(-20 * 86_400)
        let api = FakeSavingsAPI(base: CommandFormatTests.demo)
        api.script { script in
            script.activities = { from, to in
                let all = [coffee("tap-1", at: moment), coffee("tap-2", at: moment), coffee("tap-1", at: moment),
                           coffee("twice, id", at: early, minor: 100)]
                // A sloppy server: every answer also repeats the early item, timestamps as asked.
                let inside = all.filter { $0.timestamp >= from && $0.timestamp < to }
                let repeated = inside.contains { $0.id == "twice, id" } ? [] : [coffee("twice, id", at: from, minor: 100)]
                return ActivityPage(oldest: fixedNow.addingTimeInterval(-30 * 86_400), activities: inside + repeated)
            }
        }
        return api
    }

    @Test func everyIdOnceInJSONCSVAndLedger() async throws {
        let expected = ["tap-1", "tap-2", "twice, id"]
        let (json, jsonOut) = commandContext(Self.bankAPI(), format: .json)
        let jsonTotals = try await ActivityExport.run(json, kind: .export, since: nil, until: fixedNow, goal: nil)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(jsonOut.value.utf8)) as? [String: Any])
        let rows = try #require(document["activities"] as? [[String: Any]])
        #expect(rows.compactMap { $0["id"] as? String }.sorted() == expected)
        #expect(jsonTotals.total == Money(minorUnits: 600, currency: .usd))

        let (csv, csvOut) = commandContext(Self.bankAPI(), format: .csv)
        try await ActivityExport.run(csv, kind: .export, since: nil, until: fixedNow, goal: nil)
        let header = try #require(csvOut.lines.first).split(separator: ",").map(String.init)
        #expect(header.last == "id")
        #expect(csvOut.lines.dropFirst().map { line in
            line.hasSuffix("\"") ? String(line[line.range(of: ",\"", options: .backwards)!.upperBound...].dropLast())
                : String(line.split(separator: ",").last!)
        }.sorted() == expected)

        let (ledger, ledgerOut) = commandContext(Self.bankAPI(), format: .ledger)
        try await ActivityExport.run(ledger, kind: .export, since: nil, until: fixedNow, goal: nil)
        let tags = ledgerOut.lines.compactMap { line in line.range(of: ", id: ").map { String(line[$0.upperBound...]) } }
        #expect(tags.sorted() == ["tap-1", "tap-2", "twice%2C%20id"])
    }
}

/// Issue 36, defect 2: money into a goal is credited to the goal the bank names by id.
@Suite(.timeLimit(.minutes(1))) struct GoalCreditTests {
    static let goals = [Goal(id: "saver-1", name: "Holiday", ownerId: 1, imageURL: nil, target: nil, balance: Money(minorUnits: 0, currency: .usd)),
                        Goal(id: "saver-2", name: "Holiday", ownerId: 1, imageURL: nil, target: nil, balance: Money(minorUnits: 0, currency: .usd))]

    static func activity(_ id: String, _ markup: String, kind: Activity.Kind, goal: GoalID? = nil) -> Activity {
        Activity(id: id, message: MarkupText(parsing: markup), amount: Money(minorUnits: kind == .saving ? 500 : -500, currency: .usd),
                 userId: 1, timestamp: fixedNow.addingTimeInterval(-3_600), kind: kind, goalId: goal)
    }

    @Test func theGoalTheBankNamesNotTheFirstWithThatName() {
        let transfer = Self.activity("t", "Saved into <strong>Holiday</strong>", kind: .moveToGoal, goal: "saver-2")
        #expect(GoalMatch.goal(of: transfer, in: Self.goals)?.id == "saver-2")
        // A payment to a shop called Holiday credits no goal; nor does an id that is no goal.
        #expect(GoalMatch.goal(of: Self.activity("p", "<strong>Holiday</strong>", kind: .other), in: Self.goals) == nil)
        #expect(GoalMatch.goal(of: Self.activity("x", "Saved into <strong>Holiday</strong>", kind: .moveToGoal, goal: "gone"), in: Self.goals) == nil)
        // The Qapital API names goals only in its messages: by name there.
        let saving = Self.activity("q", "<strong>You</strong> saved into <strong>Holiday</strong>", kind: .saving)
        #expect(GoalMatch.goal(of: saving, in: Self.goals)?.id == "saver-1")
    }

    @Test func theExportCreditsTheNamedGoal() async throws {
        let api = FakeSavingsAPI(base: CommandFormatTests.demo)
        api.script { script in
            script.goals = { GoalCreditTests.goals }
            script.activities = { from, to in
                let rows = [GoalCreditTests.activity("t", "Saved into <strong>Holiday</strong>", kind: .moveToGoal, goal: "saver-2")]
                return ActivityPage(oldest: fixedNow.addingTimeInterval(-10 * 86_400), activities: rows.filter { $0.timestamp >= from && $0.timestamp < to })
            }
        }
        let (context, out) = commandContext(api, format: .csv, kind: "up")
        try await ActivityExport.run(context, kind: .export, since: nil, until: fixedNow, goal: nil)
        #expect(out.lines.count == 2)
        #expect(out.lines.last?.contains(",Holiday,saver-2,") == true, "\(out.lines)")
    }
}
