import TermUI

/// What a key asks of a screen or the app: the actions every screen shares (moves, tabs, `/`,
/// `u`, `r`, `?`, `q`), and a screen's own (`own`), which the screen declares with itself as a
/// `ScreenAction` and the core passes on by name without knowing it. `keyMap` holds the shared
/// keys; a screen's own keys are in its `keyMap`, an overlay's in its own.
enum AppAction: Hashable, Sendable {
    case moveDown, moveUp, pageDown, pageUp, top, bottom
    case scrollDown, scrollUp
    case open, back
    case nextTab, previousTab
    case showTab(Int)
    case filter, refresh, help, quit, redraw
    case people
    case newGoal
    /// `L`: sign in at the bank again (a source that signs in through a consent).
    case signInAtBank
    /// `n` and `N` with a filter set (nothing without one: `n` never means anything else).
    case nextMatch, previousMatch
    /// A screen's own action, by the name a config file rebinds it by (`previous-week`).
    case own(String)

    /// The keys every screen shares; tab keys come from `AppCore.tabs` (so from a tab a test adds too).
    nonisolated static var keyMap: KeyMap<AppAction> {
        var map = KeyMap<AppAction>()
        let move = "Move"
        map.bind([.char("j"), .down], to: .moveDown, help: "down", section: move)
        map.bind([.char("k"), .up], to: .moveUp, help: "up", section: move)
        map.bind([.pageDown, .ctrl("f")], to: .pageDown, help: "page down", section: move)
        map.bind([.pageUp, .ctrl("b")], to: .pageUp, help: "page up", section: move)
        map.bind([.char("g"), .home], to: .top, help: "top", section: move)
        map.bind([.char("G"), .end], to: .bottom, help: "bottom", section: move)
        map.bind([.mouseWheelDown], to: .scrollDown, help: "scroll down (mouse wheel)", section: move)
        map.bind([.mouseWheelUp], to: .scrollUp, help: "scroll up (mouse wheel)", section: move)
        let views = "Views"
        map.bind([.enter], to: .open, help: "open: a goal, a person, a row's details", section: views)
        map.bind([.escape, .backspace, .char("h")], to: .back, help: "back (Esc also clears a filter)", section: views)
        map.bind([.tab], to: .nextTab, help: "next tab", section: views)
        map.bind([.backTab], to: .previousTab, help: "previous tab", section: views)
        for (index, screen) in AppCore.tabs.enumerated() where index < 9 {
            let number = index + 1
            map.bind([.char(Character(String(number)))], to: .showTab(number), help: screen.title, section: views)
        }
        let actions = "Actions"
        map.bind([.char("/")], to: .filter, help: "filter the list (Enter keeps it, Esc clears)", section: actions)
        map.bind([.char("u")], to: .people, help: "who is behind the goal, saving or activity", section: actions)
        map.bind([.char("r")], to: .refresh, help: "refresh, or retry what failed", section: actions)
        map.bind([.char("?")], to: .help, help: "this help", section: actions)
        map.bind([.ctrl("l")], to: .redraw, help: "draw the whole screen again", section: actions)
        map.bind([.char("q")], to: .quit, help: "quit (in a goal: back)", section: actions)
        map.bind([.char("a")], to: .newGoal, help: "add a goal (Goals, a goal, Round-ups)", section: actions)
        map.bind([.char("L")], to: .signInAtBank, help: "sign in at the bank in a browser (consent or OAuth)", section: actions)
        map.bind([.char("n")], to: .nextMatch, help: "with a filter set: next match", section: actions)
        map.bind([.char("N")], to: .previousMatch, help: "with a filter set: previous match", section: actions)
        return map
    }
}

/// A screen's own actions, declared in the screen's file (`RoundUpsScreen.Action`): an enum whose
/// raw values are the names a config file rebinds them by. Bound in the screen's `keyMap`, they
/// reach the screen as `AppAction.own`, which `init?(_:)` reads back; the core, the help, the
/// key names and the config file find them through the screen's `keyMap` and `AppCore.tabs`.
protocol ScreenAction: RawRepresentable<String>, Hashable, Sendable {}

extension ScreenAction {
    /// As the key maps and the core carry it.
    var action: AppAction { .own(rawValue) }

    /// The screen's action a key was bound to, if it is one of this screen's.
    init?(_ action: AppAction?) {
        guard case .own(let name)? = action else { return nil }
        self.init(rawValue: name)
    }
}

extension KeyMap<AppAction> {
    /// Binds `keys` to a screen's own action.
    mutating func bind(_ keys: [Key], to action: some ScreenAction, help: String, section: String) {
        bind(keys, to: action.action, help: help, section: section)
    }
}
