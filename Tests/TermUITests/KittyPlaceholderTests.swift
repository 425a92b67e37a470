import Testing
@testable import TermUI

/// kitty's Unicode placeholders against the protocol's published rules, and a list of avatars
/// scrolled on the model terminal: the pictures' cells move with the text and end where a full
/// repaint puts them.
@Suite struct KittyPlaceholderTests {
    static let picture = TerminalPicture(width: 2, height: 2, rgb: [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255])!

    @Test func aCellIsThePlaceholderItsRowAndColumnDiacriticsAndTheIdAsItsColour() {
        let cell = KittyPlaceholders.cell(id: 7, row: 1, column: 3)
        // kitty's rowcolumn-diacritics.txt: 0 is U+0305, 1 U+030D, 2 U+030E, 3 U+0310.
        #expect(cell.text == "\u{10EEEE}\u{030D}\u{0310}")
        #expect(cell.width == 1)
        #expect(cell.style.fg == .rgb(0, 0, 7))
        // 24 bits of the id: red is the high byte, blue the low.
        #expect(KittyPlaceholders.color(id: 0x12_3456) == .rgb(0x12, 0x34, 0x56))
        #expect(Array(KittyPlaceholders.diacritics.prefix(8)) == [0x0305, 0x030D, 0x030E, 0x0310, 0x0312, 0x033D, 0x033E, 0x033F])
        #expect(KittyPlaceholders.diacritics.last == 0x0658)
        #expect(Set(KittyPlaceholders.diacritics).count == KittyPlaceholders.maxSpan)
    }

    @Test func everyRowAndColumnReadsBackAndEveryDiacriticIsAMark() {
        for row in 0..<KittyPlaceholders.maxSpan {
            for column in stride(from: 0, to: KittyPlaceholders.maxSpan, by: 7) {
                let decoded = KittyPlaceholders.decode(KittyPlaceholders.cell(id: 0xAB_CDEF, row: row, column: column))
                #expect(decoded?.id == 0xAB_CDEF && decoded?.row == row && decoded?.column == column)
            }
        }
        // Zero width where the terminal's locale measures them: they join the placeholder.
        for value in KittyPlaceholders.diacritics {
            #expect(TextWidth.cells(Unicode.Scalar(value)!) == 0, "U+\(String(value, radix: 16))")
        }
        #expect(KittyPlaceholders.decode(Cell("x")) == nil)
    }

    @Test func theWriterSendsACellAsItsScalarsInItsColour() {
        var writer = ScreenWriter(features: .init(colors: 256, truecolor: true), theme: .standard)
        var frame = CellBuffer(width: 4, height: 1)
        _ = writer.frame(frame)
        frame[1, 0] = KittyPlaceholders.cell(id: 7, row: 0, column: 0)
        frame[2, 0] = KittyPlaceholders.cell(id: 7, row: 0, column: 1)
        let bytes = String(decoding: writer.frame(frame), as: UTF8.self)
        // One move, one colour, two cells, no move between them (their width is certain).
        #expect(bytes == "\u{1B}[1;2H\u{1B}[38;2;0;0;7m\u{10EEEE}\u{0305}\u{0305}\u{10EEEE}\u{0305}\u{030D}\u{1B}[X\u{1B}[0m")
    }

    @Test func theVirtualPlacementAndTmuxsPassthrough() {
        #expect(KittyGraphics.virtualPlacement(id: 7, columns: 2, rows: 1) == "\u{1B}_Ga=p,U=1,i=7,c=2,r=1,q=2\u{1B}\\")
        let wrapped = KittyGraphics.tmuxPassthrough("\u{1B}_Ga=d,d=I,i=7,q=2\u{1B}\\")
        #expect(wrapped == "\u{1B}Ptmux;\u{1B}\u{1B}_Ga=d,d=I,i=7,q=2\u{1B}\u{1B}\\\u{1B}\\")
        // Text between the commands is kept as it is.
        #expect(KittyGraphics.tmuxPassthrough("a\u{1B}_Gq=2\u{1B}\\b") == "a\u{1B}Ptmux;\u{1B}\u{1B}_Gq=2\u{1B}\u{1B}\\\u{1B}\\b")
    }

    static func buffer(with pictures: [(TerminalPicture, Rect)], size: TerminalSize = TerminalSize(width: 20, height: 10)) -> CellBuffer {
        var buffer = CellBuffer(width: size.width, height: size.height)
        for (picture, rect) in pictures {
            buffer.fill(rect, style: Style(fg: .rgb(1, 2, 3), bg: .rgb(4, 5, 6)), with: "▀")
            buffer.place(picture, in: rect)
        }
        return buffer
    }

