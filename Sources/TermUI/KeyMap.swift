/// The key bindings of a screen. The same value dispatches keys (`action(for:)`) and
/// generates the help (`sections`), so the help can never disagree with what keys do.
public struct KeyMap<Action>: Sendable where Action: Sendable {
    public private(set) var bindings: [KeyBinding<Action>] = []
    private var lookup: [Key: Int] = [:]

    public init(_ bindings: [KeyBinding<Action>] = []) {
        for b in bindings { add(b) }
    }

    /// Binds `keys` to `action`. A key bound twice keeps its first binding, as the help lists it.
    public mutating func bind(_ keys: [Key], to action: Action, help: String, section: String) {
        add(KeyBinding(keys, action, help: help, section: section))
    }

    public mutating func add(_ binding: KeyBinding<Action>) {
        let index = bindings.count
        let fresh = binding.keys.filter { lookup[$0] == nil }
        guard !fresh.isEmpty else { return }
        var kept = binding
        kept.keys = fresh
        bindings.append(kept)
        for key in fresh { lookup[key] = index }
    }

    public func action(for key: Key) -> Action? {
        lookup[key].map { bindings[$0].action }
    }

    /// The help's lines for this map, in binding order; maps of different action types (a
    /// screen's, a dialog's) are listed in one help by joining their entries.
    public var helpEntries: [HelpEntry] {
        bindings.map { HelpEntry(section: $0.section, keys: $0.keys, help: $0.help) }
    }

    /// Bindings grouped by section, sections in the order they were first used.
    public var sections: [(name: String, bindings: [KeyBinding<Action>])] {
        var order: [String] = []
        var groups: [String: [KeyBinding<Action>]] = [:]
        for b in bindings {
            if groups[b.section] == nil { order.append(b.section) }
            groups[b.section, default: []].append(b)
        }
        return order.map { ($0, groups[$0] ?? []) }
    }
}

extension KeyMap where Action: Hashable {
    /// This map with the actions in `overrides` bound to the keys given instead of their own (in
    /// the same place, so the help keeps its order); a key an override takes leaves every other
    /// binding. A binding left without keys is dropped (and so is its line in the help).
    public func rebinding(_ overrides: [Action: [Key]]) -> KeyMap {
        guard !overrides.isEmpty else { return self }
        let taken = Set(overrides.values.joined())
        var map = KeyMap()
        for binding in bindings {
            var rebound = binding
            rebound.keys = overrides[binding.action] ?? binding.keys.filter { !taken.contains($0) }
            if !rebound.keys.isEmpty { map.add(rebound) }
        }
        return map
    }
}
