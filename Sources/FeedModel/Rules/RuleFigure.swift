import Foundation

/// What a rule owes for one of its periods: the amount, in the account's currency, and the
/// payments it counted (each by id, so a reader can check the figure row by row).
public struct RuleFigure: Hashable, Sendable {
    public let rule: String
    public let period: RulePeriod
    public let amount: Money
    /// The payments that made the figure, newest first (none for set-and-forget and 52-week).
    public let counted: [String]
    /// Payments that would have counted but are in another currency: named, never converted.
    public let leftOut: [String]

    /// Why a figure could not be made.
    public enum Problem: Error, Hashable, Sendable {
        /// The figure passes what an amount may be (`Money.maxMagnitude`): nothing is moved.
        case tooLarge(rule: String)

        public var message: String {
            switch self {
            case .tooLarge(let rule): "The rule “\(rule)” comes to more than an amount can be this week; nothing is moved."
            }
        }
    }
}

extension Rule {
    /// What this rule owes for `week`, from the week's `transactions` (any order; those outside
    /// the week are not counted), in `currency`. Nil where the week is none of the rule's
    /// periods (a monthly set-and-forget's week without a month's end, a 52-week challenge's
    /// week before its start or after its 52nd); a figure of zero is still a figure (settled
    /// without a request). `since` and `paused` are the settler's to apply, not the figure's.
    public func figure(for week: Week, transactions: [Transaction], currency: Currency) throws(RuleFigure.Problem) -> RuleFigure? {
        let inWeek = transactions.filter { week.contains($0.timestamp) }
            .sorted { $0.timestamp != $1.timestamp ? $0.timestamp > $1.timestamp : $0.id < $1.id }
        switch kind {
        case .roundUp(let step):
            let summary = RoundUp.Summary(transactions: inWeek, accountCurrency: currency, step: step)
            let counted = summary.lines.filter { summary.isSaveable($0) && !$0.roundUp.isZero }.map(\.id)
            let leftOut = summary.lines.filter { !summary.isSaveable($0) && !$0.roundUp.isZero }.map(\.id)
            return try checked(RuleFigure(rule: name, period: .week(week), amount: summary.saveable, counted: counted, leftOut: leftOut))

        case .guiltyPleasure(let amount, let match, let category):
            let matching = inWeek.filter { Self.isCardPayment($0) && Self.matches($0, match, category) }
            let (counted, leftOut) = Self.split(matching, currency: currency)
            let total = Self.times(amount.minorUnits, Int64(counted.count))
            return try checked(RuleFigure(rule: name, period: .week(week), amount: Money(minorUnits: total ?? .max, currency: currency),
                                          counted: counted.map(\.id), leftOut: leftOut.map(\.id)))

        case .setAndForget(let amount, let every):
            switch every {
            case .week:
                return try checked(RuleFigure(rule: name, period: .week(week), amount: amount, counted: [], leftOut: []))
            case .month:
                guard let month = week.monthEnding else { return nil }
                return try checked(RuleFigure(rule: name, period: .month(year: month.year, month: month.month, settledBy: week),
                                              amount: amount, counted: [], leftOut: []))
            }

        case .fiftyTwoWeek(let amount, let start, let reverse):
            let first = Week(containing: start, calendar: week.calendar)
            guard week >= first, let number = Self.weeks(from: first, to: week).map({ $0 + 1 }), number <= 52 else { return nil }
            let units = Self.times(amount.minorUnits, Int64(reverse ? 53 - number : number))
            return try checked(RuleFigure(rule: name, period: .week(week), amount: Money(minorUnits: units ?? .max, currency: currency),
                                          counted: [], leftOut: []))

        case .spendLess(let target, let match, let category):
            let matching = inWeek.filter { Self.isCardPayment($0) && Self.matches($0, match, category) }
            let (counted, leftOut) = Self.split(matching, currency: currency)
            let spent = Money.sum(counted.map { Money.negate($0.amount.minorUnits) })
            let left = Money.add(target.minorUnits, Money.negate(spent))
            return try checked(RuleFigure(rule: name, period: .week(week), amount: Money(minorUnits: max(0, left), currency: currency),
                                          counted: counted.map(\.id), leftOut: leftOut.map(\.id)))

        case .payday(let hundredths, let match, let minimum):
            let paid = inWeek.filter { transaction in
                guard transaction.amount.minorUnits > 0 else { return false }
                if Self.matches(transaction.counterparty, match) { return true }
                guard let minimum, transaction.amount.currency == minimum.currency else { return false }
                return transaction.amount.minorUnits >= minimum.minorUnits
            }
            let (counted, leftOut) = Self.split(paid, currency: currency)
            var total: Int64 = 0
            for payment in counted {
                // Rounded down per payment: floor(amount × hundredths / 10,000).
                guard let scaled = Self.times(payment.amount.minorUnits, hundredths) else { throw .tooLarge(rule: name) }
                total = Money.add(total, scaled / 10_000)
            }
            return try checked(RuleFigure(rule: name, period: .week(week), amount: Money(minorUnits: total, currency: currency),
                                          counted: counted.map(\.id), leftOut: leftOut.map(\.id)))
        }
    }

    private func checked(_ figure: RuleFigure) throws(RuleFigure.Problem) -> RuleFigure {
        guard figure.amount.isWithinBounds, figure.amount.minorUnits >= 0 else { throw .tooLarge(rule: name) }
        return figure
    }

    /// A card payment: money out that the source says was made by card (Up), else that it can
    /// round up (Starling: settled or pending card payments; declined and reversed ones are never
    /// listed).
    static func isCardPayment(_ transaction: Transaction) -> Bool {
        transaction.isMoneyOut && (transaction.cardPayment ?? transaction.roundsUp)
    }

    /// Whether the payment's counterparty contains one of `words` or its bank category is one of
    /// `categories`.
    static func matches(_ payment: Transaction, _ words: [String], _ categories: [String]) -> Bool {
        matches(payment.counterparty, words) || categories.contains { sameCategory(payment.category, $0) }
    }

    /// Whether `text` contains one of `words`, in any case; no words match nothing.
    static func matches(_ text: String, _ words: [String]) -> Bool {
        words.contains { !$0.isEmpty && text.localizedCaseInsensitiveContains($0) }
    }

    /// The payments in `currency`, and the others (left out, named).
    static func split(_ payments: [Transaction], currency: Currency) -> (counted: [Transaction], leftOut: [Transaction]) {
        (payments.filter { $0.amount.currency == currency }, payments.filter { $0.amount.currency != currency })
    }

    /// `a × b`, nil where it overflows.
    static func times(_ a: Int64, _ b: Int64) -> Int64? {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? nil : product
    }

    /// Whole weeks from `first` to `week` (both Mondays in one calendar), through calendar days
    /// so a DST change between them cannot shift the count.
    static func weeks(from first: Week, to week: Week) -> Int? {
        first.calendar.dateComponents([.day], from: first.start, to: week.start).day.map { ($0 + 3) / 7 }
    }
}