    @Test func aPictureIsSentOnceWithItsVirtualPlacementAndNothingFollowsItAround() {
        let id = Self.picture.id
        var layer = PictureLayer(graphics: .kitty, placeholders: true)
        let size = TerminalSize(width: 20, height: 10)
        let at2 = Self.buffer(with: [(Self.picture, Rect(x: 0, y: 2, width: 2, height: 1))]).visiblePictures
        let first = layer.update(to: at2, size: size, fullRepaint: true)
        #expect(first.before == KittyGraphics.transmit(Self.picture) + KittyGraphics.virtualPlacement(id: id, columns: 2, rows: 1))
        #expect(first.output.isEmpty && first.repaint.isEmpty)
        #expect(first.placeholderCells == at2)
        // Moved up a line, and on the last line: no command at all, only its cells.
        for rect in [Rect(x: 0, y: 1, width: 2, height: 1), Rect(x: 5, y: 9, width: 2, height: 1)] {
            let placements = Self.buffer(with: [(Self.picture, rect)]).visiblePictures
            let step = layer.update(to: placements, size: size, fullRepaint: false)
            #expect(step.before.isEmpty && step.output.isEmpty && step.repaint.isEmpty)
            #expect(step.placeholderCells == placements)
        }
        // A cleared screen: kitty keeps a virtual placement and its picture, so nothing is sent again.
        layer.forgetScreen()
        let again = layer.update(to: at2, size: size, fullRepaint: true)
        #expect(again.before.isEmpty && again.placeholderCells == at2)
        // One picture on two rows: sent once.
        var fresh = PictureLayer(graphics: .kitty, placeholders: true)
        let twice = Self.buffer(with: [(Self.picture, Rect(x: 0, y: 2, width: 2, height: 1)),
                                       (Self.picture, Rect(x: 0, y: 4, width: 2, height: 1))]).visiblePictures
        let both = fresh.update(to: twice, size: size, fullRepaint: true)
        #expect(both.before == KittyGraphics.transmit(Self.picture) + KittyGraphics.virtualPlacement(id: id, columns: 2, rows: 1))
        #expect(both.placeholderCells.count == 2)
        // Too wide for the diacritics here: left to its half blocks.
        let wide = Rect(x: 0, y: 0, width: KittyPlaceholders.maxSpan + 1, height: 1)
        let big = Self.buffer(with: [(Self.picture, wide)], size: TerminalSize(width: 80, height: 4)).visiblePictures
        #expect(big.count == 1)
        let step = layer.update(to: big, size: TerminalSize(width: 80, height: 4), fullRepaint: false)
        #expect(step.placeholderCells.isEmpty && step.before.isEmpty)
    }

    @Test func insideTmuxEveryCommandGoesThroughItsPassthrough() {
        var layer = PictureLayer(graphics: .kitty, placeholders: true, passthrough: true)
        let placements = Self.buffer(with: [(Self.picture, Rect(x: 0, y: 2, width: 2, height: 1))]).visiblePictures
        let step = layer.update(to: placements, size: TerminalSize(width: 20, height: 10), fullRepaint: true)
        let plain = KittyGraphics.transmit(Self.picture) + KittyGraphics.virtualPlacement(id: Self.picture.id, columns: 2, rows: 1)
        #expect(step.before == KittyGraphics.tmuxPassthrough(plain))
        #expect(step.before.hasPrefix("\u{1B}Ptmux;\u{1B}\u{1B}_G"))
        #expect(layer.farewell == KittyGraphics.tmuxPassthrough(KittyGraphics.deleteEverything))
    }

    /// A feed of `count` rows, each with its avatar (2×1) at the left, seen from `top`.
    static func feed(rows count: Int, top: Int, avatars: [TerminalPicture], size: TerminalSize) -> CellBuffer {
        var buffer = CellBuffer(width: size.width, height: size.height)
        buffer.write("Activity", x: 0, y: 0, style: .bold)
        for y in 1..<(size.height - 1) where top + y - 1 < count {
            let row = top + y - 1
            let rect = Rect(x: 1, y: y, width: 2, height: 1)
            buffer.fill(rect, style: Style(fg: .rgb(UInt8(row % 256), 2, 3), bg: .rgb(4, 5, 6)), with: "▀")
            buffer.place(avatars[row % avatars.count], in: rect)
            let shops = ["Blue Bottle Coffee", "Tesco", "Amazon Marketplace EU", "Uber", "Pret", "Lidl Berlin-Mitte", "Spotify"]
            buffer.write("\(shops[row % shops.count]) \(String(repeating: "·", count: row % 5)) $\(row * 37 % 1000).\(row % 10)0",
                         x: 4, y: y)
        }
        buffer.write("q quit", x: 0, y: size.height - 1)
        return buffer
    }

