/// Round-ups in integer minor units: each payment (money out) rounds up to the next step of its
/// own currency (a whole unit; for a currency without minor units, such as JPY, ¥100 or what
/// `--round-up-step` says); money in is ignored; currencies are totalled apart, never added together.
public enum RoundUp {
    /// What a payment rounds up by: 4.35 out → 0.65, a whole amount → 0; ¥1,234 out → ¥66 (step
    /// ¥100). `step` is in minor units (default: the currency's `defaultRoundUpStep`). `nil` for
    /// money in (and for zero), which is not a payment.
    public static func of(_ amount: Money, step: Int64? = nil) -> Money? {
        guard amount.minorUnits < 0 else { return nil }
        let perStep = UInt64(max(1, step ?? amount.currency.defaultRoundUpStep))
        // `magnitude` is unsigned, so even Int64.min has one.
        let fraction = amount.minorUnits.magnitude % perStep
        return Money(minorUnits: Int64((perStep - fraction) % perStep), currency: amount.currency)
    }

    /// One payment with its round-up.
    public struct Line: Hashable, Sendable, Identifiable {
        public let transaction: Transaction
        public let roundUp: Money
        public var id: String { transaction.id }
    }

    /// A set of transactions as the Round-ups tab shows them.
    public struct Summary: Hashable, Sendable {
        public let accountCurrency: Currency
        /// Payments only, newest first.
        public let lines: [Line]
        /// One total per currency that has payments.
        public let totals: [Currency: Money]

        /// `step`: what payments in the account's currency round up to, in minor units (nil: the
        /// currency's default); payments in other currencies use their own currency's default.
        public init(transactions: [Transaction], accountCurrency: Currency, step: Int64? = nil) {
            self.accountCurrency = accountCurrency
            lines = transactions
                .compactMap { transaction in
                    guard transaction.roundsUp else { return nil }
                    // The bank's own round-up, as it made it (Up): never computed again here.
                    if let made = transaction.bankRoundUp { return Line(transaction: transaction, roundUp: made.magnitude) }
                    let own = transaction.amount.currency == accountCurrency ? step : nil
                    return RoundUp.of(transaction.amount, step: own).map { Line(transaction: transaction, roundUp: $0) }
                }
                .sorted { $0.transaction.timestamp != $1.transaction.timestamp
                    ? $0.transaction.timestamp > $1.transaction.timestamp : $0.id < $1.id }
            var totals: [Currency: Money] = [:]
            for line in lines {
                totals[line.roundUp.currency] = (totals[line.roundUp.currency] ?? .zero(line.roundUp.currency)) + line.roundUp
            }
            self.totals = totals
        }

        /// The total that can be saved: the round-ups of payments in the account's currency.
        public var saveable: Money { totals[accountCurrency] ?? .zero(accountCurrency) }

        /// Payments in the account's currency that round up by something (a whole amount adds
        /// nothing to the total, so it is not counted in "from N payments").
        public var saveableCount: Int { lines.count { isSaveable($0) && !$0.roundUp.isZero } }

        /// Round-up totals in other currencies, by currency code: shown, never saved.
        public var otherTotals: [Money] {
            totals.values.filter { $0.currency != accountCurrency }.sorted { $0.currency.code < $1.currency.code }
        }

        public func isSaveable(_ line: Line) -> Bool { line.roundUp.currency == accountCurrency }

        /// Payments in `currency` that round up by something.
        public func count(in currency: Currency) -> Int { lines.count { $0.roundUp.currency == currency && !$0.roundUp.isZero } }
    }
}
