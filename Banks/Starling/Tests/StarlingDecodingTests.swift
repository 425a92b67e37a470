import FeedModel
import Foundation
import HTTPTransport
import Testing
@testable import StarlingClient

enum Fixture {
    static func data(_ name: String) throws -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures") else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
        }
        return try Data(contentsOf: url)
    }
}

/// Every recorded Starling answer (../shared/fixtures/real/starling_*) decodes, and maps onto the model.
@Suite struct StarlingDecodingTests {
    let decoder = PayloadDecoder()

    func account() throws -> Starling.AccountItem {
        let list = try decoder.decode(Starling.AccountList.self, from: try Fixture.data("starling_accounts"), resource: "GET /api/v2/accounts")
        return try #require(list.accounts?.first)
    }

    @Test func accounts() throws {
        let account = try account()
        #expect(account.accountUid == "22222b22-fd4c-45d4-b509-1d6fbbdaf777")
        #expect(account.accountType == "PRIMARY")
        #expect(account.defaultCategory == "717ad742-6545-415f-be3c-30a0cbfe9f4d")
        #expect(account.name == "Personal")
        let api = try StarlingAPI(transport: StarlingAPI.transport(baseURL: StarlingAPI.productionURL, token: "t"), account: account)
        #expect(api.accountCurrency == .gbp)
        #expect(api.accountCurrency.symbol == "£")
        #expect(api.createdAt == Timestamp.parse("2020-10-30T20:32:32.892Z"))
    }

    @Test func feedExample() throws {
        let items = try decoder.decode(Starling.FeedItems.self, from: try Fixture.data("starling_transactions_docs_example"),
                                       resource: "feed").feedItems ?? []
        #expect(items.count == 1)
        let item = try #require(items.first)
        #expect(item.direction == "OUT")
        #expect(item.source == "MASTER_CARD")
        #expect(item.status == "SETTLED")
        #expect(item.roundUp?.amount?.minorUnits == 123_456)

        let activity = try StarlingMapping.activity(item)
        #expect(activity.amount == Money(minorUnits: -20, currency: .gbp))
        #expect(activity.amount.formatted == "−£0.20")
        #expect(activity.message.plainText == "Tesco")
        #expect(activity.timestamp == Timestamp.parse("2020-12-20T11:21:16.323Z"))

        let transaction = try StarlingMapping.transaction(item)
        #expect(transaction.roundsUp)
        #expect(transaction.counterparty == "Tesco")
        #expect(RoundUp.Summary(transactions: [transaction], accountCurrency: .gbp).saveable.minorUnits == 80)

        let saving = try StarlingMapping.goalFeedItem(item)
        #expect(saving.id == "feed1ed0-e776-4966-9a92-b00fd2f43ae3")
        #expect(saving.message.plainText == "Moved to Tesco")
        #expect(!saving.isVoid)

        // Declined or reversed inside a goal's feed: listed with its status, counted in no sum.
        for status in ["DECLINED", "reversed"] {
            var declined = item
            declined.status = status
            let void = try StarlingMapping.goalFeedItem(declined)
            #expect(void.isVoid && void.message.plainText == "Moved to Tesco · \(status.lowercased())")
        }
    }

    @Test func emptyFeed() throws {
        let items = try decoder.decode(Starling.FeedItems.self, from: try Fixture.data("starling_feed_empty"), resource: "feed")
        #expect(items.feedItems?.isEmpty == true)
        // Left out altogether: also empty.
        #expect(try decoder.decode(Starling.FeedItems.self, from: Data("{}".utf8), resource: "feed").feedItems == nil)
    }

    @Test func createGoalRequestAndResponse() throws {
        let request = try JSONDecoder().decode(Starling.CreateGoalRequest.self, from: try Fixture.data("starling_create_goal_request"))
        #expect(request.name == "Round-me-up!")
        #expect(request.currency == "GBP")
        #expect(request.target == Starling.Amount(currency: "GBP", minorUnits: 1000))
        #expect(request.base64EncodedPhoto?.isEmpty == false)
        let response = try decoder.decode(Starling.CreateGoalResponse.self, from: try Fixture.data("starling_create_goal_response"),
                                          resource: "PUT")
        #expect(response.savingsGoalUid == "db7c4049-6ff8-4bf7-aee1-cf441a34f9bd")
        #expect(response.success == true)
        #expect(response.errors?.isEmpty == true)
        // What the client writes has the recorded request's shape.
        let ours = Starling.CreateGoalRequest(name: "Round-me-up!", currency: "GBP", target: Starling.Amount(Money(minorUnits: 1000, currency: .gbp)))
        let written = try JSONSerialization.jsonObject(with: JSONEncoder().encode(ours)) as? [String: Any]
        #expect(Set(written?.keys ?? [:].keys) == ["name", "currency", "target"])
    }