    @Test func fortyRowsScrolledLeaveEveryAvatarWhereAFullRepaintPutsIt() {
        let size = TerminalSize(width: 40, height: 12)
        let avatars = (0..<5).map { n in TerminalPicture(width: 2, height: 2, rgb: [UInt8](repeating: UInt8(n * 40), count: 12))! }
        let features = ScreenWriter.Features(colors: 256, truecolor: true, backColorErase: true)
        var writer = ScreenWriter(features: features, theme: .standard)
        var layer = PictureLayer(graphics: .kitty, placeholders: true)
        var model = ScreenModel(width: size.width, height: size.height)
        var sentAfterFirst = 0, scrolls = 0
        for top in 0...40 {
            let frame = Self.feed(rows: 60, top: top, avatars: avatars, size: size)
            let step = layer.update(to: frame.visiblePictures, size: size, fullRepaint: top == 0)
            var cells = frame
            KittyPlaceholders.overlay(step.placeholderCells, on: &cells)
            let bytes = writer.frame(cells)
            if top > 0 {
                sentAfterFirst += step.before.utf8.count + step.output.utf8.count
                if String(decoding: bytes, as: UTF8.self).contains("\u{1B}[2;11r") { scrolls += 1 }
                // A scrolled row costs its new line: its text and its two placeholder cells.
                #expect(bytes.count < 120, "row \(top): \(bytes.count) B: \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            }
            model.play(bytes)
            #expect(model.problems == [], "row \(top)")
        }
        // Five avatars, each sent once, in the first frame.
        #expect(sentAfterFirst == 0)
        #expect(scrolls == 40)
        // The same last frame drawn whole on a fresh terminal.
        var fresh = ScreenModel(width: size.width, height: size.height)
        var freshWriter = ScreenWriter(features: features, theme: .standard)
        var freshLayer = PictureLayer(graphics: .kitty, placeholders: true)
        let last = Self.feed(rows: 60, top: 40, avatars: avatars, size: size)
        var cells = last
        KittyPlaceholders.overlay(freshLayer.update(to: last.visiblePictures, size: size, fullRepaint: true).placeholderCells, on: &cells)
        fresh.play(freshWriter.frame(cells))
        #expect(model.looks == fresh.looks)
        // And the avatars are where the rows are: row y shows avatar (40 + y - 1) % 5, both halves.
        for y in 1..<(size.height - 1) {
            let id = avatars[(40 + y - 1) % avatars.count].id
            for column in 0..<2 {
                let shown = model.cells[y][1 + column]
                #expect(shown.text == "\u{10EEEE}\u{0305}" + String(Unicode.Scalar(KittyPlaceholders.diacritics[column])!), "row \(y)")
                #expect(shown.fg == KittyPlaceholders.color(id: id), "row \(y)")
            }
        }
    }
}

extension KittyPlaceholderTests {
    @Test func aFrameSendsThePictureBeforeTheCellsThatDrawIt() {
        var writer = ScreenWriter(features: .init(colors: 256, truecolor: true), theme: .standard)
        var layer = PictureLayer(graphics: .kitty, placeholders: true)
        let frame = Self.buffer(with: [(Self.picture, Rect(x: 3, y: 2, width: 2, height: 1))])
        let text = String(decoding: FramePainter.paint(frame, size: TerminalSize(width: 20, height: 10), writer: &writer, pictures: &layer),
                          as: UTF8.self)
        let transmit = text.range(of: KittyGraphics.transmit(Self.picture))
        let virtual = text.range(of: KittyGraphics.virtualPlacement(id: Self.picture.id, columns: 2, rows: 1))
        let cells = text.range(of: "\u{10EEEE}\u{0305}\u{0305}\u{10EEEE}\u{0305}\u{030D}")
        #expect(transmit != nil && virtual != nil && cells != nil)
        if let transmit, let virtual, let cells {
            #expect(transmit.upperBound <= virtual.lowerBound && virtual.upperBound <= cells.lowerBound)
        }
        // The half blocks under it are not sent: the placeholders stand in their cells.
        #expect(!text.contains("▀"))
    }

    @Test func withoutColoursKittysPicturesArePlacedNotDrawnByPlaceholders() {
        var capabilities = TerminalCapabilities.plain
        capabilities.graphics = .kitty
        capabilities.kittyPlaceholders = true
        #expect(NcursesTerminal.pictureCapabilities(capabilities, colors: 256, theme: .standard).kittyPlaceholders)
        #expect(!NcursesTerminal.pictureCapabilities(capabilities, colors: 0, theme: .standard).kittyPlaceholders)
        #expect(!NcursesTerminal.pictureCapabilities(capabilities, colors: 256, theme: .noColor).kittyPlaceholders)
    }
}
