import Foundation
import PropertyBased
import Testing
@testable import FeedModel

/// Each rule kind's figure for a week (RULES.md's table): examples, and properties over generated
/// weeks against a plain reference written here.
@Suite struct RuleFigureTests {
    static let london = Week.calendar(in: TimeZone(identifier: "Europe/London")!)
    /// Monday 16 November 2026 to Monday 23 November (2026-W47).
    static let week = Week(containing: Timestamp.parse("2026-11-18T12:00:00+00:00")!, calendar: london)

    static func pay(_ id: String, _ minor: Int64, _ who: String, day: Int = 0, _ currency: Currency = .gbp, card: Bool = true,
                    category: String? = nil) -> Transaction {
        Transaction(id: id, timestamp: week.start.addingTimeInterval(Double(day) * 86_400 + 3600), amount: Money(minorUnits: minor, currency: currency),
                    counterparty: who, roundsUp: card, category: category)
    }

    static let payments = [
        pay("t1", -435, "PRET A MANGER", day: 0, category: "EATING_OUT"),
        pay("t2", -250, "Costa Coffee", day: 1, category: "eating_out"),
        pay("t3", -1_000, "Tesco", day: 2, category: "groceries"),
        pay("t4", -380, "Pret", day: 3, .eur),
        pay("t5", 250_000, "ACME Ltd payroll", day: 4),
        pay("t6", -199, "pret", day: 5, card: false),
        pay("t7", 1_999, "Mum", day: 6),
        // The next week's: never counted in this one.
        Transaction(id: "t8", timestamp: week.end.addingTimeInterval(60), amount: Money(minorUnits: -300, currency: .gbp), counterparty: "Pret"),
    ]

    static func gbp(_ minor: Int64) -> Money { Money(minorUnits: minor, currency: .gbp) }

    func figure(_ kind: Rule.Kind, _ week: Week = RuleFigureTests.week, _ payments: [Transaction] = RuleFigureTests.payments) throws -> RuleFigure? {
        try Rule(name: "r", kind: kind, goal: "Holiday").figure(for: week, transactions: payments, currency: .gbp)
    }

    @Test func eachKindsFigureForOneWeek() throws {
        // Round-ups: 0.65 + 0.50 + 0 (Tesco is whole), the euro one left out, money in and the
        // next week's ignored, the payment that cannot round up ignored.
        let roundUps = try #require(try figure(.roundUp(step: nil)))
        #expect(roundUps.amount == Self.gbp(115) && roundUps.counted == ["t2", "t1"] && roundUps.leftOut == ["t4"])
        #expect(roundUps.period.label == "2026-W47")

        // £2 each card payment at Pret or Costa: t1 and t2 (t4 is in euros, t6 not a card payment).
        let coffee = try #require(try figure(.guiltyPleasure(amount: Self.gbp(200), match: ["Pret", "costa"])))
        #expect(coffee.amount == Self.gbp(400) && coffee.counted == ["t2", "t1"] && coffee.leftOut == ["t4"])

        // A source that says which payments were by card (Up) is believed over whether they round up.
        var byCard = Self.payments
        byCard[0].cardPayment = false
        byCard[5].cardPayment = true
        let cards = try #require(try figure(.guiltyPleasure(amount: Self.gbp(200), match: ["Pret", "costa"]), Self.week, byCard))
        #expect(cards.counted == ["t6", "t2"])

        // By the bank's category, whatever its case and joining: t1 (Starling's EATING_OUT) and t2.
        let eatingOut = try #require(try figure(.guiltyPleasure(amount: Self.gbp(200), match: [], category: ["eating-out"])))
        #expect(eatingOut.amount == Self.gbp(400) && eatingOut.counted == ["t2", "t1"])
        // A payment named by its counterparty and its category is counted once: t1, t2 and Tesco's t3.
        let either = try #require(try figure(.guiltyPleasure(amount: Self.gbp(100), match: ["pret", "Tesco"], category: ["eating_out"])))
        #expect(either.amount == Self.gbp(300) && either.counted == ["t3", "t2", "t1"] && either.leftOut == ["t4"])
        #expect(try figure(.spendLess(target: Self.gbp(2_000), match: [], category: ["groceries", "Eating Out"]))?.amount == Self.gbp(315))

        // Spend less than £10 on coffee: spent £6.85, so £3.15; over the target, nothing.
        #expect(try figure(.spendLess(target: Self.gbp(1_000), match: ["Pret", "Costa"]))?.amount == Self.gbp(315))
        #expect(try figure(.spendLess(target: Self.gbp(500), match: ["Pret", "Costa"]))?.amount == Self.gbp(0))

        // 10% of pay from ACME, and of anything in of at least £10 (Mum's £19.99 → £1.99, rounded down).
        #expect(try figure(.payday(hundredthsOfAPercent: 1_000, match: ["acme"], minimum: nil))?.amount == Self.gbp(25_000))
        let both = try #require(try figure(.payday(hundredthsOfAPercent: 1_000, match: ["acme"], minimum: Self.gbp(1_000))))
        #expect(both.amount == Self.gbp(25_199) && both.counted == ["t7", "t5"])
        // 12.5% of £19.99 is 249.875p: 249p.
        #expect(try figure(.payday(hundredthsOfAPercent: 1_250, match: ["Mum"], minimum: nil))?.amount == Self.gbp(249))

        // £5 a week, every week.
        let weekly = try #require(try figure(.setAndForget(amount: Self.gbp(500), every: .week)))
        #expect(weekly.amount == Self.gbp(500) && weekly.counted.isEmpty && weekly.period == .week(Self.week))
    }

