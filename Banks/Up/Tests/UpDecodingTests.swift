import FeedModel
import Foundation
import HTTPTransport
import Testing
@testable import UpClient

enum Fixture {
    static func data(_ name: String) throws -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures") else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
        }
        return try Data(contentsOf: url)
    }
}

let aud = Currency.from(code: "AUD")!

/// The example shapes of Up's documentation (api.up.com.au, v1 openapi.json's examples) decode
/// and map onto the model.
@Suite struct UpDecodingTests {
    let decoder = PayloadDecoder()

    func transaction(_ name: String) throws -> Up.TransactionResource {
        try decoder.decode(Up.SingleDocument<Up.TransactionResource>.self, from: try Fixture.data(name), resource: "GET").data
    }

    @Test func accountsPageWithNextLink() throws {
        let page = try decoder.decode(Up.ListDocument<Up.AccountResource>.self, from: try Fixture.data("up_accounts_page"),
                                      resource: "GET /accounts")
        #expect(page.data.count == 1)
        let spending = try #require(page.data.first)
        #expect(spending.id == "26d88ec4-78d0-443c-a71f-48bcbf1d7a8e")
        #expect(spending.isTransactional && !spending.isSaver && !spending.isJoint)
        #expect(spending.attributes.displayName == "Spending")
        #expect(try spending.attributes.balance.money("balance") == Money(minorUnits: 100, currency: aud))
        #expect(spending.attributes.createdAt == Timestamp.parse("2022-01-13T03:50:14Z"))
        // `links.next` is kept exactly as Up wrote it, to be requested as given.
        #expect(page.links?.next == "https://api.up.com.au/api/v1/accounts?page%5Bafter%5D=WyIyMDIyLTAxLTEzVDAzOjUwOjE0LjUzNzk0NzAwMFoiLCIyNmQ4OGVjNC03OGQwLTQ0M2MtYTcxZi00OGJjYmYxZDdhOGUiXQ%3D%3D&page%5Bsize%5D=1")
        #expect(page.links?.prev == nil)

        let api = try UpAPI(transport: UpAPI.transport(baseURL: UpAPI.productionURL, token: "up:demo:x"), spending: spending)
        #expect(api.accountCurrency == aud && aud.symbol == "A$")
        #expect(api.createdAt == spending.attributes.createdAt)
    }

    @Test func saverIsAGoal() throws {
        let saver = try decoder.decode(Up.SingleDocument<Up.AccountResource>.self, from: try Fixture.data("up_account_saver"),
                                       resource: "GET").data
        #expect(saver.isSaver)
        let goal = try UpMapping.goal(saver, targets: [:])
        #expect(goal.id == "c2b6547c-6189-42b8-bd63-3993761825a0")
        #expect(goal.name == "🐷 Savings")
        #expect(goal.balance.formatted == "A$125.36")
        #expect(goal.target == nil)
        // A target only where the config file sets one, by name or by id; never in another currency.
        let target = Money(minorUnits: 50_000, currency: aud)
        #expect(try UpMapping.goal(saver, targets: ["🐷 Savings": target]).target == target)
        #expect(try UpMapping.goal(saver, targets: [saver.id: target]).target == target)
        #expect(try UpMapping.goal(saver, targets: ["🐷 Savings": Money(minorUnits: 1, currency: .usd)]).target == nil)
    }

    @Test func foreignPaymentWithRoundUp() throws {
        let item = try transaction("up_transaction_foreign_roundup")
        #expect(item.attributes.status == "SETTLED")
        #expect(item.relationships?.transferAccount?.data == nil)

        let activity = try UpMapping.activity(item, savers: [:], joint: false)
        #expect(activity.amount == Money(minorUnits: -10_792, currency: aud))
        #expect(activity.kind == .other)
        #expect(activity.userId == UpMapping.holderId)
        #expect(activity.timestamp == Timestamp.parse("2022-01-09T17:00:00Z"))
        // The rupiah amount at IDR's two decimals, and Up's own round-up.
        #expect(activity.message.plainText == "Warung Bebek Bengil · paid IDR 1,053,698.77 · round-up A$0.08")

        let payment = try UpMapping.transaction(item)
        #expect(payment.bankRoundUp == Money(minorUnits: 8, currency: aud))
        #expect(payment.boost == nil)
        // Up's round-up as Up made it (8 cents), not the 8 cents this app would compute by chance:
        // a step of 5 dollars would compute 2.08 here.
        let summary = RoundUp.Summary(transactions: [payment], accountCurrency: aud, step: 500)
        #expect(summary.saveable.minorUnits == 8)
    }

