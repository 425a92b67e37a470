/// Semantic colours: screens say what a colour means, the `Theme` decides what it looks like.
public enum ColorRole: UInt8, CaseIterable, Hashable, Sendable {
    case accent, selection, muted, moneyIn, moneyOut, warning, error, title, border, highlight
}
