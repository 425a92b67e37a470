import FeedModel

/// The demo's amounts, planned in US cents, in the account's currency: a two-decimal currency
/// keeps the numbers as they are ($12.50 → £12.50), others are converted at a rough rate so
/// they read as real amounts would (¥150 and 0.310 KWD a dollar), never ×100.
struct DemoScale {
    let currency: Currency
    /// Thousandths of a whole unit per US dollar.
    let milliUnitsPerDollar: Int64

    init(currency: Currency) {
        self.currency = currency
        milliUnitsPerDollar = currency.minorDigits == 2 ? 1_000
            : DemoScale.rates[currency.code] ?? (currency.minorDigits == 0 ? 100_000 : 1_000)
    }

    /// Rough whole units per dollar × 1000, for currencies whose exponent is not 2.
    private static let rates: [String: Int64] = [
        "JPY": 150_000, "KRW": 1_400_000, "ISK": 140_000, "CLP": 950_000, "VND": 25_000_000, "UGX": 3_700_000,
        "PYG": 7_500_000, "XAF": 600_000, "XOF": 600_000, "XPF": 110_000, "RWF": 1_300_000, "BIF": 2_900_000,
        "GNF": 8_600_000, "DJF": 178_000, "KMF": 450_000, "VUV": 120_000, "UYI": 40_000,
        "KWD": 310, "BHD": 376, "OMR": 385, "JOD": 709, "TND": 3_100, "LYD": 4_800, "IQD": 1_310_000,
        "CLF": 30,
    ]

    /// `cents` US cents in minor units of the currency, rounded to a multiple of `step` minor
    /// units (never to zero when `cents` is not zero).
    func minor(_ cents: Int64, step: Int64 = 1) -> Int64 {
        let exact = Double(cents) * Double(milliUnitsPerDollar) * Double(currency.minorPerUnit) / 100_000
        let step = max(1, step)
        let rounded = Int64((exact / Double(step)).rounded()) * step
        return cents != 0 && rounded == 0 ? (cents < 0 ? -step : step) : rounded
    }
}
