import FeedModel
import Foundation

/// SimpleFIN's amounts and balances are decimal strings (`"-0.10"`, `"1234.5"`, `"100"`): read
/// here exactly into integer minor units, never through `Double` or `Decimal` rounding.
public enum SimpleFINAmount {
    /// `^[+-]?\d+(\.\d+)?$` in `minorDigits` minor digits: `"1234.5"` with 2 → 123450. Nil for
    /// anything else (`"-1,234.56"`, `"1e3"`, `""`, `" 1"`), for more fractional digits than the
    /// currency has, and past `Money.maxMagnitude`.
    public static func minorUnits(_ text: String, minorDigits: Int) -> Int64? {
        guard (0...18).contains(minorDigits) else { return nil }
        var bytes = Array(text.utf8)[...]
        guard !bytes.isEmpty, bytes.count <= 64 else { return nil }
        var negative = false
        if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") {
            negative = bytes.first == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        let digit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let whole = bytes.prefix { digit($0) }
        guard !whole.isEmpty else { return nil }
        var rest = bytes.dropFirst(whole.count)
        var fraction = ArraySlice<UInt8>()
        if let dot = rest.first {
            guard dot == UInt8(ascii: "."), rest.count >= 2 else { return nil }
            rest = rest.dropFirst()
            fraction = rest
            guard fraction.allSatisfy(digit), fraction.count <= minorDigits else { return nil }
        }
        var value: Int64 = 0
        func push(_ byte: UInt8) -> Bool {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return false }
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow2, sum <= Money.maxMagnitude else { return false }
            value = sum
            return true
        }
        for byte in whole where !push(byte) { return nil }
        for byte in fraction where !push(byte) { return nil }
        for _ in fraction.count..<minorDigits where !push(UInt8(ascii: "0")) { return nil }
        return negative ? -value : value
    }

    /// `minorUnits` written back the way SimpleFIN writes it: `-12.30` with 2 digits, `1200` with 0.
    public static func text(_ minorUnits: Int64, minorDigits: Int) -> String {
        let magnitude = minorUnits.magnitude
        var per: UInt64 = 1
        for _ in 0..<minorDigits { per *= 10 }
        let whole = String(magnitude / per)
        let sign = minorUnits < 0 ? "-" : ""
        guard minorDigits > 0 else { return sign + whole }
        let fraction = String(magnitude % per)
        return sign + whole + "." + String(repeating: "0", count: minorDigits - fraction.count) + fraction
    }
}

/// An account's `currency`: an ISO 4217 code (its exponent from the table) or something else:
/// a URL naming a custom currency (reward points), never fetched, never shown with a `$`.
public enum SimpleFINCurrency: Hashable, Sendable {
    case iso(Currency)
    /// "custom currency (rewards.example.com)": what is shown in place of a symbol.
    case custom(label: String)

    public init(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let currency = Currency.from(code: trimmed) {
            self = .iso(currency)
        } else if let url = URL(string: trimmed), let host = url.host, !host.isEmpty {
            self = .custom(label: "custom currency (\(TextSanitizer.clean(String(host.prefix(60)))))")
        } else {
            self = .custom(label: "custom currency (\(TextSanitizer.clean(String(trimmed.prefix(20)))))")
        }
    }

    public var iso: Currency? {
        if case .iso(let currency) = self { return currency }
        return nil
    }
}
