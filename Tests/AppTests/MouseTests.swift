import CNcurses
import FeedModel
import Testing
import TermUI
@testable import QapitalApp

@Suite struct MouseDecodingTests {
    @Test func leftPressesAreClicksAtTheirCell() {
        let press = UInt(qt_button1_press_or_click())
        let released = UInt(qt_button1_clicked()) & ~press
        #expect(KeyDecoder.decodeMouse(buttonState: press, x: 12, y: 3) == .click(x: 12, y: 3))
        #expect(KeyDecoder.decodeMouse(buttonState: UInt(qt_button4_pressed()), x: 5, y: 5) == .mouseWheelUp)
        #expect(KeyDecoder.decodeMouse(buttonState: UInt(qt_button5_pressed()), x: 5, y: 5) == .mouseWheelDown)
        #expect(KeyDecoder.decodeMouse(buttonState: released, x: 5, y: 5) == nil)
        #expect(KeyDecoder.decodeMouse(buttonState: 0, x: 5, y: 5) == nil)
        #expect(KeyDecoder.decodeMouse(buttonState: press, x: -1, y: 2) == nil)
    }

    @Test func aListFindsTheRowAtACellFromItsLastDraw() {
        var buffer = CellBuffer(width: 30, height: 6)
        var state = ListState()
        state.selected = 7
        ListView().draw(into: &buffer, rect: Rect(x: 0, y: 1, width: 30, height: 5), count: 20, state: &state) { _, _, _, _ in }
        // Rows 1…4 (the fifth line is "N of M"), the scrollbar at column 29.
        #expect(state.index(atX: 3, y: 1, count: 20) == state.offset)
        #expect(state.index(atX: 3, y: 4, count: 20) == state.offset + 3)
        #expect(state.index(atX: 3, y: 5, count: 20) == nil)
        #expect(state.index(atX: 29, y: 2, count: 20) == nil)
        #expect(state.index(atX: 3, y: 0, count: 20) == nil)
    }
}

/// Clicks routed through the core to the screens, on the demo at 100×30.
@MainActor @Suite struct MouseRoutingTests {
    @Test func aClickSelectsAndASecondClickOpens() async throws {
        let app = AppHarness()
        _ = await app.start()
        let dog = try #require(app.row(containing: "Dog"))
        await app.press(.click(x: 10, y: dog))
        #expect(app.isSelected(row: dog))
        #expect(app.core.goalList.list.selected == 1)
        #expect(app.core.stacks[0].count == 1)
        let opened = await app.press(.click(x: 10, y: dog))
        #expect(app.core.stacks[0].count == 2)
        #expect(opened.contains { $0.contains("Dog") && $0.contains("BA") == false })
        // In the goal, a click on a saving selects it.
        let entry = try #require(app.row(containing: "made a"))
        await app.press(.click(x: 20, y: entry + 1))
        #expect(app.isSelected(row: entry + 1))
    }

    /// People and a person's page had no clicks before the one list model; now they click as every list does.
    @Test func peopleAndAPersonClickAsEveryList() async throws {
        let app = AppHarness()
        _ = await app.start()
        await app.press(.char("5"))
        let people = try #require(app.core.screen as? PeopleScreen)
        let rows = try #require(people.list.rowsRect)
        await app.press(.click(x: rows.x + 10, y: rows.y + 1))
        #expect(people.list.selected == 1)
        await app.press(.click(x: rows.x + 10, y: rows.y + 1))
        let person = try #require(app.core.screen as? PersonScreen)
        let personRows = try #require(person.list.rowsRect)
        // The first row is the "Goals" heading: a click there selects the goal under it.
        await app.press(.char("G"))
        #expect(person.list.selected > 1)
        await app.press(.click(x: personRows.x + 4, y: personRows.y))
        #expect(person.list.selected == 1)
    }

    @Test func aClickOnATabSwitchesToIt() async throws {
        let app = AppHarness()
        let screen = await app.start()
        let x = try #require(screen[0].range(of: "2 Activity").map { screen[0].distance(from: screen[0].startIndex, to: $0.lowerBound) })
        await app.press(.click(x: x + 2, y: 0))
        #expect(app.core.tabIndex == 1)
        let achievements = try #require(screen[0].range(of: "4 Achievements").map { screen[0].distance(from: screen[0].startIndex, to: $0.lowerBound) })
        await app.press(.click(x: achievements, y: 0))
        #expect(app.core.tabIndex == 3)
        await app.press(.click(x: 99, y: 0))   // past the titles: nothing
        #expect(app.core.tabIndex == 3)
    }

    @Test func aClickOnActivitySelectsThatActivity() async throws {
        let app = AppHarness()
        _ = await app.start()
        await app.press(.char("2"))
        let row = try #require(app.terminal.lines.lastIndex { $0.contains(" into ") })
        await app.press(.click(x: 30, y: row))
        #expect(app.isSelected(row: row))
    }

    @Test func ctrlLDrawsTheWholeScreenAgain() async {
        let app = AppHarness()
        _ = await app.start()
        #expect(app.terminal.invalidateCount == 0)
        await app.press(.ctrl("l"))
        #expect(app.terminal.invalidateCount == 1)
    }
}
