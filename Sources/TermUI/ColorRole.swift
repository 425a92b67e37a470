/// Semantic colours: screens say what a colour means, the `Theme` decides what it looks like.
public enum ColorRole: UInt8, CaseIterable, Hashable, Sendable {
    case accent, selection, muted, moneyIn, moneyOut, warning, error, title, border, highlight
}

extension ColorRole {
    /// What a config file calls the role (`money-in`).
    public var configName: String {
        switch self {
        case .accent: "accent"
        case .selection: "selection"
        case .muted: "muted"
        case .moneyIn: "money-in"
        case .moneyOut: "money-out"
        case .warning: "warning"
        case .error: "error"
        case .title: "title"
        case .border: "border"
        case .highlight: "highlight"
        }
    }
}

extension Color {
    /// A colour as a config file writes it: `"default"`, an xterm number 0–255 (as text here),
    /// `"#rrggbb"`, or one of the terminal's sixteen by name (`"red"`, `"bright-blue"`).
    public init?(configValue text: String) {
        let names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]
        let lower = text.lowercased()
        if lower == "default" {
            self = .default
        } else if let n = Int(lower), (0...255).contains(n) {
            self = .indexed(UInt8(n))
        } else if lower.hasPrefix("#"), lower.count == 7, let value = UInt32(lower.dropFirst(), radix: 16) {
            self = .rgb(UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
        } else if let i = names.firstIndex(of: lower) {
            self = .indexed(UInt8(i))
        } else if lower.hasPrefix("bright-"), let i = names.firstIndex(of: String(lower.dropFirst(7))) {
            self = .indexed(UInt8(i + 8))
        } else {
            return nil
        }
    }
}
