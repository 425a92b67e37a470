/// An ISO 4217 currency as far as display and rounding need it: its code, how many digits its
/// minor unit has (the exponent: 2 for USD, 0 for JPY, 3 for KWD) and its symbol.
public struct Currency: Hashable, Sendable, CustomStringConvertible {
    public let code: String
    /// Digits after the decimal point in the currency's minor unit (2 for USD, 0 for JPY, 3 for KWD).
    public let minorDigits: Int
    public let symbol: String

    /// `minorDigits` defaults to the ISO 4217 exponent of `code` (2 for a code the table lacks).
    public init(code: String, minorDigits: Int? = nil, symbol: String? = nil) {
        let upper = code.uppercased()
        self.code = upper
        self.minorDigits = minorDigits ?? Currency.exponents[upper] ?? 2
        self.symbol = symbol ?? Currency.knownSymbols[upper] ?? upper + " "
    }

    public static let usd = Currency(code: "USD")
    public static let gbp = Currency(code: "GBP")
    public static let eur = Currency(code: "EUR")
    public static let sek = Currency(code: "SEK")
    public static let chf = Currency(code: "CHF")
    public static let jpy = Currency(code: "JPY")
    public static let kwd = Currency(code: "KWD")

    private static let knownSymbols: [String: String] = [
        "USD": "$", "GBP": "£", "EUR": "€", "JPY": "¥", "SEK": "kr ", "NOK": "kr ", "DKK": "kr ",
        "CAD": "CA$", "AUD": "A$", "CHF": "CHF ", "INR": "₹", "KRW": "₩",
    ]

    /// ISO 4217 exponents that are not 2.
    private static let exponents: [String: Int] = [
        "BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0,
        "RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
        "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
        "CLF": 4, "UYW": 4,
    ]

    /// The active ISO 4217 codes of money (not metals, funds for testing or "no currency").
    public static let isoCodes: Set<String> = Set("""
        AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP \
        BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB \
        EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY \
        KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR \
        MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB \
        RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD \
        TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG ZWL
        """.split(separator: " ").map(String.init))

    /// A currency from an ISO 4217 code as the server or the user writes it, with its exponent;
    /// `nil` for anything that is not an active ISO code (its minor unit would be a guess).
    public static func from(code: String) -> Currency? {
        let upper = code.uppercased()
        guard upper.count == 3, isoCodes.contains(upper) else { return nil }
        return Currency(code: upper)
    }

    /// The one-line refusal of a code that is not a currency: `not an ISO 4217 currency code: "XYZ"`.
    public static func refusal(_ code: String) -> String {
        let shown = TextSanitizer.clean(String(code.prefix(12)))
        return "not an ISO 4217 currency code: \"\(shown)\" (e.g. USD, EUR, GBP, JPY, KWD, CHF)"
    }

    public var description: String { code }

    /// 10 ^ minorDigits: minor units in one whole unit.
    public var minorPerUnit: Int64 {
        var value: Int64 = 1
        for _ in 0..<minorDigits { value *= 10 }
        return value
    }

    /// What a payment rounds up to, in minor units, unless configured: one whole unit, or for
    /// a currency whose whole unit is its smallest coin (JPY, KRW…) a step worth about a dollar
    /// (¥100, ₩1,000), so a week's round-ups are not zero.
    public var defaultRoundUpStep: Int64 {
        guard minorDigits == 0 else { return minorPerUnit }
        return Currency.zeroDigitSteps[code] ?? 100
    }

    private static let zeroDigitSteps: [String: Int64] = [
        "KRW": 1_000, "CLP": 1_000, "UGX": 1_000, "RWF": 1_000, "BIF": 1_000, "VND": 10_000, "PYG": 10_000, "GNF": 10_000,
    ]
}
