import FeedModel
import TermUI

/// `?`: every key, generated from the key maps that dispatch them (the global one, each tab's,
/// each overlay's), so the help cannot disagree with what keys do.
@MainActor
final class KeysHelp: Overlay {
    enum Action: Sendable { case down, up, close }

    nonisolated static let keyMap: KeyMap<Action> = {
        var map = KeyMap<Action>()
        let section = "Help (?)"
        map.bind([.char("j"), .down, .mouseWheelDown], to: .down, help: "scroll down", section: section)
        map.bind([.char("k"), .up, .mouseWheelUp], to: .up, help: "scroll up", section: section)
        map.bind([.escape, .char("?"), .char("q")], to: .close, help: "close (any other key too)", section: section)
        return map
    }()
    nonisolated static var help: [HelpEntry] { keyMap.helpEntries }

    /// Every overlay, for the help.
    static let overlayTypes: [any Overlay.Type] = [FilterLine.self, UserPopup.self, GoalPicker.self, SaveConfirmation.self,
                                                   NewGoalForm.self, SignInOverlay.self, KeysHelp.self]
    /// Screens opened from a tab (not tabs themselves), for the help (a constant, as `AppCore.tabs`).
    nonisolated(unsafe) static let pushedScreens: [any Screen.Type] = [GoalDetailScreen.self]
    /// The help with the default keys: the shared keys, each tab's own, each pushed screen's, each overlay's.
    static var defaultEntries: [HelpEntry] { entries(KeyOverrides()) }

    /// The help with the keys `overrides` rebinds (what `?` shows).
    static func entries(_ overrides: KeyOverrides) -> [HelpEntry] {
        AppAction.keyMap.rebinding(overrides.actions).helpEntries
            + AppCore.tabs.flatMap { $0.keyMap.rebinding(overrides.actions).helpEntries }
            + pushedScreens.flatMap { $0.keyMap.rebinding(overrides.actions).helpEntries }
            + overlayTypes.flatMap { $0.help }
    }

    private(set) var scroll = 0
    private let entries: [HelpEntry]
    private let lineCount: Int

    /// `entries`: the help as the key maps in use bind the keys (rebound by the config file).
    init(entries: [HelpEntry] = KeysHelp.defaultEntries) {
        self.entries = entries
        lineCount = HelpOverlay.lines(for: entries).count
    }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        switch Self.keyMap.action(for: key) {
        case .down: scroll = min(scroll + 1, lineCount - 1)
        case .up: scroll = max(0, scroll - 1)
        case .close, nil: return .close()
        }
        return .consumed
    }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        HelpOverlay.modal(for: entries, title: "Keys", scroll: scroll).draw(into: &buffer, in: area)
    }
}
