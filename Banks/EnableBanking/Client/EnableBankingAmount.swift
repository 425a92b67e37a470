import FeedModel
import Foundation

/// Enable Banking's amounts are decimal strings (`"1234.5"`, `"0.10"`, JPY `"1200"`): read here
/// exactly into integer minor units by the currency's ISO 4217 exponent, never through `Double`.
/// The sign is the `credit_debit_indicator`'s (`DBIT` out, `CRDT` in), whatever the string's.
public enum EnableBankingAmount {
    /// `^[+-]?\d+(\.\d+)?$` with at most `minorDigits` fractional digits, as its magnitude in
    /// minor units: `"1234.5"` with 2 → 123450, `"-3.50"` → 350. Nil for anything else
    /// (`"1,234.56"`, `"1e3"`, `""`, `" 1"`, `"1."`), for more fractional digits than the
    /// currency has, and past `Money.maxMagnitude`.
    public static func magnitude(_ text: String, minorDigits: Int) -> Int64? {
        guard (0...18).contains(minorDigits) else { return nil }
        var bytes = Array(text.utf8)[...]
        guard !bytes.isEmpty, bytes.count <= 64 else { return nil }
        if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let digit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let whole = bytes.prefix { digit($0) }
        guard !whole.isEmpty else { return nil }
        let rest = bytes.dropFirst(whole.count)
        var fraction = ArraySlice<UInt8>()
        if let dot = rest.first {
            guard dot == UInt8(ascii: "."), rest.count >= 2 else { return nil }
            fraction = rest.dropFirst()
            guard fraction.allSatisfy(digit), fraction.count <= minorDigits else { return nil }
        }
        var value: Int64 = 0
        func push(_ byte: UInt8) -> Bool {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return false }
            let (sum, overflowAdding) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflowAdding, sum <= Money.maxMagnitude else { return false }
            value = sum
            return true
        }
        for byte in whole where !push(byte) { return nil }
        for byte in fraction where !push(byte) { return nil }
        for _ in fraction.count..<minorDigits where !push(UInt8(ascii: "0")) { return nil }
        return value
    }

    /// The signed amount of a transaction: nil when the currency is not ISO 4217, the amount is
    /// unreadable, or the indicator is neither `CRDT` nor `DBIT` (such a row is listed, marked, in no sum).
    public static func money(_ amount: EnableBanking.AmountValue?, indicator: String?) -> Money? {
        guard let amount, let currency = Currency.from(code: amount.currency),
              let magnitude = magnitude(amount.amount, minorDigits: currency.minorDigits) else { return nil }
        switch indicator?.uppercased() {
        case "CRDT": return Money(bounded: magnitude, currency: currency)
        case "DBIT": return Money(bounded: -magnitude, currency: currency)
        default: return nil
        }
    }

    /// A balance's amount: its own sign (a balance has no indicator; an overdrawn one is `"-12.30"`).
    public static func balance(_ amount: EnableBanking.AmountValue?) -> Money? {
        guard let amount, let currency = Currency.from(code: amount.currency),
              let magnitude = magnitude(amount.amount, minorDigits: currency.minorDigits) else { return nil }
        return Money(bounded: amount.amount.hasPrefix("-") ? -magnitude : magnitude, currency: currency)
    }

    /// Minor units written the way the API writes them: `-12.30` with 2 digits, `1200` with 0.
    public static func text(_ minorUnits: Int64, minorDigits: Int) -> String {
        let magnitude = minorUnits.magnitude
        var per: UInt64 = 1
        for _ in 0..<minorDigits { per *= 10 }
        let sign = minorUnits < 0 ? "-" : ""
        guard minorDigits > 0 else { return sign + String(magnitude) }
        let fraction = String(magnitude % per)
        return sign + String(magnitude / per) + "." + String(repeating: "0", count: minorDigits - fraction.count) + fraction
    }
}
