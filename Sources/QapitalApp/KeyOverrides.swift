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
    /// What a config file calls the action (a screen's own action is named by its screen). The
    /// switch has no default, so a new shared action cannot be added without a name;
    /// `configNames` lists every action some key map binds.
    var configName: String {
        switch self {
        case .moveDown: "down"
        case .moveUp: "up"
        case .pageDown: "page-down"
        case .pageUp: "page-up"
        case .top: "top"
        case .bottom: "bottom"
        case .scrollDown: "scroll-down"
        case .scrollUp: "scroll-up"
        case .open: "open"
        case .back: "back"
        case .nextTab: "next-tab"
        case .previousTab: "previous-tab"
        case .showTab(let number): "tab-\(number)"
        case .filter: "filter"
        case .refresh: "refresh"
        case .help: "help"
        case .quit: "quit"
        case .redraw: "redraw"
        case .people: "people"
        case .newGoal: "new-goal"
        case .signInAtBank: "sign-in"
        case .nextMatch: "next-match"
        case .previousMatch: "previous-match"
        case .own(let name): name
        }
    }

    /// Every action a key map binds (the shared keys, each tab's, each pushed screen's), by its
    /// config name, in the help's order: what a config file's `[keys]` may rebind.
    static var configNames: [(name: String, action: AppAction)] {
        var seen = Set<AppAction>()
        var names: [(name: String, action: AppAction)] = []
        for binding in keyMaps.flatMap(\.bindings) where seen.insert(binding.action).inserted {
            names.append((binding.action.configName, binding.action))
        }
        return names
    }

    /// The shared key map, then each tab's and each pushed screen's, in the help's order.
    static var keyMaps: [KeyMap<AppAction>] {
        [AppAction.keyMap] + AppCore.tabs.map { $0.keyMap } + KeysHelp.pushedScreens.map { $0.keyMap }
    }
}
