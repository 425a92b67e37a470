import Foundation

/// An amount of money in integer minor units (cents, pence) of one currency.
/// Never summed as floating point: JSON numbers arrive as `Decimal` and are rounded once.
///
/// Where money enters from outside (a server, the cache, a file) it is made with
/// `init(bounded:currency:)` or `init(decimal:currency:)`, which refuse more than
/// `maxMagnitude`; an answer's record with such an amount is skipped and named. Arithmetic
/// saturates at `Int64`'s ends instead of trapping, so no sum of any length can crash the app.
public struct Money: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var minorUnits: Int64
    public var currency: Currency

    /// The largest magnitude accepted where money enters: 10^17 minor units (a thousand
    /// trillion dollars), far from `Int64`'s 9.2 × 10^18, so that 92 of them still sum exactly.
    public static let maxMagnitude: Int64 = 100_000_000_000_000_000

    public init(minorUnits: Int64, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// Converts an exact decimal (as JSONDecoder reads it) to minor units, rounding half away
    /// from zero when it has more digits than the currency (4.355 → 4.36).
    public init?(decimal: Decimal, currency: Currency) {
        guard decimal.isFinite else { return nil }
        var scaled = decimal * Decimal(currency.minorPerUnit)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &scaled, 0, .plain)
        // Int64 holds ±9.2e18 minor units; refuse anything beyond ±1e17 to stay far from it.
        guard rounded.magnitude <= Decimal(Money.maxMagnitude) else { return nil }
        self.init(minorUnits: NSDecimalNumber(decimal: rounded).int64Value, currency: currency)
    }

    /// Minor units as a source sent them (Starling's `minorUnits`); `nil` past `maxMagnitude`.
    public init?(bounded minorUnits: Int64, currency: Currency) {
        guard minorUnits >= -Money.maxMagnitude && minorUnits <= Money.maxMagnitude else { return nil }
        self.init(minorUnits: minorUnits, currency: currency)
    }

    /// Whether the amount is one a source may send (see `maxMagnitude`).
    public var isWithinBounds: Bool { minorUnits >= -Money.maxMagnitude && minorUnits <= Money.maxMagnitude }

    /// Whole units and minor units written as a decimal string, e.g. "12.5" → 1250 cents.
    public init?(string: String, currency: Currency) {
        guard let decimal = Decimal(string: string, locale: Locale(identifier: "en_US_POSIX")),
              string.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" }) else { return nil }
        self.init(decimal: decimal, currency: currency)
    }

    public static func zero(_ currency: Currency) -> Money { Money(minorUnits: 0, currency: currency) }

    public var decimalValue: Decimal {
        Decimal(minorUnits) / Decimal(currency.minorPerUnit)
    }

    public var isNegative: Bool { minorUnits < 0 }
    public var isZero: Bool { minorUnits == 0 }
    public var magnitude: Money { Money(minorUnits: Money.saturating(minorUnits.magnitude), currency: currency) }

    /// The same amount the other way (money in ↔ money out); `Int64.min` becomes `Int64.max`.
    public var negated: Money { Money(minorUnits: Money.negate(minorUnits), currency: currency) }

    public static func < (lhs: Money, rhs: Money) -> Bool {
        precondition(lhs.currency == rhs.currency, "comparing \(lhs.currency) with \(rhs.currency)")
        return lhs.minorUnits < rhs.minorUnits
    }

    /// Adds two amounts of one currency, saturating; adding different currencies is a programming error.
    public static func + (lhs: Money, rhs: Money) -> Money {
        precondition(lhs.currency == rhs.currency, "adding \(lhs.currency) to \(rhs.currency)")
        return Money(minorUnits: add(lhs.minorUnits, rhs.minorUnits), currency: lhs.currency)
    }

    public static func - (lhs: Money, rhs: Money) -> Money {
        precondition(lhs.currency == rhs.currency, "subtracting \(rhs.currency) from \(lhs.currency)")
        return Money(minorUnits: add(lhs.minorUnits, negate(rhs.minorUnits)), currency: lhs.currency)
    }

    public static func += (lhs: inout Money, rhs: Money) { lhs = lhs + rhs }

    /// `a + b` in minor units, held at `Int64`'s ends instead of trapping.
    public static func add(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    /// `-a`, with `Int64.min` held at `Int64.max`.
    public static func negate(_ a: Int64) -> Int64 { a == .min ? .max : -a }

    /// The sum of amounts in minor units, saturating (an empty list sums to 0).
    public static func sum<S: Sequence>(_ values: S) -> Int64 where S.Element == Int64 {
        values.reduce(0, add)
    }

    private static func saturating(_ magnitude: UInt64) -> Int64 {
        magnitude > UInt64(Int64.max) ? .max : Int64(magnitude)
    }

    /// "$1,250.50", "£0.87", "−$2.50" (a true minus sign), "¥1,200".
    public var formatted: String {
        let sign = minorUnits < 0 ? "\u{2212}" : ""
        return sign + currency.symbol + Money.digits(of: minorUnits.magnitude, currency: currency)
    }

    /// The number without a symbol: "1,250.50".
    public var formattedNumber: String {
        (minorUnits < 0 ? "\u{2212}" : "") + Money.digits(of: minorUnits.magnitude, currency: currency)
    }

    /// The amount as JSON wants it: "1250.5" style plain decimal, exact.
    public var jsonNumberString: String {
        let per = UInt64(currency.minorPerUnit)
        let whole = minorUnits.magnitude / per
        let fraction = minorUnits.magnitude % per
        var text = (minorUnits < 0 ? "-" : "") + String(whole)
        if currency.minorDigits > 0 && fraction > 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: currency.minorDigits - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text
    }

    public var description: String { formatted }

    private static func digits(of magnitude: UInt64, currency: Currency) -> String {
        let per = UInt64(currency.minorPerUnit)
        let whole = String(magnitude / per)
        var grouped = ""
        for (index, digit) in whole.enumerated() {
            if index > 0 && (whole.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        guard currency.minorDigits > 0 else { return grouped }
        let fraction = String(magnitude % per)
        return grouped + "." + String(repeating: "0", count: currency.minorDigits - fraction.count) + fraction
    }
}

extension Money {
    /// A plain decimal with every minor digit, no symbol or grouping: `-4.35`, `1250.00`, `400`
    /// (the journal's and CSV's amounts, and the rules file's as the app writes it).
    public var plainDecimal: String {
        let per = UInt64(currency.minorPerUnit)
        let magnitude = minorUnits.magnitude
        var text = (minorUnits < 0 ? "-" : "") + String(magnitude / per)
        if currency.minorDigits > 0 {
            let fraction = String(magnitude % per)
            text += "." + String(repeating: "0", count: currency.minorDigits - fraction.count) + fraction
        }
        return text
    }
}
