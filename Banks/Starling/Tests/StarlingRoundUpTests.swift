import FeedModel
import Foundation
import Testing
@testable import StarlingClient

/// Seed 002's rule, case by case: OUT card payments, SETTLED or PENDING, rounded on `amount`.
@Suite struct StarlingRoundUpTests {
    struct Case: CustomStringConvertible, Sendable {
        let direction: String
        let source: String
        let status: String
        let minorUnits: Int64
        var sourceAmount: Starling.Amount?
        let expected: Int64?
        let why: String
        var description: String { why }
    }

    static let cases: [Case] = [
        Case(direction: "OUT", source: "MASTER_CARD", status: "SETTLED", minorUnits: 435, expected: 65, why: "a settled card payment"),
        Case(direction: "OUT", source: "MASTER_CARD", status: "PENDING", minorUnits: 1, expected: 99, why: "a pending one rounds up too"),
        Case(direction: "OUT", source: "MASTER_CARD", status: "SETTLED", minorUnits: 500, expected: 0, why: "a whole amount rounds up by nothing"),
        Case(direction: "OUT", source: "MASTER_CARD", status: "SETTLED", minorUnits: 99, expected: 1, why: "99p"),
        Case(direction: "OUT", source: "MASTER_CARD", status: "SETTLED", minorUnits: 1087,
             sourceAmount: Starling.Amount(currency: "EUR", minorUnits: 1250), expected: 13,
             why: "a foreign payment rounds on amount (GBP), not on sourceAmount (EUR 12.50)"),
        Case(direction: "OUT", source: "MASTER_CARD", status: "DECLINED", minorUnits: 435, expected: nil, why: "declined"),
        Case(direction: "OUT", source: "MASTER_CARD", status: "REVERSED", minorUnits: 435, expected: nil, why: "reversed"),
        Case(direction: "OUT", source: "MASTER_CARD", status: "REFUNDED", minorUnits: 435, expected: nil, why: "refunded"),
        Case(direction: "OUT", source: "MASTER_CARD", status: "RETRYING", minorUnits: 435, expected: nil, why: "another status"),
        Case(direction: "OUT", source: "MASTER_CARD", status: "ACCOUNT_CHECK", minorUnits: 0, expected: nil, why: "an account check"),
        Case(direction: "IN", source: "MASTER_CARD", status: "SETTLED", minorUnits: 435, expected: nil, why: "a card refund is money in"),
        Case(direction: "IN", source: "FASTER_PAYMENTS_IN", status: "SETTLED", minorUnits: 250_000, expected: nil, why: "salary"),
        Case(direction: "OUT", source: "FASTER_PAYMENTS_OUT", status: "SETTLED", minorUnits: 1234, expected: nil, why: "a bank transfer out"),
        Case(direction: "OUT", source: "DIRECT_DEBIT", status: "SETTLED", minorUnits: 4599, expected: nil, why: "a direct debit"),
        Case(direction: "OUT", source: "INTERNAL_TRANSFER", status: "SETTLED", minorUnits: 158, expected: nil,
             why: "a transfer into a goal (saved round-ups)"),
        Case(direction: "OUT", source: "STANDING_ORDER", status: "SETTLED", minorUnits: 1001, expected: nil, why: "a standing order"),
        Case(direction: "out", source: "master_card", status: "settled", minorUnits: 435, expected: 65, why: "case does not matter"),
    ]

    func item(_ c: Case, time: Date = Date(timeIntervalSince1970: 1_794_096_000)) -> Starling.FeedItem {
        Starling.FeedItem(feedItemUid: UUID().uuidString, categoryUid: "cat", amount: Starling.Amount(currency: "GBP", minorUnits: c.minorUnits),
                          sourceAmount: c.sourceAmount ?? Starling.Amount(currency: "GBP", minorUnits: c.minorUnits),
                          direction: c.direction, transactionTime: time, source: c.source, status: c.status,
                          counterPartyType: "MERCHANT", counterPartyName: "Shop", reference: nil, spendingCategory: nil)
    }

    @Test(arguments: cases)
    func rule(_ c: Case) throws {
        let transaction = try StarlingMapping.transaction(item(c))
        let summary = RoundUp.Summary(transactions: [transaction], accountCurrency: .gbp)
        #expect(summary.lines.first?.roundUp.minorUnits == c.expected, "\(c.why)")
        #expect(summary.saveable.minorUnits == c.expected ?? 0)
        if let expected = c.expected {
            // The spec's formula, on `amount`.
            #expect(expected == (100 - c.minorUnits % 100) % 100)
        }
    }

    @Test func aWeekTotalsOnlyWhatRoundsUp() throws {
        let transactions = try StarlingRoundUpTests.cases.map { try StarlingMapping.transaction(item($0)) }
        let summary = RoundUp.Summary(transactions: transactions, accountCurrency: .gbp)
        let expected = StarlingRoundUpTests.cases.compactMap(\.expected).reduce(0, +)
        #expect(summary.saveable == Money(minorUnits: expected, currency: .gbp))
        #expect(summary.lines.count == StarlingRoundUpTests.cases.count { $0.expected != nil })
        #expect(summary.otherTotals.isEmpty)
    }
}

/// What each Starling feed item is for the sums (issue 27, item 6).
@Suite struct StarlingActivityKindTests {
    static func item(_ direction: String, _ source: String, _ status: String, counterparty: String? = "MERCHANT",
                     category: String? = "SHOPPING") -> Starling.FeedItem {
        Starling.FeedItem(feedItemUid: "u", categoryUid: "c", amount: Starling.Amount(currency: "GBP", minorUnits: 2_110), sourceAmount: nil,
                          direction: direction, transactionTime: Date(timeIntervalSince1970: 1_800_000_000), source: source,
                          status: status, counterPartyType: counterparty, counterPartyName: "Shop", reference: nil, spendingCategory: category)
    }

    @Test func declinedAndReversedAreVoidMovesToGoalsAreSavedIncomeIsNot() throws {
        #expect(StarlingMapping.kind(Self.item("OUT", "MASTER_CARD", "DECLINED")) == .void)
        #expect(StarlingMapping.kind(Self.item("OUT", "MASTER_CARD", "reversed")) == .void)
        #expect(StarlingMapping.kind(Self.item("OUT", "MASTER_CARD", "SETTLED")) == .other)
        #expect(StarlingMapping.kind(Self.item("IN", "FASTER_PAYMENTS_IN", "SETTLED", counterparty: "SENDER", category: "INCOME")) == .other)
        #expect(StarlingMapping.kind(Self.item("OUT", "INTERNAL_TRANSFER", "SETTLED", counterparty: "CATEGORY", category: "SAVING")) == .moveToGoal)
        // Money back out of a goal into the account is not a saving.
        #expect(StarlingMapping.kind(Self.item("IN", "INTERNAL_TRANSFER", "SETTLED", counterparty: "CATEGORY", category: "SAVING")) == .other)
        let moved = try StarlingMapping.activity(Self.item("OUT", "INTERNAL_TRANSFER", "SETTLED", counterparty: "CATEGORY", category: "SAVING"))
        #expect(moved.amount.minorUnits == -2_110 && moved.saved?.minorUnits == 2_110)
        #expect(try StarlingMapping.activity(Self.item("OUT", "MASTER_CARD", "REVERSED")).saved == nil)
    }
}
