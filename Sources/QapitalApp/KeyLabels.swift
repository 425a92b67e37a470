import TermUI

/// How a hint names the key for an action, as the config file binds it: with `quit = "Q"` the
/// status bar says `Q quit`, never `q quit`. Screens read it from `ScreenData.keys`.
struct KeyLabels: Sendable {
    private let labels: [AppAction: String]

    init(_ overrides: KeyOverrides) {
        var labels: [AppAction: String] = [:]
        for binding in AppAction.keyMaps.flatMap(\.bindings) where labels[binding.action] == nil {
            if let key = (overrides.actions[binding.action] ?? binding.keys).first { labels[binding.action] = key.displayName }
        }
        self.labels = labels
    }

    /// The keys as the app binds them without a config file.
    static let defaults = KeyLabels(KeyOverrides())

    /// The first key bound to `action` ("r" for refresh by default); "?" where none is.
    subscript(_ action: AppAction) -> String { labels[action] ?? "?" }

    /// The first key bound to a screen's own action ("s" for Round-ups' save by default).
    subscript(_ action: some ScreenAction) -> String { self[action.action] }
}