    @Test func boostedRoundUpAndPerformingCustomer() throws {
        var item = try transaction("up_transaction_foreign_roundup")
        item.attributes.foreignAmount = nil
        item.attributes.roundUp = Up.RoundUpObject(amount: Up.MoneyObject(currencyCode: "AUD", value: "-1.08", valueInBaseUnits: -108),
                                                   boostPortion: Up.MoneyObject(currencyCode: "AUD", value: "-1.00", valueInBaseUnits: -100))
        item.attributes.performingCustomer = Up.Customer(displayName: "Jess\u{1B}[2J")
        let payment = try UpMapping.transaction(item)
        #expect(payment.bankRoundUp?.minorUnits == 108 && payment.boost?.minorUnits == 100)
        #expect(payment.counterparty == "Warung Bebek Bengil · boost A$1.00")
        let joint = try UpMapping.activity(item, savers: [:], joint: true)
        #expect(joint.userId == UpMapping.userId(forName: "Jess"))
        #expect(joint.userId != UpMapping.holderId)
        #expect(joint.message.plainText.hasSuffix("round-up A$1.08 incl. boost A$1.00"))
        // On one's own account the performing customer is the holder.
        #expect(try UpMapping.activity(item, savers: [:], joint: false).userId == UpMapping.holderId)
        // Issue 50, item 16: `[up] you` names the user on a joint account: their payments are the
        // holder's ("you", as on Starling and Monzo), in any case; another name is still its own.
        #expect(try UpMapping.activity(item, savers: [:], joint: true, you: "jess").userId == UpMapping.holderId)
        #expect(try UpMapping.goalFeedItem(item, accounts: [:], joint: true, you: "Jess").userId == UpMapping.holderId)
        #expect(try UpMapping.activity(item, savers: [:], joint: true, you: "Alex").userId == UpMapping.userId(forName: "Jess"))
    }

    @Test func heldPaymentIsMarked() throws {
        let page = try decoder.decode(Up.ListDocument<Up.TransactionResource>.self, from: try Fixture.data("up_transactions_held_page"),
                                      resource: "GET")
        #expect(page.links?.next == nil)
        let item = try #require(page.data.first)
        // `transferAccount: {}` reads as no transfer.
        #expect(item.relationships?.transferAccount?.data == nil)
        let activity = try UpMapping.activity(item, savers: [:], joint: false)
        #expect(activity.message.plainText == "Spotify · held")
        let payment = try UpMapping.transaction(item)
        #expect(!payment.roundsUp && payment.bankRoundUp == nil)
        // Up's category id is the payment's category, for the rules' `category`.
        #expect(payment.category == "tv-and-music")
        // A card payment without a round-up (round-ups off) is still a card payment for the rules.
        var card = item
        card.attributes.cardPurchaseMethod = Up.CardPurchaseMethod(method: "CONTACTLESS", cardNumberSuffix: "0001")
        #expect(try UpMapping.transaction(card).cardPayment == true && !(try UpMapping.transaction(card).roundsUp))
        card.attributes.cardPurchaseMethod = nil
        #expect(try UpMapping.transaction(card).cardPayment == false)
        #expect(RoundUp.Summary(transactions: [payment], accountCurrency: aud).lines.isEmpty)
    }

    @Test func transferToASaverIsSaving() throws {
        var item = try transaction("up_transaction_foreign_roundup")
        item.attributes.foreignAmount = nil
        item.attributes.roundUp = nil
        item.relationships?.transferAccount = Up.ToOne(Up.Identifier(type: "accounts", id: "saver-1"))
        let activity = try UpMapping.activity(item, savers: ["saver-1": "Holiday"], joint: false)
        #expect(activity.kind == .moveToGoal)
        #expect(activity.message.plainText == "Saved into Holiday")
        #expect(activity.saved == Money(minorUnits: 10_792, currency: aud))
        let feedItem = try UpMapping.goalFeedItem(item, accounts: ["saver-1": "Holiday"], joint: false)
        #expect(feedItem.message.plainText == "Moved to Holiday")
    }