    @Test func addMoneyRequestAndResponse() throws {
        let request = try JSONDecoder().decode(Starling.TopUpRequest.self, from: try Fixture.data("starling_add_money_request"))
        #expect(try request.amount.money("amount") == Money(minorUnits: 50, currency: .gbp))
        let response = try decoder.decode(Starling.TransferResponse.self, from: try Fixture.data("starling_add_money_response"), resource: "PUT")
        #expect(response.transferUid == "d2191626-c67c-4a4b-aef9-3b1b80b65fdc")
        #expect(response.success == true)
    }

    @Test func errorEnvelopes() throws {
        #expect(Starling.serverMessage(try Fixture.data("starling_add_money_error"))
                == "There was an error in the request for savings goal deposit.")
        #expect(Starling.serverMessage(try Fixture.data("starling_error_forbidden"))
                == "There was an error authorising the request, you are forbidden from this resource.")
        let oauth = Data(#"{"error": "invalid_token", "error_description": "Access token has expired\n\u001b[2J"}"#.utf8)
        #expect(Starling.serverMessage(oauth) == "invalid_token: Access token has expired\n\u{1b}[2J")
        #expect(Starling.serverMessage(Data(#"{"success": false, "errors": [{"message": "a"}, {"message": "b"}]}"#.utf8)) == "a; b")
        #expect(Starling.serverMessage(Data("<html>oops</html>".utf8)) == nil)
        #expect(Starling.serverMessage(Data(#"{"success": false, "errors": []}"#.utf8)) == nil)

        // Through the transport's status mapping: one cleaned line, the refusal as `.unauthorized`.
        let rejected = HTTPTransport.statusError(400, label: "PUT /api/v2/account/…/savings-goals/…/add-money/…",
                                                 serverMessage: Starling.serverMessage(try Fixture.data("starling_add_money_error")))
        #expect(rejected.kind == .rejected)
        #expect(rejected.message == "PUT /api/v2/account/…/savings-goals/…/add-money/…: HTTP 400: There was an error in the request for savings goal deposit.")
        let cleaned = HTTPTransport.statusError(400, label: "GET x", serverMessage: Starling.serverMessage(oauth))
        #expect(!cleaned.message.contains("\n") && !cleaned.message.contains("\u{1b}"))
        let forbidden = HTTPTransport.statusError(403, label: "GET /api/v2/accounts",
                                                  serverMessage: Starling.serverMessage(try Fixture.data("starling_error_forbidden")))
        #expect(forbidden.kind == .unauthorized)
        #expect(forbidden.message == "GET /api/v2/accounts: the token was refused (HTTP 403)")
    }

    @Test func goalsMapOntoTheModel() throws {
        let json = """
        {"savingsGoalList": [
          {"savingsGoalUid": "aaaa-1", "name": "Holiday\\u001b[31m", "target": {"currency": "GBP", "minorUnits": 150000},
           "totalSaved": {"currency": "GBP", "minorUnits": 40000}, "savedPercentage": 26, "state": "ACTIVE", "extra": 1},
          {"savingsGoalUid": "aaaa-2", "name": "Old", "totalSaved": {"currency": "GBP", "minorUnits": 0}, "state": "ARCHIVED"},
          {"savingsGoalUid": "aaaa-3"}
        ]}
        """
        let list = try decoder.decode(Starling.SavingsGoalList.self, from: Data(json.utf8), resource: "goals")
        let goals = try (list.savingsGoalList ?? []).map { try StarlingMapping.goal($0, currency: .gbp) }
        #expect(goals.map(\.id) == ["aaaa-1", "aaaa-2", "aaaa-3"])
        #expect(goals[0].name.hasPrefix("Holiday") && !goals[0].name.contains("\u{1b}"))
        #expect(goals[0].target?.formatted == "£1,500.00")
        #expect(goals[0].balance.formatted == "£400.00")
        #expect(goals[0].status == .active)
        #expect(goals[0].imageURL == URL(string: "starling-photo:aaaa-1"))
        #expect(goals[1].status != .active)
        #expect(goals[1].target == nil)
        #expect(goals[2].balance == .zero(.gbp) && goals[2].status == .active)
    }

    @Test func badAmountsAreMalformedWithAPlace() throws {
        let goal = Starling.SavingsGoal(savingsGoalUid: "x", name: "n", target: Starling.Amount(currency: "pounds!", minorUnits: 1),
                                        totalSaved: Starling.Amount(currency: "GBP", minorUnits: 0), savedPercentage: nil, state: "ACTIVE")
        #expect(throws: MalformedPayload.self) { try StarlingMapping.goal(goal, currency: .gbp) }
        // An item without an amount is skipped and named; the items around it are kept.
        let json = #"{"feedItems": [{"feedItemUid": "1", "direction": "OUT", "transactionTime": "2020-12-20T11:21:16.323Z"}, "#
            + #"{"feedItemUid": "2", "direction": "OUT", "transactionTime": "2020-12-20T11:21:16.323Z", "#
            + #""amount": {"currency": "GBP", "minorUnits": 1e30}}]}"#
        let missing = Data(json.utf8)
        let notes = SkippedRecords()
        let items = try PayloadDecoder(accountCurrency: .gbp, skipped: notes).decode(Starling.FeedItems.self, from: missing, resource: "GET feed")
        #expect(items.feedItems?.isEmpty == true)
        #expect(notes.drain() == ["GET feed: skipped 2 bad records (feedItems[0].amount: missing (id 1))"])
    }

    @Test func foreignPaymentShowsWhatWasPaidAndPendingItsStatus() throws {
        let item = Starling.FeedItem(feedItemUid: "f", categoryUid: "c", amount: Starling.Amount(currency: "GBP", minorUnits: 1087),
                                     sourceAmount: Starling.Amount(currency: "EUR", minorUnits: 1250), direction: "OUT",
                                     transactionTime: Date(timeIntervalSince1970: 0), source: "MASTER_CARD", status: "PENDING",
                                     counterPartyType: "MERCHANT", counterPartyName: "Café <b>de</b> Flore", reference: nil,
                                     spendingCategory: "EATING_OUT")
        let activity = try StarlingMapping.activity(item)
        #expect(activity.message.plainText == "Café <b>de</b> Flore · pending · paid €12.50")
        #expect(activity.message.runs.first == .init("Café <b>de</b> Flore", bold: true))
        #expect(activity.amount.formatted == "−£10.87")
        var incoming = item
        incoming.direction = "IN"
        incoming.counterPartyName = nil
        incoming.reference = "SALARY"
        incoming.status = "SETTLED"
        incoming.sourceAmount = Starling.Amount(currency: "GBP", minorUnits: 1087)
        let salary = try StarlingMapping.activity(incoming)
        #expect(salary.amount.formatted == "£10.87")
        #expect(salary.message.plainText == "SALARY")
    }

    @Test func queryTimestampsHaveMillisecondsAndArePercentEncoded() throws {
        let api = try StarlingAPI(transport: StarlingAPI.transport(baseURL: URL(string: "http://127.0.0.1:9")!, token: "t"), account: try account())
        #expect(StarlingAPI.timestamp(Date(timeIntervalSince1970: 1_794_096_000)) == "2026-11-08T00:00:00.000Z")
        let path = StarlingAPI.Path("/api/v2/feed/account/").id(api.primary.accountUid).then("/category/").id("a b/c")
            .then("/transactions-between")
        let url = api.url(for: path, query: [URLQueryItem(name: "minTransactionTimestamp", value: "2026-11-08T00:00:00.000Z")])
        #expect(url.absoluteString == "http://127.0.0.1:9/api/v2/feed/account/22222b22-fd4c-45d4-b509-1d6fbbdaf777/category/a%20b%2Fc/transactions-between?minTransactionTimestamp=2026-11-08T00%3A00%3A00.000Z")
        #expect(path.label("GET") == "GET /api/v2/feed/account/…/category/…/transactions-between")
    }

    @Test func sortCodes() {
        #expect(Account.formatSortCode("608371") == "60-83-71")
        #expect(Account.formatSortCode("60-83-71") == "60-83-71")
        #expect(Account.formatSortCode("12345") == "12345")
        let account = Account(id: "a", name: "Personal", currency: .gbp, createdAt: Date(), holder: "Jane Doe", sortCode: "60-83-71",
                              accountNumber: "12345678", effectiveBalance: Money(minorUnits: 123_456, currency: .gbp))
        #expect(account.summary == "Jane Doe · 60-83-71 12345678 · £1,234.56")
    }
}
