import FeedModel
import TermUI

/// `?`: every key, generated from the key maps that dispatch them (the global one, each tab's,
/// each overlay's), so the help cannot disagree with what keys do.
@MainActor
final class KeysHelp: Overlay {
    enum Action: Sendable { case down, up, pageDown, pageUp, top, bottom, search, nextMatch, previousMatch, close }

    /// As in less: lines, pages, ends, `/` search with `n` `N`; Esc, `q` and `?` close.
    nonisolated static let keyMap: KeyMap<Action> = {
        var map = KeyMap<Action>()
        let section = "Help (?)"
        map.bind([.char("j"), .down, .mouseWheelDown], to: .down, help: "scroll down", section: section)
        map.bind([.char("k"), .up, .mouseWheelUp], to: .up, help: "scroll up", section: section)
        map.bind([.pageDown, .char(" "), .ctrl("f")], to: .pageDown, help: "page down", section: section)
        map.bind([.pageUp, .char("b"), .ctrl("b")], to: .pageUp, help: "page up", section: section)
        map.bind([.char("g"), .home], to: .top, help: "top", section: section)
        map.bind([.char("G"), .end], to: .bottom, help: "bottom", section: section)
        map.bind([.char("/")], to: .search, help: "search (Enter finds, Esc cancels)", section: section)
        map.bind([.char("n")], to: .nextMatch, help: "next match", section: section)
        map.bind([.char("N")], to: .previousMatch, help: "previous match", section: section)
        map.bind([.escape, .char("?"), .char("q")], to: .close, help: "close", section: section)
        return map
    }()
    nonisolated static var help: [HelpEntry] { keyMap.helpEntries }

    /// Every overlay, for the help.
    static let overlayTypes: [any Overlay.Type] = [FilterLine.self, UserPopup.self, GoalPicker.self, SaveConfirmation.self, Question.self,
                                                   NewGoalForm.self, RuleForm.self, SignInOverlay.self, ConsentSignInOverlay.self, DetailCard.self,
                                                   KeysHelp.self]
    /// Screens opened from a tab (not tabs themselves), for the help (a constant, as `AppCore.tabs`).
    nonisolated(unsafe) static let pushedScreens: [any Screen.Type] = [GoalDetailScreen.self]
    /// The help with the default keys: the shared keys, each tab's own, each pushed screen's, each overlay's.
    static var defaultEntries: [HelpEntry] { entries(KeyOverrides()) }

    /// The help with the keys `overrides` rebinds (what `?` shows).
    static func entries(_ overrides: KeyOverrides) -> [HelpEntry] {
        AppAction.keyMaps.flatMap { $0.rebinding(overrides.actions).helpEntries } + overlayTypes.flatMap { $0.help }
    }

    private(set) var scroll = 0
    private let entries: [HelpEntry]
    /// The cells a line has in the box, from the last layout (descriptions wrap to it); the
    /// lines' texts follow it.
    private var width: Int? {
        didSet { if width != oldValue { texts = Self.texts(entries, width: width) } }
    }
    /// Each line's text as wrapped to `width`, for `/` (made once a width, not at each look).
    private var texts: [String]
    /// Lines the box shows at once, from the last layout.
    private var page = 1
    /// The search being typed after `/`, and the last one searched for.
    private(set) var typing: TextInput?
    private(set) var query = ""
    /// The line the last search found (`n` goes on from it); a search that found nothing says so.
    private var found: Int?
    private var notFound = false

    /// `entries`: the help as the key maps in use bind the keys (rebound by the config file).
    init(entries: [HelpEntry] = KeysHelp.defaultEntries) {
        self.entries = entries
        texts = Self.texts(entries, width: nil)
    }

    private static func texts(_ entries: [HelpEntry], width: Int?) -> [String] {
        HelpOverlay.lines(for: entries, width: width).map { $0.map(\.text).joined() }
    }

    private var lastScroll: Int { max(0, texts.count - page) }

    func layOut(area: Rect, _ data: ScreenData) {
        width = max(1, area.width - 4)
        page = max(1, HelpOverlay.modal(for: entries, width: width).frame(in: area).height - 2)
        scroll = min(scroll, lastScroll)
    }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        if typing != nil { return type(key) }
        if case .click = key { return .close() }
        notFound = false
        let action = Self.keyMap.action(for: key)
        // Moved by hand: as in less, n and N go on from the lines shown, not from the last match.
        if let action, [.down, .up, .pageDown, .pageUp, .top, .bottom].contains(action) { found = nil }
        switch action {
        case .down: scroll = min(scroll + 1, lastScroll)
        case .up: scroll = max(0, scroll - 1)
        case .pageDown: scroll = min(scroll + page, lastScroll)
        case .pageUp: scroll = max(0, scroll - page)
        case .top: scroll = 0
        case .bottom: scroll = lastScroll
        case .search: typing = TextInput()
        case .nextMatch: find(from: (found ?? scroll - 1) + 1, step: 1)
        case .previousMatch: find(from: (found ?? scroll + 1) - 1, step: -1)
        case .close: return .close()
        case nil: break  // swallowed, as less does
        }
        return .consumed
    }

    /// A key while the search is typed: Enter finds from the top line shown, Esc cancels.
    private func type(_ key: Key) -> Outcome {
        guard var input = typing else { return .consumed }
        switch input.handle(key) {
        case .submitted:
            typing = nil
            query = input.text
            found = nil
            find(from: scroll, step: 1)
        case .cancelled:
            typing = nil
        default:
            typing = input
        }
        return .consumed
    }

    /// The next line from `start` (wrapping, as less does with a wrap) that holds the query; it
    /// is scrolled to the top where it can be.
    private func find(from start: Int, step: Int) {
        guard !query.isEmpty, !texts.isEmpty else { return }
        for offset in 0..<texts.count {
            let index = ((start + offset * step) % texts.count + texts.count) % texts.count
            if texts[index].localizedCaseInsensitiveContains(query) {
                (found, notFound) = (index, false)
                if index < scroll || index >= scroll + page { scroll = min(index, lastScroll) }
                return
            }
        }
        (found, notFound) = (nil, true)
    }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        var modal = HelpOverlay.modal(for: entries, title: "Keys", scroll: scroll, width: width)
        if !query.isEmpty {
            modal.lines = modal.lines.map { DisplayFormat.highlighting($0, query) }
        }
        modal.draw(into: &buffer, in: area)
        // The search line, in the status bar as less has it at the bottom.
        let line: [Span]? = if let typing { [Span("/" + typing.text, .bold)] }
            else if notFound { [Span("Pattern not found: " + query, Style(fg: .role(.error), attributes: .bold))] }
            else { nil }
        if let line {
            buffer.fill(statusBar)
            buffer.write(line, x: statusBar.x + 1, y: statusBar.y, maxWidth: statusBar.width - 2)
        }
    }
}
