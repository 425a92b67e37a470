import TermUI

/// Everything a key can ask the app to do. The same `KeyMap` dispatches keys and draws the help.
enum AppAction: Hashable, Sendable {
    case moveDown, moveUp, pageDown, pageUp, top, bottom
    case scrollDown, scrollUp
    case open, back
    case nextTab, previousTab
    case showTab(Int)
    case filter, refresh, help, quit
    case people
    case previousWeek, nextWeek, save, newGoal
    case previousMatch
    case lookFurtherBack

    static let keyMap: KeyMap<AppAction> = {
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
        map.bind([.enter], to: .open, help: "open the selected goal (in a goal: its people)", section: views)
        map.bind([.escape, .backspace, .char("h")], to: .back, help: "back (Esc also clears a filter)", section: views)
        map.bind([.tab], to: .nextTab, help: "next tab", section: views)
        map.bind([.backTab], to: .previousTab, help: "previous tab", section: views)
        map.bind([.char("1")], to: .showTab(1), help: "Goals", section: views)
        map.bind([.char("2")], to: .showTab(2), help: "Activity", section: views)
        map.bind([.char("3")], to: .showTab(3), help: "Round-ups", section: views)
        map.bind([.char("4")], to: .showTab(4), help: "Achievements", section: views)
        let actions = "Actions"
        map.bind([.char("/")], to: .filter, help: "filter the list (Enter keeps it, Esc clears)", section: actions)
        map.bind([.char("u")], to: .people, help: "who is behind the goal, saving or activity", section: actions)
        map.bind([.char("r")], to: .refresh, help: "refresh, or retry what failed", section: actions)
        map.bind([.char("?")], to: .help, help: "this help", section: actions)
        map.bind([.char("q")], to: .quit, help: "quit (in a goal: back)", section: actions)
        map.bind([.char("n")], to: .newGoal, help: "new goal (Goals, Round-ups); with a filter set: next match", section: actions)
        map.bind([.char("N")], to: .previousMatch, help: "with a filter set: previous match", section: actions)
        map.bind([.char("m")], to: .lookFurtherBack, help: "Activity, after a year without any: look a year further back",
                 section: actions)
        let roundUps = "Round-ups"
        map.bind([.left, .char("[")], to: .previousWeek, help: "previous week", section: roundUps)
        map.bind([.right, .char("]")], to: .nextWeek, help: "next week (up to this week)", section: roundUps)
        map.bind([.char("s")], to: .save, help: "save the week's round-ups into a goal (after a failure: retry)", section: roundUps)
        let dialogs = "In dialogs, forms and the filter line"
        map.describe([.left, .right, .tab], help: "in a person's card: the previous or next person", section: dialogs)
        map.describe([.enter, .char("y")], help: "in a confirmation: yes", section: dialogs)
        map.describe([.escape, .char("n")], help: "in a confirmation or form: no, close it", section: dialogs)
        map.describe([.tab, .backTab], help: "in the new-goal form: next or previous field", section: dialogs)
        map.describe([.ctrl("u")], help: "in the filter line: clear it", section: dialogs)
        return map
    }()
}