    @Test func aMonthIsSettledWithTheWeekThatHoldsItsLastDay() throws {
        let monthly = Rule.Kind.setAndForget(amount: Self.gbp(5_000), every: .month)
        // 2026-W47 holds no month's end; 2026-W49 (30 Nov to 6 Dec) holds 30 November.
        #expect(try figure(monthly) == nil)
        let end = Self.week.next.next
        let settled = try #require(try figure(monthly, end))
        #expect(settled.period.label == "2026-11" && settled.period.week == end && settled.amount == Self.gbp(5_000))
        // A month whose last day is a Sunday (May 2026 ends Sunday 31st): settled by that week,
        // and June by the week of Tuesday 30 June.
        let may = Week(containing: Timestamp.parse("2026-05-31T12:00:00+01:00")!, calendar: Self.london)
        #expect(try figure(monthly, may)?.period.label == "2026-05")
        #expect(try figure(monthly, may.next)?.period == nil)
    }

    @Test func aFiftyTwoWeekChallengeCountsItsWeeks() throws {
        let start = Timestamp.parse("2026-01-05T12:00:00+00:00")!
        let first = Week(containing: start, calendar: Self.london)
        let up = Rule.Kind.fiftyTwoWeek(amount: Self.gbp(100), start: start, reverse: false)
        let down = Rule.Kind.fiftyTwoWeek(amount: Self.gbp(100), start: start, reverse: true)
        #expect(try figure(up, first)?.amount == Self.gbp(100))
        #expect(try figure(down, first)?.amount == Self.gbp(5_200))
        #expect(try figure(up, first.previous) == nil)
        // 2026-W47 is week 46 of the challenge (it started in W02).
        #expect(try figure(up)?.amount == Self.gbp(4_600))
        var week = first
        for _ in 1..<52 { week = week.next }
        #expect(try figure(up, week)?.amount == Self.gbp(5_200) && figure(down, week)?.amount == Self.gbp(100))
        #expect(try figure(up, week.next) == nil)
    }

