/// A one-row progress bar with a percentage. Uses eighth blocks (▏▎▍▌▋▊▉█) or, as a text
/// fallback, `[####----]`. A fraction over 1 shows a full bar in `overStyle` with a bold
/// percentage (e.g. 150%), so a goal past its target stands out even without colour.
public struct ProgressBar: Sendable {
    public var fraction: Double
    public var usesBlocks: Bool
    public var showsPercentage: Bool
    public var fillStyle = Style(fg: .role(.accent))
    public var overStyle = Style(fg: .role(.moneyIn), attributes: .bold)
    public var trackStyle = Style(fg: .role(.muted))

    static let eighths: [Character] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"]

    public init(fraction: Double, usesBlocks: Bool = true, showsPercentage: Bool = true) {
        self.fraction = fraction.isFinite ? max(0, fraction) : 0
        self.usesBlocks = usesBlocks
        self.showsPercentage = showsPercentage
    }

    public var isOver: Bool { fraction > 1 }

    /// Whole percent, rounded down so 99.9 % never reads 100 %.
    /// Capped so that an absurd fraction from the server (1e17) cannot overflow `Int`.
    public var percent: Int { Int(min(fraction * 100, 999_999).rounded(.down)) }

    /// The bar as styled runs exactly `width` cells wide.
    public func spans(width: Int) -> [Span] {
        guard width > 0 else { return [] }
        let label = showsPercentage ? TextWidth.pad("\(percent)%", to: 5, alignRight: true) : ""
        let labelWidth = label.isEmpty || TextWidth.of(label) >= width ? 0 : TextWidth.of(label)
        let barWidth = width - labelWidth
        let filled = isOver ? overStyle : fillStyle
        var spans: [Span] = []
        if usesBlocks {
            let eighths = Int((min(fraction, 1) * Double(barWidth * 8)).rounded(.down))
            let full = eighths / 8, rest = eighths % 8
            var bar = String(repeating: "█", count: full)
            if rest > 0 { bar.append(Self.eighths[rest - 1]) }
            spans.append(Span(bar, filled))
            spans.append(Span(String(repeating: "·", count: barWidth - TextWidth.of(bar)), trackStyle))
        } else if barWidth >= 2 {
            let inner = barWidth - 2
            let hashes = Int((min(fraction, 1) * Double(inner)).rounded(.down))
            spans.append(Span("[", trackStyle))
            spans.append(Span(String(repeating: "#", count: hashes), filled))
            spans.append(Span(String(repeating: "-", count: inner - hashes), trackStyle))
            spans.append(Span("]", trackStyle))
        } else {
            spans.append(Span(String(repeating: " ", count: barWidth), trackStyle))
        }
        if labelWidth > 0 { spans.append(Span(label, isOver ? overStyle : .plain)) }
        return spans.filter { !$0.text.isEmpty }
    }

    public func draw(into buffer: inout CellBuffer, x: Int, y: Int, width: Int) {
        buffer.write(spans(width: width), x: x, y: y, maxWidth: width)
    }
}
