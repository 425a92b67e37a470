import TermUI

/// Keys a config file binds to the app's actions, by name (`down = ["j", "Down"]`). The shared
/// keys and each screen's are rebound; the help is drawn from the rebound maps, so it shows them.
public struct KeyOverrides: Sendable, Equatable {
    var actions: [AppAction: [Key]] = [:]

    public init() {}

    public var isEmpty: Bool { actions.isEmpty }

    /// The names a config file may use, in the help's order.
    public static var actionNames: [String] { AppAction.configNames.map(\.name) }

    /// Binds `keys` to the action called `name` (replacing its own keys); false when no action
    /// has that name.
    public mutating func bind(_ name: String, to keys: [Key]) -> Bool {
        guard let action = AppAction.configNames.first(where: { $0.name == name })?.action else { return false }
        actions[action] = keys
        return true
    }
}

extension AppAction {
    /// What a config file calls each action that has keys of its own (`nextMatch` is `n` with a filter).
    static let configNames: [(name: String, action: AppAction)] = [
        ("down", .moveDown), ("up", .moveUp), ("page-down", .pageDown), ("page-up", .pageUp), ("top", .top), ("bottom", .bottom),
        ("scroll-down", .scrollDown), ("scroll-up", .scrollUp), ("open", .open), ("back", .back),
        ("next-tab", .nextTab), ("previous-tab", .previousTab),
        ("tab-1", .showTab(1)), ("tab-2", .showTab(2)), ("tab-3", .showTab(3)), ("tab-4", .showTab(4)),
        ("filter", .filter), ("people", .people), ("refresh", .refresh), ("help", .help), ("quit", .quit), ("redraw", .redraw),
        ("new-goal", .newGoal), ("previous-match", .previousMatch), ("look-further-back", .lookFurtherBack),
        ("previous-week", .previousWeek), ("next-week", .nextWeek), ("save", .save),
    ]
}
