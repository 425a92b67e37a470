import TermUI

/// Keys typed while a screen waits for its data (`Outcome.hold`: `s` while the week loads, then
/// `j Enter y`): kept in order, at most `limit`, and handed back once a store answers, so what
/// was typed is done as typed, not dropped.
struct HeldKeys {
    static let limit = 64
    private(set) var keys: [Key] = []

    var isHolding: Bool { !keys.isEmpty }

    mutating func hold(_ key: Key) {
        if keys.count < Self.limit { keys.append(key) }
    }

    /// The keys held, in order; none are held after.
    mutating func take() -> [Key] {
        defer { keys = [] }
        return keys
    }
}
