/// An ISO 4217 currency as far as display and rounding need it.
public struct Currency: Hashable, Sendable, CustomStringConvertible {
    public let code: String
    /// Digits after the decimal point in the currency's minor unit (2 for USD, 0 for JPY).
    public let minorDigits: Int
    public let symbol: String

    public init(code: String, minorDigits: Int = 2, symbol: String? = nil) {
        let upper = code.uppercased()
        self.code = upper
        self.minorDigits = minorDigits
        self.symbol = symbol ?? Currency.knownSymbols[upper] ?? upper + " "
    }

    public static let usd = Currency(code: "USD")
    public static let gbp = Currency(code: "GBP")
    public static let eur = Currency(code: "EUR")
    public static let sek = Currency(code: "SEK")
    public static let jpy = Currency(code: "JPY", minorDigits: 0)

    private static let knownSymbols: [String: String] = [
        "USD": "$", "GBP": "£", "EUR": "€", "JPY": "¥", "SEK": "kr ", "NOK": "kr ", "DKK": "kr ",
        "CAD": "CA$", "AUD": "A$", "CHF": "CHF ", "INR": "₹",
    ]
    private static let zeroDigitCodes: Set<String> = ["JPY", "KRW", "ISK", "CLP", "VND"]

    /// A currency from an ISO code as the server writes it; `nil` when it is not three letters.
    public static func from(code: String) -> Currency? {
        let upper = code.uppercased()
        guard upper.count == 3, upper.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        return Currency(code: upper, minorDigits: zeroDigitCodes.contains(upper) ? 0 : 2)
    }

    public var description: String { code }

    /// 10 ^ minorDigits: minor units in one whole unit.
    public var minorPerUnit: Int64 {
        var value: Int64 = 1
        for _ in 0..<minorDigits { value *= 10 }
        return value
    }
}
