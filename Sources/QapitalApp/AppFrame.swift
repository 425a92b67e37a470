import FeedModel
import Foundation
import TermUI

/// One frame of the app, drawn from what the core holds: the tab bar, the screen on top of the
/// tab's stack, the status bar, the overlays. Drawing only reads; it returns what the frame
/// showed (users, pictures, the feed's position) for the core to ask for.
@MainActor
struct AppFrame {
    /// Smallest size that gets the full layout.
    static let minimumWidth = 20
    static let minimumHeight = 6
    /// The tabs' titles in the bar: "1 Goals", "2 Activity", …
    static var tabTitles: [String] { AppCore.tabs.enumerated().map { "\($0.offset + 1) \($0.element.title)" } }

    let tabBar: TabBar
    /// The tab's screens, the one shown last.
    let stack: [any Screen]
    let overlays: [any Overlay]
    let status: StatusLine
    /// When the goals shown were kept by the offline cache, if they were.
    let cachedAt: Date?

    /// Where the screen and the overlays go in a terminal of `size`; nil when it is too small.
    static func body(of area: Rect, statusLines: Int = 1) -> Rect? {
        guard area.width >= minimumWidth, area.height >= minimumHeight else { return nil }
        // The tab bar, the screen, the status bar (and a message too long for it, above it).
        return area.rows([.length(1), .fill(1), .length(statusLines)])[1]
    }

    /// The key hints at the right of the status bar.
    func hints(_ keys: KeyLabels) -> String {
        stack.count > 1 ? "\(keys[.back]) back  \(keys[.help]) help  \(keys[.quit]) back " : "\(keys[.help]) help  \(keys[.quit]) quit "
    }

    /// The status bar's height in `area`: one line, and those of a message too long for it (while
    /// the screen keeps at least half the terminal's height).
    func statusLines(in area: Rect, _ data: ScreenData, shownInBody: String? = nil) -> Int {
        let room = min(StatusLine.spillLines, (area.height - Self.minimumHeight) / 2)
        return 1 + status.spill(width: area.width, maxLines: room, filter: stack.last?.filter ?? "", hints: hints(data.keys),
                                cachedAt: cachedAt, refreshKey: data.keys[.refresh], shownInBody: shownInBody).count
    }

    /// Where the screen and the overlays go in this frame (nil when the terminal is too small).
    func body(of area: Rect, _ data: ScreenData) -> Rect? {
        Self.body(of: area, statusLines: statusLines(in: area, data))
    }

    /// Draws the frame; returns what the screen laid out (nil when nothing was drawn).
    func draw(into buffer: inout CellBuffer, _ data: ScreenData) -> Layout? {
        buffer.clear()
        let area = buffer.area
        var statusLines = statusLines(in: area, data)
        guard var body = Self.body(of: area, statusLines: statusLines), let screen = stack.last else {
            // Wrapped at words over the rows there are: read whole even at 10 columns.
            let words = "Terminal too small (\(area.width)×\(area.height)); need \(Self.minimumWidth)×\(Self.minimumHeight)"
            for (row, line) in SpanWrap.wrap([Span(words)], width: max(1, area.width)).prefix(area.height).enumerated() {
                buffer.write(line, x: 0, y: row, maxWidth: area.width)
            }
            return nil
        }
        tabBar.draw(into: &buffer, rect: area.top(1))
        var layout = screen.draw(into: &buffer, area: body, data)
        // The screen says the failure itself: the bar does not, and a long one takes no lines
        // above it. Only where the body says it whole: one it cut is read whole in the bar.
        if let failure = layout.failureShown, !(body.y..<body.maxY).contains(where: { buffer.rowText($0).contains("✗ " + failure) }) {
            layout.failureShown = nil
        }
        let fewer = self.statusLines(in: area, data, shownInBody: layout.failureShown)
        if fewer != statusLines, let taller = Self.body(of: area, statusLines: fewer) {
            (statusLines, body) = (fewer, taller)
            buffer.clear()
            tabBar.draw(into: &buffer, rect: area.top(1))
            layout = screen.draw(into: &buffer, area: body, data)
        }
        // A screen without a selection (loading, empty, an error): the cursor on its first words.
        if buffer.cursor == nil, let row = (body.y..<body.maxY).first(where: { y in
            (body.x..<body.maxX).contains { buffer[$0, y].scalar != " " }
        }) {
            buffer.placeCursor(onTextOf: body.row(row - body.y))
        }
        status.draw(into: &buffer, rect: area.bottom(statusLines), filter: screen.filter, hints: hints(data.keys), cachedAt: cachedAt,
                    refreshKey: data.keys[.refresh], shownInBody: layout.failureShown)
        for overlay in overlays { overlay.draw(into: &buffer, area: body, statusBar: area.bottom(1), data) }
        return layout
    }

    /// What the frame showed: the screen's users, pictures and feed position, the overlays'.
    func shown(_ data: ScreenData) -> Shown {
        var shown = stack.last?.shown(data) ?? Shown()
        for overlay in overlays { shown.merge(overlay.shown(data)) }
        return shown
    }
}
