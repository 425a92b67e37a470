import Foundation
import Testing
@testable import FeedModel

@Suite struct MoneyTests {
    @Test(arguments: [
        ("0.32", 32), ("0.1", 10), ("1250.5", 125_050), ("999999999.99", 99_999_999_999),
        ("4.355", 436), ("4.354", 435), ("0.005", 1), ("-2.5", -250), ("-0.005", -1), ("10", 1000),
        ("0.30000000000000004", 30), ("1e2", 10_000), ("12.50", 1250),
    ])
    func exactConversionFromJSONNumbers(json: String, minor: Int64) throws {
        let data = Data(#"{"a": \#(json)}"#.utf8)
        struct Wrapper: Decodable {
            let a: Money
            enum CodingKeys: String, CodingKey { case a }
            init(from decoder: Decoder) throws {
                a = try decoder.container(keyedBy: CodingKeys.self).money(.a, currency: .usd)
            }
        }
        let value = try PayloadDecoder().decode(Wrapper.self, from: data, resource: "test").a
        #expect(value.minorUnits == minor)
    }

    @Test(arguments: [
        (Money(minorUnits: 125_050, currency: .usd), "$1,250.50"),
        (Money(minorUnits: 87, currency: .gbp), "£0.87"),
        (Money(minorUnits: -250, currency: .usd), "\u{2212}$2.50"),
        (Money(minorUnits: 0, currency: .eur), "€0.00"),
        (Money(minorUnits: 99_999_999_999, currency: .usd), "$999,999,999.99"),
        (Money(minorUnits: 100_000, currency: .usd), "$1,000.00"),
        (Money(minorUnits: 1200, currency: .jpy), "¥1,200"),
        (Money(minorUnits: 5, currency: Currency(code: "XTS")), "XTS 0.05"),
    ])
    func formatting(money: Money, text: String) {
        #expect(money.formatted == text)
    }

    @Test func arithmeticStaysInMinorUnits() {
        var total = Money.zero(.usd)
        for _ in 0..<10 { total = total + Money(decimal: Decimal(string: "0.1")!, currency: .usd)! }
        #expect(total == Money(minorUnits: 100, currency: .usd))
        #expect(Money(minorUnits: 125_050, currency: .usd).jsonNumberString == "1250.5")
        #expect(Money(minorUnits: -5, currency: .usd).jsonNumberString == "-0.05")
        #expect(Money(minorUnits: 1000, currency: .usd).jsonNumberString == "10")
    }

    @Test func outOfRangeIsRefused() {
        #expect(Money(decimal: Decimal(string: "1e30")!, currency: .usd) == nil)
    }

    @Test func amountsFromOutsideAreBounded() {
        #expect(Money(bounded: Money.maxMagnitude, currency: .gbp)?.minorUnits == Money.maxMagnitude)
        #expect(Money(bounded: -Money.maxMagnitude, currency: .gbp) != nil)
        #expect(Money(bounded: Money.maxMagnitude + 1, currency: .gbp) == nil)
        #expect(Money(bounded: .min, currency: .gbp) == nil)
        #expect(Money(bounded: .max, currency: .gbp) == nil)
        #expect(Money(decimal: Decimal(Money.maxMagnitude) / 100 + 1, currency: .usd) == nil)
    }

    @Test func arithmeticSaturatesInsteadOfTrapping() {
        let most = Money(minorUnits: .max, currency: .usd), least = Money(minorUnits: .min, currency: .usd)
        let one = Money(minorUnits: 1, currency: .usd)
        #expect((most + one).minorUnits == .max)
        #expect((least - one).minorUnits == .min)
        #expect(least.negated.minorUnits == .max)
        #expect(least.magnitude.minorUnits == .max)
        #expect((most - least).minorUnits == .max)
        var total = Money.zero(.usd)
        for _ in 0..<93 { total += Money(minorUnits: Money.maxMagnitude, currency: .usd) }
        #expect(total.minorUnits == .max)
        #expect(Money.sum(Array(repeating: Money.maxMagnitude, count: 92)) == 92 * Money.maxMagnitude)
        #expect(Money.sum([Int64.min, -1]) == .min)
        #expect(least.formatted.hasPrefix("\u{2212}$92,233,720,368,547,758"))
    }

    @Test func peopleSumTheLargestAmountsWithoutTrapping() {
        let goal = Goal(id: 1, name: "Dog", ownerId: 1, target: nil, balance: .zero(.usd))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let items = (0..<93).map { index in
            FeedItem(id: "\(index)", timestamp: now.addingTimeInterval(-Double(index)), message: MarkupText(parsing: "saved"),
                     amount: Money(minorUnits: Money.maxMagnitude, currency: .usd), userId: 1)
        }
        let people = PeopleRoster.people(goals: [goal], feeds: { _ in (items, .known) }, activities: [], currency: .usd, now: now)
        #expect(people.first?.saved.minorUnits == .max)
        #expect(people.first?.savingsCount == 93)
    }

    /// A declined or reversed transfer in a goal's feed moved nothing: People's "saved" and the
    /// balance chart leave it out (listed it still is).
    @Test func itemsThatMovedNothingCountInNoSum() {
        let goal = Goal(id: 1, name: "Dog", ownerId: 1, target: nil, balance: Money(minorUnits: 1_000, currency: .gbp))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let saved = FeedItem(id: "a", timestamp: now.addingTimeInterval(-60), message: MarkupText(parsing: "saved"),
                             amount: Money(minorUnits: 400, currency: .gbp), userId: 1)
        let declined = FeedItem(id: "b", type: FeedItem.voidType, timestamp: now.addingTimeInterval(-30),
                                message: MarkupText(parsing: "declined"), amount: Money(minorUnits: 250, currency: .gbp), userId: 1)
        let people = PeopleRoster.people(goals: [goal], feeds: { _ in ([declined, saved], .known) }, activities: [],
                                         currency: .gbp, now: now)
        #expect(people.first?.saved.minorUnits == 400)
        #expect(people.first?.savingsCount == 1)
        let history = BalanceHistory(current: goal.balance, feed: [declined, saved])
        #expect(history.points.map(\.balance.minorUnits) == [1_000])
        #expect(history.opening.minorUnits == 600)
        #expect(history.skipped == 0)
    }

    @Test func currencyCodes() {
        #expect(Currency.from(code: "gbp") == .gbp)
        #expect(Currency.from(code: "JPY")?.minorDigits == 0)
        #expect(Currency.from(code: "\u{1b}[2J") == nil)
        #expect(Currency.from(code: "EURO") == nil)
    }
}
