import TermUI

/// Which action a key means on a screen: the screen's own keys first, then the shared ones,
/// each as the config file rebinds them.
@MainActor
final class ScreenKeys {
    private let overrides: KeyOverrides
    /// The shared keys, rebound.
    private let shared: KeyMap<AppAction>
    /// Each screen type's own keys, rebound likewise (made on first use).
    private var own: [ObjectIdentifier: KeyMap<AppAction>] = [:]

    init(_ overrides: KeyOverrides) {
        self.overrides = overrides
        shared = AppAction.keyMap.rebinding(overrides.actions)
    }

    /// With a filter set, `n` and `N` jump between matches (as in less); without one they are nothing.
    func action(for key: Key, on screen: any Screen) -> AppAction? {
        let action = keyMap(for: type(of: screen)).action(for: key) ?? shared.action(for: key)
        if screen.filter.isEmpty, action == .nextMatch || action == .previousMatch { return nil }
        return action
    }

    private func keyMap(for type: any Screen.Type) -> KeyMap<AppAction> {
        if let map = own[ObjectIdentifier(type)] { return map }
        let map = type.keyMap.rebinding(overrides.actions)
        own[ObjectIdentifier(type)] = map
        return map
    }
}
