/// Integer scaling for the charts: a value in `low...high` to one of `steps` levels (0 at
/// `low`, `steps - 1` at `high`), rounded to the nearest, through 128-bit arithmetic so no
/// amount can overflow. Values outside are clamped.
struct ChartScale: Hashable, Sendable {
    let low: Int64
    let high: Int64

    init(low: Int64, high: Int64) {
        self.low = min(low, high)
        self.high = max(low, high)
    }

    /// The range covering all of `values` (nil when there are none).
    init?(covering values: some Sequence<Int64>) {
        var low = Int64.max, high = Int64.min
        for value in values {
            low = min(low, value)
            high = max(high, value)
        }
        guard low <= high else { return nil }
        self.init(low: low, high: high)
    }

    var isFlat: Bool { low == high }

    /// The level of `value` among `steps` (0 ..< steps); a flat range puts everything in the middle.
    func level(_ value: Int64, steps: Int) -> Int {
        guard steps > 1 else { return 0 }
        guard !isFlat else { return (steps - 1) / 2 }
        let clamped = Int128(min(max(value, low), high))
        let span = Int128(high) - Int128(low)
        let scaled = ((clamped - Int128(low)) * Int128(steps - 1) * 2 + span) / (span * 2)
        return Int(scaled)
    }

    /// The level of `value` among `steps`, rounded up, so any value above `low` gets at least 1
    /// (for bars: something saved is never drawn as nothing).
    func levelUp(_ value: Int64, steps: Int) -> Int {
        guard steps > 0, value > low else { return 0 }
        guard !isFlat else { return steps }
        let clamped = Int128(min(value, high))
        let span = Int128(high) - Int128(low)
        return Int(((clamped - Int128(low)) * Int128(steps) + span - 1) / span)
    }
}
