import TermUI

/// Everything a key can ask a screen or the app to do. `keyMap` holds the keys every screen
/// shares; a screen's own keys are in its `keyMap`, an overlay's in its own.
enum AppAction: Hashable, Sendable {
    case moveDown, moveUp, pageDown, pageUp, top, bottom
    case scrollDown, scrollUp
    case open, back
    case nextTab, previousTab
    case showTab(Int)
    case filter, refresh, help, quit, redraw
    case people
    case previousWeek, nextWeek, save, newGoal
    /// `n` and `N` with a filter set (nothing without one: `n` never means anything else).
    case nextMatch, previousMatch
    /// Activity, after a year of empty windows: walk another year back.
    case lookFurtherBack
    /// Achievements: all, done, in progress, locked.
    case cycleShow
    /// A goal and Round-ups: show or hide the chart.
    case toggleChart
    /// A goal: the selected saving in a card, its message whole.
    case details

    /// The keys every screen shares; tab keys come from `AppCore.tabs`.
    nonisolated static let keyMap: KeyMap<AppAction> = {
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
        map.bind([.enter], to: .open, help: "open: a goal, a person, a row's details (in a goal: its people)", section: views)
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
        map.bind([.char("n")], to: .nextMatch, help: "with a filter set: next match", section: actions)
        map.bind([.char("N")], to: .previousMatch, help: "with a filter set: previous match", section: actions)
        return map
    }()
}
