import Foundation
import PropertyBased
import Testing
import TermUI
import TestSupport
@testable import QapitalApp

/// The one list model (`ListModel`, `ListScreen`): a list that says only what its rows are gets
/// moves, pages, the filter with `n`/`N`, clicks, "N of M" and the selection kept through a
/// cleared filter; and over generated lists and keys the model keeps its promises.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct ListModelTests {
    /// A tab added for this test that declares its rows and how they look, nothing of lists.
    @Test func aListTabGetsEveryListBehaviourFromItsRows() async throws {
        try await AddedTabs.$screens.withValue([FakeListTab.self]) {
            let app = AppHarness(width: 100, height: 30)
            _ = await app.start()
            var screen = await app.press(.char("7"))
            let tab = try #require(app.core.screen as? FakeListTab)
            // "N of M" on the list's last line.
            #expect(screen.contains { $0.contains("1 of 40") }, "\(screen.joined(separator: "\n"))")
            // Moves and pages.
            await app.press(.char("j"), .char("j"))
            #expect(tab.list.selected == 2)
            await app.press(.char("G"))
            #expect(tab.list.selected == 39)
            await app.press(.char("g"))
            #expect(tab.list.selected == 0)
            // The filter, and n / N over what it lets through, wrapping.
            screen = await app.press(.char("/"), .char("7"), .enter)
            #expect(tab.filter == "7" && tab.visible(app.core.screenData).map(\.name) == ["row 7", "row 17", "row 27", "row 37"])
            #expect(screen.contains { $0.contains("1 of 4") }, "\(screen.joined(separator: "\n"))")
            await app.press(.char("N"))
            #expect(tab.selectedRow(app.core.screenData)?.name == "row 37")
            await app.press(.char("n"))
            #expect(tab.selectedRow(app.core.screenData)?.name == "row 7")
            await app.press(.char("n"), .char("n"))
            // Esc clears the filter and keeps "row 27" selected.
            await app.press(.escape)
            #expect(tab.filter.isEmpty && tab.selectedRow(app.core.screenData)?.name == "row 27")
            // A click on another row selects it; a click on the selected one opens it (Enter).
            let rowsRect = try #require(tab.list.rowsRect)
            let y = rowsRect.y + 1
            await app.press(.click(x: rowsRect.x + 2, y: y))
            let clicked = try #require(tab.selectedRow(app.core.screenData))
            #expect(clicked.name == "row \(tab.list.offset + 1)")
            #expect(tab.opened.isEmpty)
            await app.press(.click(x: rowsRect.x + 2, y: y))
            #expect(tab.opened == [clicked.name])
        }
    }

    /// Over generated lists, filters and key sequences: the filter lets through exactly the
    /// matching rows, each once and in order; the selection is always a shown row and on screen;
    /// a new filter starts at the top; `n` from the last match wraps to the first.
    @Test func theModelKeepsItsPromisesOverGeneratedKeys() async {
        let actions: [AppAction] = [.moveDown, .moveUp, .pageDown, .pageUp, .scrollDown, .scrollUp, .top, .bottom, .nextMatch, .previousMatch]
        let filters = ["", "a", "b", "c", "zz"]
        let words = Gen.int(in: 0...4).map { ["ab", "ba", "cd", "abc", "x"][$0] }.array(of: 0...40)
        // Each step: a key, or (-1 - i) a new filter filters[i].
        let steps = Gen.int(in: -filters.count...(actions.count - 1)).array(of: 1...40)
        await propertyCheck(count: 300, input: words, Gen.int(in: 1...12), steps) { words, height, steps in
            var model = ListModel()
            model.list.update(visibleRows: height, count: words.count)
            for step in steps {
                if step < 0 {
                    model.filter = filters[-1 - step]
                    #expect(model.list.selected == 0 && model.list.offset == 0)
                    continue
                }
                let shown = model.filtered(words) { $0.contains($1) }
                #expect(shown == words.filter { model.filter.isEmpty || $0.contains(model.filter) })
                let action = actions[step]
                let lastBefore = model.list.selected == shown.count - 1
                let moved = model.navigate(action, count: shown.count)
                #expect(moved)
                if shown.isEmpty {
                    #expect(model.list.selected == 0 && model.selected(in: shown) == nil)
                    continue
                }
                #expect((0..<shown.count).contains(model.list.selected))
                #expect(model.list.visibleRange(count: shown.count).contains(model.list.selected))
                if action == .nextMatch, lastBefore { #expect(model.list.selected == 0) }
                #expect(model.selected(in: shown) == shown[model.list.selected])
            }
        }
    }

    /// Rows a refresh put above the selection stop counting as new once the selection reaches them.
    @Test func newRowsAboveAreSeenOnceTheSelectionIsAmongThem() {
        var model = ListModel()
        model.list.update(visibleRows: 5, count: 50)
        model.list.selected = 20
        model.newAbove = 3
        #expect(model.view.newAbove == 3)
        _ = model.navigate(.moveUp, count: 50)
        #expect(model.newAbove == 3)
        _ = model.navigate(.top, count: 50)
        #expect(model.newAbove == 0 && model.view.newAbove == 0)
    }
}

/// A tab that is a list of 40 named rows: its rows, what a filter finds and how a row looks.
@MainActor
final class FakeListTab: TabScreen, ListScreen {
    nonisolated static let title = "Rows"
    struct Row: Hashable { let name: String }
    var model = ListModel()
    private(set) var opened: [String] = []

    init() {}

    func rows(_ data: ScreenData) -> [Row] { (0..<40).map { Row(name: "row \($0)") } }
    func matches(_ row: Row, filter: String, _ data: ScreenData) -> Bool { row.name.contains(filter) }
    func identity(_ row: Row) -> AnyHashable { row }

    func handle(_ key: Key, action: AppAction?, _ data: ScreenData) -> Outcome {
        guard let action else { return .ignored }
        if navigate(action, data) { return .consumed }
        guard action == .open, let row = selectedRow(data) else { return .ignored }
        opened.append(row.name)
        return .consumed
    }

    func draw(into buffer: inout CellBuffer, area: Rect, _ data: ScreenData) -> Layout {
        var list = self.list
        let rows = visible(data)
        model.view.draw(into: &buffer, rect: area, count: rows.count, state: &list) { buffer, index, row, _ in
            buffer.write(rows[index].name, x: row.x + 1, y: row.y)
        }
        return Layout(area: area, list: list)
    }

    func laidOut(_ layout: Layout, _ data: ScreenData) { list = layout.list ?? list }
}