    @Test func aFigurePastWhatAnAmountMayBeIsRefused() {
        let huge = Self.gbp(Money.maxMagnitude)
        #expect(throws: RuleFigure.Problem.tooLarge(rule: "r")) { try figure(.guiltyPleasure(amount: huge, match: ["Pret", "Costa"])) }
        #expect(throws: RuleFigure.Problem.tooLarge(rule: "r")) {
            try figure(.fiftyTwoWeek(amount: huge, start: Self.week.start, reverse: true))
        }
        let rich = [Self.pay("big", Int64.max / 2, "ACME")]
        #expect(throws: RuleFigure.Problem.tooLarge(rule: "r")) {
            try figure(.payday(hundredthsOfAPercent: 10_000, match: ["ACME"], minimum: nil), Self.week, rich)
        }
    }

    // MARK: properties against a plain reference

    static let names = ["Pret", "COSTA", "Tesco", "ACME Ltd", "costa coffee", "Mum"]
    /// Categories as banks write them, and none.
    static let categories: [String?] = [nil, "eating_out", "EATING_OUT", "groceries", "restaurants-and-cafes", "income"]

    /// A generated week's payments: amounts both ways in pounds and euros, some not card
    /// payments, some outside the week.
    static func payment(_ index: Int, minor: Int, who: Int, kind: Int, day: Int, second: Int, category: Int = 0) -> Transaction {
        let when = week.start.addingTimeInterval(Double(day) * 86_400 + Double(second))
        let amount = Money(minorUnits: Int64(minor), currency: kind == 0 ? .eur : .gbp)
        return Transaction(id: "p\(index)", timestamp: when, amount: amount, counterparty: names[who], roundsUp: kind != 1,
                           category: categories[category])
    }

    /// A generated week's payments: amounts both ways in pounds and euros, some not card
    /// payments, some outside the week.
    static let generatedPayments = Gen.int(in: 0...Int.max).array(of: 0...40).map { (seeds: [Int]) -> [Transaction] in
        seeds.enumerated().map { (index: Int, seed: Int) -> Transaction in
            var rest = seed
            func take(_ count: Int) -> Int {
                defer { rest /= count }
                return rest % count
            }
            return payment(index, minor: take(40_001) - 20_000, who: take(names.count), kind: take(10), day: take(11) - 2, second: take(86_400),
                           category: take(categories.count))
        }
    }

    @Test func everyWeeksFiguresMatchAPlainReference() async {
        await propertyCheck(count: 200, input: Self.generatedPayments, Gen.int(in: 1...500), Gen.int(in: 0...3), Gen.int(in: 0...2)) {
            payments, unit, pick, pickCategory in
            let match = [["Pret"], ["costa"], ["Pret", "Costa"], []][pick]
            let category = [[], ["Eating Out"], ["groceries", "restaurants_and_cafes"]][pickCategory]
            let inWeek = payments.filter { $0.timestamp >= Self.week.start && $0.timestamp < Self.week.end }
            func words(_ text: String) -> [String] {
                text.lowercased().split { !$0.isLetter }.map(String.init)
            }
            /// Payday's payer is matched by name only.
            func matches(_ payment: Transaction) -> Bool {
                match.contains { payment.counterparty.lowercased().contains($0.lowercased()) }
            }
            func matchesOrInCategory(_ payment: Transaction) -> Bool {
                matches(payment) || category.contains { named in payment.category.map(words) == words(named) }
            }
            var cardMatches: [Transaction] = []
            var cardLeftOut: [Transaction] = []
            for payment in inWeek where payment.amount.minorUnits < 0 && payment.roundsUp && matchesOrInCategory(payment) {
                if payment.amount.currency == .gbp { cardMatches.append(payment) } else { cardLeftOut.append(payment) }
            }

            let guilty = try! #require(try! figure(.guiltyPleasure(amount: Self.gbp(Int64(unit)), match: match, category: category),
                                                   Self.week, payments))
            #expect(guilty.amount.minorUnits == Int64(unit * cardMatches.count))
            #expect(Set(guilty.counted) == Set(cardMatches.map(\.id)) && guilty.counted.count == cardMatches.count)
            #expect(Set(guilty.leftOut) == Set(cardLeftOut.map(\.id)) && guilty.leftOut.count == cardLeftOut.count)

            var spent: Int64 = 0
            for payment in cardMatches { spent += -payment.amount.minorUnits }
            let target = Int64(unit) * 20
            let less = try! #require(try! figure(.spendLess(target: Self.gbp(target), match: match, category: category), Self.week, payments))
            #expect(less.amount.minorUnits == (target > spent ? target - spent : 0))

            var roundUps: Int64 = 0
            var rounded: Set<String> = []
            for payment in inWeek where payment.amount.minorUnits < 0 && payment.roundsUp && payment.amount.currency == .gbp {
                let pence = (-payment.amount.minorUnits) % 100
                if pence != 0 {
                    roundUps += 100 - pence
                    rounded.insert(payment.id)
                }
            }
            let round = try! #require(try! figure(.roundUp(step: nil), Self.week, payments))
            #expect(round.amount.minorUnits == roundUps && Set(round.counted) == rounded && round.counted.count == rounded.count)

            let percent = Int64(unit) * 20  // 0.2% … 100%
            var pay: Int64 = 0
            var paid: [String] = []
            for payment in inWeek where payment.amount.minorUnits > 0 && payment.amount.currency == .gbp
                && (matches(payment) || payment.amount.minorUnits >= 10_000) {
                pay += payment.amount.minorUnits * percent / 10_000
                paid.append(payment.id)
            }
            let payday = try! #require(try! figure(.payday(hundredthsOfAPercent: percent, match: match, minimum: Self.gbp(10_000)),
                                                   Self.week, payments))
            #expect(payday.amount.minorUnits == pay && Set(payday.counted) == Set(paid) && payday.counted.count == paid.count)

            // Every figure's payments are in the week, each named once, counted or left out.
            for made in [guilty, less, round, payday] {
                let named = made.counted + made.leftOut
                #expect(Set(named).count == named.count)
                #expect(Set(named).isSubset(of: Set(inWeek.map(\.id))))
            }
        }
    }

    /// Over any run of weeks, a monthly set-and-forget settles every month once, in order; a
    /// 52-week challenge moves 1 + 2 + … + 52 units, either way round.
    @Test func everyMonthOnceAndEveryChallengeWeekOnce() async {
        await propertyCheck(count: 40, input: Gen.int(in: 0...2_000), Gen.int(in: 0...2)) { startDay, zone in
            let calendar = Week.calendar(in: TimeZone(identifier: ["Europe/London", "America/New_York", "Australia/Sydney"][zone])!)
            var week = Week(containing: Date(timeIntervalSince1970: 1_700_000_000 + Double(startDay) * 86_400), calendar: calendar)
            let monthly = Rule(name: "m", kind: .setAndForget(amount: Self.gbp(100), every: .month), goal: "g")
            let challenge = Rule(name: "c", kind: .fiftyTwoWeek(amount: Self.gbp(7), start: week.next.start, reverse: startDay % 2 == 0), goal: "g")
            var months: [String] = []
            var challengeTotal: Int64 = 0
            var challengeWeeks = 0
            for _ in 0..<(2 * 53) {
                if let settled = try! monthly.figure(for: week, transactions: [], currency: .gbp) { months.append(settled.period.label) }
                if let owed = try! challenge.figure(for: week, transactions: [], currency: .gbp) {
                    challengeTotal += owed.amount.minorUnits
                    challengeWeeks += 1
                }
                week = week.next
            }
            #expect(months == months.sorted() && Set(months).count == months.count)
            // Two years of weeks hold 24 month ends, give or take the edges.
            #expect((23...25).contains(months.count), "\(months)")
            for (earlier, later) in zip(months, months.dropFirst()) {
                let (year, month) = (Int(earlier.prefix(4))!, Int(earlier.suffix(2))!)
                let next = month == 12 ? "\(year + 1)-01" : "\(year)-\(month + 1 < 10 ? "0" : "")\(month + 1)"
                #expect(later == next, "no month skipped: \(earlier) then \(later)")
            }
            #expect(challengeWeeks == 52 && challengeTotal == 7 * 1_378)
        }
    }
}