    @Test func valueInBaseUnitsIsCheckedAgainstTheExponent() throws {
        let good = Up.MoneyObject(currencyCode: "IDR", value: "-1053698.77", valueInBaseUnits: -105_369_877)
        #expect(try good.money("m").minorUnits == -105_369_877)
        #expect(try Up.MoneyObject(currencyCode: "JPY", value: "1200", valueInBaseUnits: 1200).money("m").formatted == "¥1,200")
        #expect(try Up.MoneyObject(currencyCode: "KWD", value: "1.250", valueInBaseUnits: 1250).money("m").minorUnits == 1250)
        // Without `value`, `valueInBaseUnits` alone.
        #expect(try Up.MoneyObject(currencyCode: "AUD", value: nil, valueInBaseUnits: -5).money("m").minorUnits == -5)
        // `value` saying another amount, more decimals than the currency has, or no currency at all.
        for bad in [Up.MoneyObject(currencyCode: "AUD", value: "-1.07", valueInBaseUnits: -108),
                    Up.MoneyObject(currencyCode: "JPY", value: "12.00", valueInBaseUnits: 1200),
                    Up.MoneyObject(currencyCode: "AUD", value: "1.000", valueInBaseUnits: 100),
                    Up.MoneyObject(currencyCode: "XYZ", value: "1.00", valueInBaseUnits: 100),
                    Up.MoneyObject(currencyCode: "AUD", value: nil, valueInBaseUnits: .max)] {
            #expect(throws: MalformedPayload.self) { _ = try bad.money("m") }
        }
        #expect(Up.MoneyObject(Money(minorUnits: -10_792, currency: aud)).value == "-107.92")
        #expect(Up.MoneyObject(Money(minorUnits: 5, currency: aud)).value == "0.05")
        #expect(Up.MoneyObject(Money(minorUnits: 1200, currency: .jpy)).value == "1200")
    }

    @Test func aBadRecordIsSkippedAndNamed() throws {
        let json = """
        {"data": [
          {"type": "transactions", "id": "good", "attributes": {"status": "SETTLED", "description": "Cafe",
           "amount": {"currencyCode": "AUD", "value": "-4.35", "valueInBaseUnits": -435}, "createdAt": "2026-11-02T10:00:00+11:00"}},
          {"type": "transactions", "id": "bad", "attributes": {"status": "SETTLED", "description": "Cafe",
           "amount": {"currencyCode": "AUD", "value": "-4.35", "valueInBaseUnits": -436}, "createdAt": "2026-11-02T10:00:00+11:00"}},
          {"type": "transactions", "id": "worse", "attributes": {"status": "SETTLED"}}
        ], "links": {"prev": null, "next": null}}
        """
        let skipped = SkippedRecords()
        let decoder = PayloadDecoder(accountCurrency: aud, skipped: skipped)
        let page = try decoder.decode(Up.ListDocument<Up.TransactionResource>.self, from: Data(json.utf8), resource: "GET /accounts/…/transactions")
        #expect(page.data.map(\.id) == ["good", "bad"])
        let activities = skipped.mapEach(page.data, resource: "GET /accounts/…/transactions", name: { "id \($0.id)" }) {
            item throws(MalformedPayload) in try UpMapping.activity(item, savers: [:], joint: false)
        }
        #expect(activities.count == 1)
        let notes = skipped.drain()
        #expect(notes.count == 2)
        #expect(notes.contains { $0.contains("id worse") })
        #expect(notes.contains { $0.contains("valueInBaseUnits -436") && $0.contains("id bad") })
    }

    @Test func errorEnvelopeIsOneLine() throws {
        let message = try #require(Up.serverMessage(try Fixture.data("up_error_unauthorized")))
        #expect(message.hasPrefix("Not Authorized: The request was not authenticated"))
        #expect(!message.contains("\n"))
        let two = #"{"errors": [{"status": "400", "title": "Invalid Parameter", "detail": "not a date", "source": {"parameter": "filter[since]"}}, {"title": "Also", "detail": "this\nline"}]}"#
        #expect(Up.serverMessage(Data(two.utf8)) == "Invalid Parameter: not a date (filter[since]); Also: this line")
        #expect(Up.serverMessage(Data("not json".utf8)) == nil)
        // Through the transport: a 400 carries Up's words after the status.
        let error = HTTPTransport.statusError(400, label: "GET /accounts", serverMessage: Up.serverMessage(Data(two.utf8)))
        #expect(error.message == "GET /accounts: HTTP 400: Invalid Parameter: not a date (filter[since]); Also: this line")
    }

    @Test func pingDecodes() throws {
        let ping = try decoder.decode(Up.Ping.self, from: try Fixture.data("up_ping"), resource: "GET /util/ping")
        #expect(ping.meta?.id == "7feb7523-d65e-4b98-9eae-cd521b5005de")
        #expect(ping.meta?.statusEmoji == "⚡️")
    }

