import Foundation

/// An amount of money in integer minor units (cents, pence) of one currency.
/// Never summed as floating point: JSON numbers arrive as `Decimal` and are rounded once.
public struct Money: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var minorUnits: Int64
    public var currency: Currency

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
        guard rounded.magnitude <= Decimal(string: "100000000000000000")! else { return nil }
        self.init(minorUnits: NSDecimalNumber(decimal: rounded).int64Value, currency: currency)
    }

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
    public var magnitude: Money { Money(minorUnits: abs(minorUnits), currency: currency) }

    public static func < (lhs: Money, rhs: Money) -> Bool {
        precondition(lhs.currency == rhs.currency, "comparing \(lhs.currency) with \(rhs.currency)")
        return lhs.minorUnits < rhs.minorUnits
    }

    /// Adds two amounts of one currency; adding different currencies is a programming error.
    public static func + (lhs: Money, rhs: Money) -> Money {
        precondition(lhs.currency == rhs.currency, "adding \(lhs.currency) to \(rhs.currency)")
        return Money(minorUnits: lhs.minorUnits + rhs.minorUnits, currency: lhs.currency)
    }

    public static func - (lhs: Money, rhs: Money) -> Money {
        precondition(lhs.currency == rhs.currency, "subtracting \(rhs.currency) from \(lhs.currency)")
        return Money(minorUnits: lhs.minorUnits - rhs.minorUnits, currency: lhs.currency)
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
