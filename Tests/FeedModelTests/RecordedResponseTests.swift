import Foundation
import Testing
@testable import FeedModel

/// Every response the original server really sent decodes, with its quirks.
@Suite struct RecordedResponseTests {
    let decoder = PayloadDecoder()

    @Test func savingsGoals() throws {
        let list = try decoder.decode(GoalList.self, from: try FixtureLoader.data("savingsgoals"), resource: "GET /savingsgoals")
        #expect(list.savingsGoals.count == 8)
        let balloons = try #require(list.savingsGoals.first)
        #expect(balloons.name == "Balloons")
        #expect(balloons.target == Money(minorUnits: 150_000, currency: .usd))
        #expect(balloons.balance.formatted == "$400.00")
        #expect(balloons.connectedUserIds == [2, 3, 4])
        #expect(balloons.status == .active)
        #expect(balloons.imageURL?.host == "static.qapitalapp.net")
        #expect(list.savingsGoals.filter { $0.target == nil }.count == 5)
        let dog = list.savingsGoals[1]
        #expect(dog.connectedUserIds.isEmpty)
        #expect(dog.progress == nil)
        #expect(list.savingsGoals[2].progress == 1.0)
    }

    @Test func goalFeed() throws {
        let feed = try decoder.decode(GoalFeed.self, from: try FixtureLoader.data("savingsgoals_1_feed"), resource: "GET /savingsgoals/1/feed").feed
        #expect(feed.count == 8)
        #expect(feed[0].savingsRuleId == nil)
        #expect(feed[0].amount.formatted == "$10.00")
        #expect(feed[1].savingsRuleId == 2)
        #expect(feed[4].amount.minorUnits == 1250)
        #expect(feed[3].message.runs == [.init("Johan", bold: true), .init(" made a roundup.")])
        #expect(abs(feed[0].timestamp.timeIntervalSince1970 - 1_425_999_316.025) < 0.0005)
    }

    @Test func savingsRules() throws {
        let rules = try decoder.decode(RuleList.self, from: try FixtureLoader.data("savingsrules"), resource: "GET /savingsrules").savingsRules
        #expect(rules.map(\.kind) == [.roundup, .guiltyPleasure])
        #expect(rules.map(\.kind.label) == ["Round-up", "Guilty pleasure"])
        #expect(rules[1].amount?.formatted == "$4.00")
    }

    @Test func usersAsObjectsAndAsArrayOfOne() throws {
        let all = try JSONDecoder().decode([User].self, from: try FixtureLoader.data("users_all"))
        #expect(all.map(\.displayName) == ["Mikael", "Henrik", "Johan", "Erik", "George", "Daniel"])
        let data = try FixtureLoader.data("users_all")
        let objects = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        for object in objects {
            let single = try JSONSerialization.data(withJSONObject: object)
            let user = try decoder.decode(UserResponse.self, from: single, resource: "GET /users/x").user
            #expect(user.id == object["userId"] as? Int)
        }
        let wrapped = try decoder.decode(UserResponse.self, from: try FixtureLoader.data("users_1_readme_example"), resource: "GET /users/1").user
        #expect(wrapped == User(id: 1, displayName: "Mikael", avatarURL: URL(string: "http://qapital-ios-testtask.herokuapp.com/avatars/mikael.jpg")))
    }

    @Test func activities() throws {
        let page = try decoder.decode(ActivityPage.self, from: try FixtureLoader.data("activities_readme_example"), resource: "GET /activities")
        #expect(page.oldest == Timestamp.parse("2016-05-23T00:00:00+00:00"))
        #expect(page.activities.count == 2)
        #expect(page.activities[1].amount.minorUnits == 32)
        #expect(page.activities[0].message.plainText == "You didn't resist a guilty pleasure at Starbucks.")
        #expect(page.activities[0].message.runs.filter(\.isBold).map(\.text) == ["You", "Starbucks"])
    }

    @Test func achievements() throws {
        let file = try JSONDecoder().decode(AchievementsFile.self, from: try FixtureLoader.data("achievements"))
        #expect(file.title == "Smart Investing")
        #expect(file.achievements.map(\.level) == ["1", "2", "3"])
        #expect(file.achievements.map(\.isLocked) == [false, true, true])
        #expect(file.achievements[0].progress == 10 && file.achievements[0].total == 50)
        #expect(file.skipped.isEmpty)
    }

    /// The Starling example is another API's shape; it only has to fail cleanly as ours:
    /// no records, and a note naming what was skipped.
    @Test func foreignTransactionShapeFailsWithAMessage() throws {
        let data = try FixtureLoader.data("starling_transactions_docs_example")
        let list = try decoder.decode(TransactionList.self, from: data, resource: "GET /transactions")
        #expect(list.transactions.isEmpty)
        let wrongShape = Data(#"{"transactions":[{"id":"1","timestamp":"2020-12-20T11:21:16.323Z","amount":{"currency":"GBP","minorUnits":20},"currency":"GBP"}]}"#.utf8)
        // Each record of the wrong shape is skipped and named; nothing is made up.
        let notes = SkippedRecords()
        let skipped = try PayloadDecoder(skipped: notes).decode(TransactionList.self, from: wrongShape, resource: "GET /transactions")
        #expect(skipped.transactions.isEmpty)
        #expect(notes.drain() == ["GET /transactions: skipped 1 bad record (transactions[0].amount: expected a number (id 1))"])
    }
}
