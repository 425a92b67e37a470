import Testing
@testable import TermUI

@MainActor
@Suite struct TerminalTests {
    @Test func testTerminalShowsWhatWasPresented() {
        let terminal = TestTerminal(width: 12, height: 2)
        var buffer = CellBuffer(width: terminal.size.width, height: terminal.size.height)
        buffer.write("Goals", x: 0, y: 0, style: .bold)
        buffer.write("中文", x: 0, y: 1, style: .reverse)
        terminal.present(buffer)
        #expect(terminal.lines == ["Goals       ", "中文        "])
        #expect(terminal.attributes(atX: 0, y: 0) == .bold)
        #expect(terminal.attributes(atX: 5, y: 0) == [])
        #expect(terminal.attributes(atX: 1, y: 1) == .reverse)
        #expect(terminal.presentCount == 1)
    }

    @Test func resizeClipsAnOldFrame() {
        let terminal = TestTerminal(width: 12, height: 2)
        var buffer = CellBuffer(width: 12, height: 2)
        buffer.write("Hello, world", x: 0, y: 0)
        #expect(terminal.resize(width: 5, height: 1) == .resize(width: 5, height: 1))
        terminal.present(buffer)
        #expect(terminal.lines == ["Hello"])
    }

    @Test func themeResolvesRolesAndNoColorDropsThem() {
        let style = Style(fg: .role(.moneyIn), bg: .rgb(1, 2, 3), attributes: .bold)
        let standard = Theme.standard.resolve(style)
        #expect(standard.fg == .indexed(34))
        #expect(standard.bg == .rgb(1, 2, 3))
        #expect(Theme.noColor.resolve(style) == Style(attributes: .bold))
        for role in ColorRole.allCases {
            #expect(Theme.standard.colors[role] != nil, "\(role) has no colour")
        }
    }

    @Test func nearestPaletteColour() {
        #expect(ColorPalette.nearest(r: 0, g: 135, b: 255, count: 256) == 33)
        #expect(ColorPalette.nearest(r: 250, g: 10, b: 10, count: 8) == 1)
        #expect(ColorPalette.nearest(r: 255, g: 255, b: 255, count: 256) == 231)
    }
}
