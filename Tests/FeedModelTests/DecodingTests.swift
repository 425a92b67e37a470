import Foundation
import Testing
@testable import FeedModel

@Suite struct DecodingTests {
    let decoder = PayloadDecoder()

    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws(MalformedPayload) -> T {
        try decoder.decode(type, from: Data(json.utf8), resource: "GET /test")
    }

    @Test func missingKeysAndNullsMeanNone() throws {
        let goal = try decode(Goal.self, #"{"id":9,"name":"Trip","userId":1,"currentBalance":5,"status":"active"}"#)
        #expect(goal.target == nil && goal.imageURL == nil && goal.connectedUserIds.isEmpty)
        let nulls = try decode(Goal.self, #"{"id":9,"name":"Trip","userId":1,"goalImageURL":null,"targetAmount":null,"currentBalance":5,"status":"deleted","connectedUsers":null}"#)
        #expect(nulls.status == .deleted && nulls.connectedUserIds.isEmpty)
        #expect(try decode(GoalList.self, #"{"savingsGoals":null}"#).savingsGoals.isEmpty)
    }

    @Test func transactionsCarryTheirOwnCurrency() throws {
        let list = try decode(TransactionList.self, #"{"transactions":[{"id":"t1","timestamp":"2026-11-20T10:00:00Z","amount":-4.35,"currency":"gbp","counterparty":"Tesco"}]}"#)
        #expect(list.transactions[0].amount == Money(minorUnits: -435, currency: .gbp))
        #expect(list.transactions[0].isMoneyOut)
    }

    @Test(arguments: [
        (#"{"savingsGoals":{"id":1}}"#, "GET /test: malformed JSON (savingsGoals: expected an array"),
        (#"{"savingsGoals":"none"}"#, "GET /test: malformed JSON (savingsGoals: expected"),
        (#"[1, 2]"#, "GET /test: malformed JSON (top level: expected an object"),
        (#"{"savingsGoals":[{"id":1,"#, "GET /test: malformed JSON (top level:"),
    ])
    func malformedPayloadsNameTheResourceAndThePlace(json: String, prefix: String) {
        do {
            _ = try decode(GoalList.self, json)
            Issue.record("expected a failure")
        } catch {
            #expect(error.description.hasPrefix(prefix), "\(error.description)")
        }
    }

    /// Decodes with a notes sink; returns the value and the one note of the answer, if any.
    func decodeNoting<T: Decodable>(_ type: T.Type, _ json: String) throws(MalformedPayload) -> (T, String?) {
        let notes = SkippedRecords()
        let value = try PayloadDecoder(skipped: notes).decode(type, from: Data(json.utf8), resource: "GET /test")
        let drained = notes.drain()
        #expect(drained.count <= 1)
        return (value, drained.first)
    }

    @Test(arguments: [
        (#"{"id":2,"name":"Yacht","currentBalance":1,"targetAmount":1e308}"#,
         "savingsGoals[1].targetAmount: the amount 1e308 cannot be represented (id 2)"),
        (#"{"id":2,"name":"Yacht","currentBalance":-1e-300}"#, "savingsGoals[1].currentBalance: the amount -1e-300 cannot be represented (id 2)"),
        (#"{"id":2,"name":"Yacht","currentBalance":1e20}"#, "savingsGoals[1].currentBalance: amount out of range (id 2)"),
        (#"{"id":2,"name":"Yacht","currentBalance":1,"userId":99999999999999999999}"#,
         "savingsGoals[1]: the number 99999999999999999999 cannot be represented (id 2)"),
        (#"{"id":2,"name":"A","currentBalance":"lots"}"#, "savingsGoals[1].currentBalance: expected a number"),
        (#"{"name":"Nameless"}"#, "savingsGoals[1].id: missing"),
        (#"null"#, "savingsGoals[1]: expected"),
        (#"7"#, "savingsGoals[1]: expected"),
    ])
    func aRecordThatCannotBeReadIsSkippedAndNamedAndTheRestKept(bad: String, reason: String) throws {
        let json = #"{"savingsGoals":[{"id":1,"name":"Bike","currentBalance":5},"# + bad + #",{"id":3,"name":"Trip","currentBalance":7}]}"#
        let (list, note) = try decodeNoting(GoalList.self, json)
        #expect(list.savingsGoals.map(\.id) == [1, 3])
        let text = try #require(note)
        #expect(text.hasPrefix("GET /test: skipped 1 bad record (" + reason), "\(text)")
        #expect(!text.contains("not valid JSON"))
    }

    @Test func everyListSkipsItsBadRecords() throws {
        let (feed, feedNote) = try decodeNoting(GoalFeed.self, #"{"feed":[{"id":"a","timestamp":"2016-10-04T00:00:00Z","amount":1e400,"userId":1},{"id":"b","timestamp":"2016-10-04T00:00:00Z","amount":1,"userId":1}]}"#)
        #expect(feed.feed.map(\.id) == ["b"])
        #expect(feedNote == "GET /test: skipped 1 bad record (feed[0].amount: the amount 1e400 cannot be represented (id a))")
        let (rules, rulesNote) = try decodeNoting(RuleList.self, #"{"savingsRules":[{"id":1,"type":"roundup","amount":1e309},{"id":2,"type":"guilty_pleasure","amount":3}]}"#)
        #expect(rules.savingsRules.map(\.id) == [2])
        #expect(rulesNote?.contains("savingsRules[0].amount") == true)
        let (page, pageNote) = try decodeNoting(ActivityPage.self, #"{"oldest":"2016-01-01T00:00:00Z","activities":[{"message":"a","amount":1,"userId":1,"timestamp":"2016-10-04T00:00:00Z"},{"message":"b","amount":2,"userId":1e999,"timestamp":"2016-10-03T00:00:00Z"},{"message":"c","amount":3,"timestamp":"2016-10-02T00:00:00Z"}]}"#)
        #expect(page.activities.map(\.message.plainText) == ["a"])
        #expect(pageNote == "GET /test: skipped 2 bad records (activities[1]: the number 1e999 cannot be represented (at 2016-10-03T00:00:00Z))")
        let (transactions, transactionsNote) = try decodeNoting(TransactionList.self, #"{"transactions":[{"id":"t1","timestamp":"2026-11-20T10:00:00Z","amount":-4.35,"currency":"xx","counterparty":"Tesco"},{"id":"t2","timestamp":"2026-11-20T10:00:00Z","amount":-1,"currency":"gbp","counterparty":"Co-op"}]}"#)
        #expect(transactions.transactions.map(\.id) == ["t2"])
        #expect(transactionsNote?.contains("transactions[0].currency") == true)
        // Nothing skipped: no note.
        let (_, none) = try decodeNoting(GoalList.self, #"{"savingsGoals":[{"id":1,"name":"A","currentBalance":1}]}"#)
        #expect(none == nil)
    }

    @Test func nestingPastTheLimitIsRefusedBeforeParsing() {
        let deep = String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)
        do {
            _ = try decode(GoalList.self, deep)
            Issue.record("expected a failure")
        } catch {
            #expect(error.description == "GET /test: malformed JSON (top level: nested deeper than 512 levels (at byte 512))")
        }
        // Exactly at the limit: the parser runs (and says what is wrong with the shape).
        let atLimit = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(PayloadDecoder.offsetPastMaxDepth(Data(atLimit.utf8)) == nil)
        // Brackets inside strings (with escaped quotes) do not count; objects do.
        let quoted = #"{"name":"[[[[\"{{{{"}"#
        #expect(PayloadDecoder.offsetPastMaxDepth(Data(quoted.utf8), maxDepth: 1) == nil)
        #expect(PayloadDecoder.offsetPastMaxDepth(Data(#"{"a":{"b":[1]}}"#.utf8), maxDepth: 2) == 10)
    }

    @Test func anAnswerPastTheSizeLimitIsRefusedBeforeParsing() {
        var big = Data(count: PayloadDecoder.maxBytes + 1)
        big[0] = UInt8(ascii: "[")
        do {
            _ = try decoder.decode(GoalList.self, from: big, resource: "GET /test")
            Issue.record("expected a failure")
        } catch {
            #expect(error.description == "GET /test: malformed JSON (top level: the answer is larger than 64 MB)")
        }
    }

    @Test func anUnrepresentableNumberOutsideAListIsNamedNotCalledInvalidJSON() {
        for (json, expected) in [(#"{"id":1,"name":"x","currentBalance":1e308}"#, "GET /test: malformed JSON (currentBalance: the amount 1e308 cannot be represented)"),
                                 (#"{"userId":1e400,"displayName":"x"}"#, "GET /test: malformed JSON (top level: the number 1e400 cannot be represented)")] {
            do {
                if json.hasPrefix(#"{"userId""#) { _ = try decode(UserResponse.self, json) } else { _ = try decode(Goal.self, json) }
                Issue.record("expected a failure")
            } catch {
                #expect(error.description == expected)
            }
        }
    }

    @Test func badTimestampIsNamed() {
        #expect(throws: MalformedPayload.self) {
            try decode(ActivityPage.self, #"{"oldest":"yesterday","activities":[]}"#)
        }
    }

    @Test func bothTimestampFormsParse() throws {
        let fractional = try #require(Timestamp.parse("2015-03-10T14:55:16.025Z"))
        #expect(abs(fractional.timeIntervalSince1970 - 1_425_999_316.025) < 0.0005)
        #expect(Timestamp.parse("2016-10-04T00:00:00+00:00") == Date(timeIntervalSince1970: 1_475_539_200))
        #expect(Timestamp.parse("2016-10-04T02:00:00+02:00") == Date(timeIntervalSince1970: 1_475_539_200))
        #expect(Timestamp.parse("2016-10-04") == nil)
        #expect(Timestamp.queryString(Date(timeIntervalSince1970: 1_475_539_200)) == "2016-10-04T00:00:00+00:00")
    }

    @Test func achievementsSkipABadEntryAndSortByLevel() throws {
        let json = #"{"overview":{"title":"T"},"achievements":[{"id":1,"level":"10","progress":1,"total":2,"accessible":true},{"id":2,"level":"two","progress":0,"total":5},{"id":3,"level":"2","total":5},{"id":4,"level":3,"progress":0,"total":5,"accessible":false}]}"#
        let file = try JSONDecoder().decode(AchievementsFile.self, from: Data(json.utf8))
        #expect(file.achievements.map(\.id) == [4, 1])
        #expect(file.skipped.count == 2)
        #expect(file.skipped[0].hasPrefix("achievements[1]"))
        #expect(file.skipped[1].contains("progress"))
        let empty = try JSONDecoder().decode(AchievementsFile.self, from: Data(#"{"overview":{"title":"T"},"achievements":[]}"#.utf8))
        #expect(empty.achievements.isEmpty)
    }

    @Test func namesAreSanitizedOnTheWayIn() throws {
        let goal = try decode(Goal.self, #"{"id":1,"name":"Evil\u001b]0;pwned\u0007 goal\u001b[2J","currentBalance":1}"#)
        #expect(goal.name == "Evil goal")
        let user = try decode(UserResponse.self, #"{"userId":2,"displayName":"Bob\u009b31m\tSmith"}"#).user
        #expect(user.displayName == "Bob Smith")
    }

    @Test func bidiControlsAreRemovedFromNamesMessagesAndCounterparties() throws {
        let goal = try decode(Goal.self, #"{"id":1,"name":"Rent \u202e00.001$\u202c","currentBalance":1}"#)
        #expect(goal.name == "Rent 00.001$")
        let user = try decode(UserResponse.self, #"{"userId":2,"displayName":"\u2067Eve\u2069\u200b"}"#).user
        #expect(user.displayName == "Eve")
        let page = try decode(ActivityPage.self, #"{"oldest":"2026-01-01T00:00:00Z","activities":[{"message":"<strong>\u202dMe\u202c</strong> saved\u2066 $5\u2069","amount":5,"userId":1,"timestamp":"2026-02-01T00:00:00Z"}]}"#)
        #expect(page.activities[0].message.plainText == "Me saved $5")
        let list = try decode(TransactionList.self, #"{"transactions":[{"id":"t1","timestamp":"2026-11-20T10:00:00Z","amount":-4.35,"currency":"gbp","counterparty":"Tes\u200fco\u061c"}]}"#)
        #expect(list.transactions[0].counterparty == "Tesco")
    }

    @Test func roundTripThroughOurEncoder() throws {
        let goal = Goal(id: 3, name: "Bike", ownerId: 1, target: Money(minorUnits: 50_000, currency: .usd),
                        balance: Money(minorUnits: 12_345, currency: .usd), connectedUserIds: [2])
        let data = try JSONEncoder().encode(GoalList(savingsGoals: [goal]))
        #expect(try decoder.decode(GoalList.self, from: data, resource: "x").savingsGoals == [goal])
    }

    /// A goal's own colour survives the offline cache (our encoder and back); a value that is not
    /// one of the known tints, or not text, is no tint and the goal still reads.
    @Test func aGoalsTintRoundTripsAndAnUnknownOneIsNone() throws {
        let goal = Goal(id: 4, name: "Pot", ownerId: 1, target: nil, balance: .zero(.gbp), tint: .pink)
        let data = try JSONEncoder().encode(GoalList(savingsGoals: [goal]))
        #expect(try PayloadDecoder(accountCurrency: .gbp).decode(GoalList.self, from: data, resource: "x").savingsGoals.first?.tint == .pink)
        for tint in [#""red\u001b[0m""#, #""PINK""#, "7", "null", #"{"r": 1}"#] {
            let json = #"{"savingsGoals": [{"id": 5, "name": "Odd", "currentBalance": 1, "tint": "# + tint + #"}]}"#
            let goals = try decoder.decode(GoalList.self, from: Data(json.utf8), resource: "x").savingsGoals
            #expect(goals.count == 1 && goals.first?.tint == nil, "\(tint)")
        }
    }
}

@Suite struct AchievementsLoaderTests {
    @Test func aMissingFileSaysSo() {
        do {
            _ = try AchievementsLoader.load(contentsOf: URL(fileURLWithPath: "/nonexistent/achievements.json"))
            Issue.record("expected a failure")
        } catch {
            #expect(error.message == "cannot read the achievements file /nonexistent/achievements.json: no such file")
        }
    }

    @Test(arguments: [
        (#"{"overview":{"title":"T"}}"#, "achievements.json: malformed JSON (achievements: missing)"),
        (#"not json"#, "achievements.json: malformed JSON (top level:"),
        (#"{"overview":{"title":"T"},"achievements":{}}"#, "achievements.json: malformed JSON (achievements: expected"),
    ])
    func aMalformedFileNamesWhatIsWrong(json: String, prefix: String) {
        do {
            _ = try AchievementsLoader.decode(Data(json.utf8), name: "achievements.json")
            Issue.record("expected a failure")
        } catch {
            #expect(error.message.hasPrefix(prefix), "\(error.message)")
        }
    }

    @Test func brokenEntriesAreSkippedWithANote() throws {
        let json = #"{"overview":{"title":"T"},"achievements":[{"id":1,"level":"1","total":50,"accessible":true},{"id":2,"level":"2","progress":0,"total":50,"accessible":false}]}"#
        let file = try AchievementsLoader.decode(Data(json.utf8), name: "a.json")
        #expect(file.achievements.map(\.id) == [2])
        #expect(AchievementsLoader.skippedNote(file) == "achievements: skipped 1 bad entry (achievements[0].progress: missing)")
    }
}

@Suite struct MalformedPayloadTests {
    @Test func whatTheServerSentIsCleanedInTheMessage() {
        do {
            _ = try PayloadDecoder().decode(ActivityPage.self, from: Data(#"{"oldest":"\u001b[2J\u001b]0;x\u0007bad","activities":[]}"#.utf8),
                                            resource: "GET /activities")
            Issue.record("expected a failure")
        } catch {
            #expect(error.description.contains("not a timestamp"))
            #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
            #expect(!error.description.contains("[2J"))
        }
    }
}