    @Test func requestsAreWrittenAsUpReadsThem() throws {
        let page = try decoder.decode(Up.ListDocument<Up.AccountResource>.self, from: try Fixture.data("up_accounts_page"), resource: "GET")
        let api = try UpAPI(transport: UpAPI.transport(baseURL: UpAPI.productionURL, token: "t"), spending: try #require(page.data.first))
        let since = try #require(Timestamp.parse("2026-11-08T00:00:00Z"))
        let url = api.url(for: UpAPI.Path("/accounts/").id("a b"),
                          query: [URLQueryItem(name: "filter[since]", value: UpAPI.timestamp(since)), UpAPI.pageSizeItem])
        #expect(url.absoluteString
                == "https://api.up.com.au/api/v1/accounts/a%20b?filter%5Bsince%5D=2026-11-08T00%3A00%3A00%2B00%3A00&page%5Bsize%5D=100")
        // A link is followed only on Up's origin, under its base path.
        let transport = api.transport
        #expect(transport.relativePath(of: URL(string: "https://api.up.com.au/api/v1/accounts?page%5Bafter%5D=x")!) == "/accounts")
        #expect(transport.relativePath(of: URL(string: "https://evil.example/api/v1/accounts")!) == nil)
        #expect(transport.relativePath(of: URL(string: "http://api.up.com.au/api/v1/accounts")!) == nil)
        #expect(transport.relativePath(of: URL(string: "https://api.up.com.au:8443/api/v1/accounts")!) == nil)
        #expect(transport.relativePath(of: URL(string: "https://api.up.com.au/other")!) == nil)
        #expect(transport.relativePath(of: URL(string: "https://api.up.com.au/api/v1/../../x")!) == nil)
    }

    @Test func upCannotMoveMoneyOrCreateSavers() async throws {
        let page = try decoder.decode(Up.ListDocument<Up.AccountResource>.self, from: try Fixture.data("up_accounts_page"), resource: "GET")
        let api = try UpAPI(transport: UpAPI.transport(baseURL: UpAPI.productionURL, token: "t"), spending: try #require(page.data.first))
        await #expect(throws: APIError(kind: .rejected, request: "transfer", message: UpAPI.cannotMoveMoney)) {
            _ = try await api.transfer(goalId: "x", transferId: UUID(), amount: Money(minorUnits: 1, currency: aud), attempt: .init(week: "2026-W47", resent: false))
        }
        await #expect(throws: APIError(kind: .rejected, request: "new saver", message: UpAPI.cannotCreateSavers)) {
            _ = try await api.createGoal(name: "x", target: nil)
        }
    }
}

/// The rate limit's state: the count read, the low count shown, a 429's stop and its end.
@Suite struct UpRateLimitTests {
    final class Clock: Sendable {
        let time = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        func now() -> Date { time.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
    }

    @Test func lowCountIsShownUnderAHundred() {
        let limit = UpRateLimit()
        #expect(limit.statusNote == nil)
        limit.observe(remainingHeader: "100")
        #expect(limit.remaining == 100 && limit.statusNote == nil)
        limit.observe(remainingHeader: " 99 ")
        #expect(limit.statusNote == "Up: 99 requests left this hour")
        limit.observe(remainingHeader: "1")
        #expect(limit.statusNote == "Up: 1 request left this hour")
        limit.observe(remainingHeader: "lots")
        limit.observe(remainingHeader: "-3")
        limit.observe(remainingHeader: nil)
        #expect(limit.remaining == 1)
    }

    @Test func aStopEndsWhenItSays() {
        let clock = Clock()
        let limit = UpRateLimit(now: clock.now)
        let until = limit.stop(retryAfter: nil)
        #expect(until == clock.now().addingTimeInterval(3_600))
        #expect(limit.stoppedUntil == until)
        #expect(limit.statusNote?.hasPrefix("Up: rate limit reached; try again after ") == true)
        clock.advance(3_599)
        #expect(limit.stoppedUntil != nil)
        clock.advance(1)
        #expect(limit.stoppedUntil == nil)
        #expect(limit.stop(retryAfter: "120") == clock.now().addingTimeInterval(120))
        #expect(limit.message(label: "GET /accounts", until: clock.now()).hasPrefix(
            "GET /accounts: Up's rate limit (1,000 requests an hour) is used up; try again after "))
    }

    /// A `Retry-After` of up to 30 s is waited in place; a longer one, or none, is not.
    @Test func onlyAShortRetryAfterIsWaitedInPlace() {
        let clock = Clock()
        let limit = UpRateLimit(now: clock.now)
        #expect(limit.shortWait(retryAfter: "2") == 2)
        #expect(limit.shortWait(retryAfter: " 30 ") == 30)
        #expect(limit.shortWait(retryAfter: "31") == nil)
        #expect(limit.shortWait(retryAfter: nil) == nil)
        #expect(limit.shortWait(retryAfter: "soon") == nil)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        #expect(limit.shortWait(retryAfter: formatter.string(from: clock.now().addingTimeInterval(10))) == 10)
        #expect(limit.shortWait(retryAfter: formatter.string(from: clock.now().addingTimeInterval(600))) == nil)
        // Asking is not stopping.
        #expect(limit.stoppedUntil == nil)
    }
}
