import Foundation
import Testing
@testable import TermUI

/// sixel where the terminal moves pictures' pixels with their rows (xterm): the writer scrolls,
/// the pictures move with the text, and only those of new lines are sent. Played on the model
/// terminal, which keeps pixels as xterm was seen to (`ScreenModel.pixels`).
@Suite struct SixelScrollTests {
    static let size = TerminalSize(width: 40, height: 14)
    /// Five colours far apart on the sixel colour cube, so each picture's sixel text is its own.
    static let avatars = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0], [0, 255, 255]].map { color in
        TerminalPicture(width: 2, height: 2, rgb: (0..<4).flatMap { _ in color.map(UInt8.init) })!
    }
    /// Every seventh row carries a taller picture (4 × 2 cells) instead: a scroll can cut it.
    static let tall = TerminalPicture(width: 4, height: 4, rgb: (0..<16).flatMap { _ in [UInt8(255), 0, 255] })!

    /// Rows of a feed seen from `top`, row `selected` highlighted (its time column).
    static func feed(top: Int, selected: Int) -> CellBuffer {
        var buffer = CellBuffer(width: size.width, height: size.height)
        buffer.write("Activity", x: 0, y: 0, style: .bold)
        let shops = ["Blue Bottle Coffee", "Tesco", "Amazon Marketplace EU", "Uber", "Pret", "Lidl Berlin-Mitte", "Spotify"]
        var y = 1
        var row = top
        while y < size.height - 1 {
            let isTall = row % 7 == 3
            let rect = Rect(x: 0, y: y, width: isTall ? 4 : 2, height: isTall ? 2 : 1)
            if rect.maxY <= size.height - 1 {
                buffer.fill(rect, style: Style(fg: .rgb(UInt8(row % 256), 2, 3), bg: .rgb(4, 5, 6)), with: "▀")
                buffer.place(isTall ? tall : avatars[row % avatars.count], in: rect)
            }
            buffer.write(String(format: "%02d:%02d", row % 24, row * 7 % 60), x: 5, y: y,
                         style: row == selected ? .role(.selection, .reverse) : .plain)
            buffer.write("\(shops[row % shops.count]) $\(row * 37 % 1000).\(row % 10)0", x: 11, y: y)
            y += isTall ? 2 : 1
            row += 1
        }
        buffer.write("q quit", x: 0, y: size.height - 1)
        return buffer
    }

    struct Run {
        /// Bytes of the frames going down (the first one's not counted).
        var bytes = 0
        var scrolls = 0
        var sixelsAfterFirst = 0
    }

    /// The cursor moving down twelve rows, the view scrolling a row a press forty times, then
    /// back up twenty.
    static func run(pixelsScroll: Bool, check: Bool) -> Run {
        // As NcursesTerminal: no scroll regions for sixel where the terminal does not move them.
        let features = ScreenWriter.Features(colors: 256, truecolor: true, backColorErase: true, scrollRegions: pixelsScroll)
        var writer = ScreenWriter(features: features, theme: .standard)
        var layer = PictureLayer(graphics: .sixel, pixelsScroll: pixelsScroll)
        var model = ScreenModel(width: size.width, height: size.height)
        model.sixels[SixelEncoder.encode(tall)] = (tall.id, 4, 2)
        for avatar in avatars { model.sixels[SixelEncoder.encode(avatar)] = (avatar.id, 2, 1) }
        var result = Run()
        var frames: [(top: Int, selected: Int)] = (0..<12).map { (0, $0) }
        frames += (1...40).map { ($0, $0 + 9) }
        // Then back up twenty rows, the selection on the top row: xterm's record does not move
        // on a reverse index, so these rows are written again, not scrolled.
        frames += (20...39).reversed().map { ($0, $0) }
        for (step, at) in frames.enumerated() {
            let frame = feed(top: at.top, selected: at.selected)
            let bytes = FramePainter.paint(frame, size: size, writer: &writer, pictures: &layer)
            let text = String(decoding: bytes, as: UTF8.self)
            if step > 0 && step < 52 {
                result.bytes += bytes.count
                result.sixelsAfterFirst += text.components(separatedBy: "\u{1B}P").count - 1
                if text.contains(";13r") || text.contains(";12r") { result.scrolls += 1 }
            }
            model.play(bytes)
            guard check else { continue }
            #expect(model.problems == [], "step \(step)")
            #expect(model.looks == ScreenModel.expected(frame, writer: writer), "step \(step): the cells")
            // Every picture whole where the frame puts it (not on the last line: half blocks
            // there), and no pixels anywhere else.
            var expected = Array(repeating: [UInt32?](repeating: nil, count: size.width), count: size.height)
            for placement in frame.visiblePictures where placement.rect.maxY < size.height {
                for y in placement.rect.y..<placement.rect.maxY {
                    for x in placement.rect.x..<placement.rect.maxX { expected[y][x] = placement.picture.id }
                }
            }
            if model.pixels != expected {
                let row = (0..<size.height).first { model.pixels[$0] != expected[$0] }!
                Issue.record("step \(step): row \(row) has pixels \(model.pixels[row].prefix(6)) but should have \(expected[row].prefix(6))")
                return result
            }
            // And what xterm draws from its own record when the window is uncovered.
            if model.record != expected {
                let row = (0..<size.height).first { model.record[$0] != expected[$0] }!
                Issue.record("step \(step): xterm's record of row \(row) is \(model.record[row].prefix(6)), not \(expected[row].prefix(6))")
                return result
            }
        }
        return result
    }

    @Test func scrolledRowsTakeTheirPicturesAlongAndOnlyNewLinesSendAny() {
        let scrolled = Self.run(pixelsScroll: true, check: true)
        #expect(scrolled.scrolls >= 35)
        // Going down, a new line's picture each scroll, the pictures of the rows the selection
        // left and reached, and the tall ones cut at the edges.
        #expect(scrolled.sixelsAfterFirst <= 3 * 52, "\(scrolled.sixelsAfterFirst) pictures sent")
        let rewritten = Self.run(pixelsScroll: false, check: true)
        #expect(rewritten.scrolls == 0)
        // Scrolling costs far less than writing every row and picture again.
        #expect(scrolled.bytes * 3 < rewritten.bytes, "\(scrolled.bytes) B scrolling, \(rewritten.bytes) B rewriting")
    }

    @Test func aScrollMovesWholePicturesAndGivesTheLinesOfOnesItCuts() {
        var layer = PictureLayer(graphics: .sixel, pixelsScroll: true)
        let avatar = Self.avatars[0]
        var buffer = CellBuffer(width: 20, height: 10)
        for (picture, rect) in [(avatar, Rect(x: 0, y: 1, width: 2, height: 1)), (avatar, Rect(x: 0, y: 5, width: 2, height: 1)),
                                (Self.tall, Rect(x: 4, y: 7, width: 4, height: 2)), (avatar, Rect(x: 0, y: 9, width: 2, height: 1))] {
            buffer.fill(rect, style: Style(fg: .rgb(1, 2, 3), bg: .rgb(4, 5, 6)), with: "▀")
            buffer.place(picture, in: rect)
        }
        _ = layer.update(to: buffer.visiblePictures, size: TerminalSize(width: 20, height: 11), fullRepaint: true)
        #expect(layer.shown.count == 4)
        // xterm moves every picture in its record on a scroll up, whatever the region, and none
        // on a scroll down: only a scroll up with every picture inside the region is made.
        #expect(!layer.canScroll(ScreenWriter.Scroll(top: 1, bottom: 7, by: 1)))
        #expect(!layer.canScroll(ScreenWriter.Scroll(top: 0, bottom: 9, by: -2)))
        #expect(layer.canScroll(ScreenWriter.Scroll(top: 1, bottom: 9, by: 1)))
        // Rows 1…9 up by one: row 1's avatar leaves with its row, but xterm's record keeps it on
        // row 0, whose cells there are written again (that clears it); the others move up a row.
        #expect(layer.scrolled(ScreenWriter.Scroll(top: 1, bottom: 9, by: 1)) == [Rect(x: 0, y: 0, width: 2, height: 1)])
        #expect(layer.shown.map(\.rect) == [Rect(x: 0, y: 4, width: 2, height: 1), Rect(x: 4, y: 6, width: 4, height: 2),
                                            Rect(x: 0, y: 8, width: 2, height: 1)])
        // Rows 4…9 up by three: row 4's avatar leaves (its record on row 1); the tall picture
        // (6 and 7) is cut: its part on 7 lands on 4, its record on 3 and 4; row 8's moves to 5.
        #expect(layer.scrolled(ScreenWriter.Scroll(top: 4, bottom: 9, by: 3))
                == [Rect(x: 0, y: 1, width: 2, height: 1), Rect(x: 4, y: 3, width: 4, height: 1), Rect(x: 4, y: 4, width: 4, height: 1)])
        #expect(layer.shown.map(\.rect) == [Rect(x: 0, y: 5, width: 2, height: 1)])
    }

    @Test func aPictureIsDrawnAgainOnlyWhereTheWriterMayWriteOverIt() {
        let avatar = Self.avatars[1]
        var buffer = CellBuffer(width: 30, height: 3)
        buffer.write("0123456789", x: 0, y: 1)
        buffer.place(avatar, in: Rect(x: 10, y: 1, width: 2, height: 1))
        let placements = buffer.visiblePictures
        func lines(_ columns: [Int]) -> Set<Int> {
            PictureLayer.linesTouched(by: columns.map { 30 + $0 }, in: buffer, placements: placements)
        }
        #expect(lines([10]) == [1])
        #expect(lines([9]) == [1])
        #expect(lines([2, 20, 25]) == [])
        #expect(lines([12]) == [])
        // Changes on both sides close by: the writer may write the cells between again.
        #expect(lines([7, 13]) == [1])
        #expect(lines([7, 20]) == [])
        // A changed cell in the blanks right before it: the writer erases the run, then writes
        // the cell after it again, the picture's first.
        buffer.write("text      ", x: 0, y: 1)
        #expect(lines([5]) == [1])
        #expect(lines([3]) == [])
    }
}

extension SixelScrollTests {
    /// Random frames (rows scrolled either way, rewritten, restyled; text changing beside the
    /// pictures) with pictures of one to three cells placed anywhere but the last line: after
    /// every frame the screen and xterm's record hold each visible picture whole, where the
    /// frame puts it, and nothing else. With and without the scroll.
    @Test(arguments: [true, false])
    func everyPictureIsWholeWhereTheFrameSaysAfterRandomFrames(pixelsScroll: Bool) {
        let width = 37, height = 12
        let size = TerminalSize(width: width, height: height)
        let features = ScreenWriter.Features(colors: 256, truecolor: true, backColorErase: true, scrollRegions: pixelsScroll)
        var writer = ScreenWriter(features: features, theme: .standard)
        var layer = PictureLayer(graphics: .sixel, pixelsScroll: pixelsScroll)
        var model = ScreenModel(width: width, height: height)
        // Each picture has one width (1, 2 or 3 cells), so its sixel text names it.
        let widths = Self.avatars.indices.map { $0 % 3 + 1 }
        for (n, avatar) in Self.avatars.enumerated() { model.sixels[SixelEncoder.encode(avatar)] = (avatar.id, widths[n], 1) }
        var rng = SplitMix64(seed: pixelsScroll ? 49 : 50)
        var frame = CellBuffer(width: width, height: height)
        for y in 0..<height { ScreenWriterTests.randomRow(&frame, y: y, using: &rng) }
        var scrolls = 0
        for step in 0..<300 {
            if step > 0 { frame = ScreenWriterTests.nextFrame(after: frame, using: &rng) }
            for _ in 0..<Int.random(in: 0...3, using: &rng) {
                let n = Int.random(in: 0..<Self.avatars.count, using: &rng)
                let rect = Rect(x: Int.random(in: 0...(width - widths[n]), using: &rng), y: Int.random(in: 0..<(height - 1), using: &rng),
                                width: widths[n], height: 1)
                frame.fill(rect, style: Style(fg: .rgb(UInt8(step % 256), 2, 3), bg: .rgb(4, 5, 6)), with: "▀")
                frame.place(Self.avatars[n], in: rect)
            }
            let bytes = FramePainter.paint(frame, size: size, writer: &writer, pictures: &layer)
            if String(decoding: bytes, as: UTF8.self).range(of: "\u{1B}\\[[0-9]+;[0-9]+r", options: .regularExpression) != nil { scrolls += 1 }
            model.play(bytes)
            #expect(model.problems == [], "step \(step)")
            #expect(model.looks == ScreenModel.expected(frame, writer: writer), "step \(step): the cells")
            var expected = Array(repeating: [UInt32?](repeating: nil, count: width), count: height)
            for placement in frame.visiblePictures where placement.rect.maxY < height {
                for x in placement.rect.x..<placement.rect.maxX { expected[placement.rect.y][x] = placement.picture.id }
            }
            guard model.pixels == expected, model.record == expected else {
                let row = (0..<height).first { model.pixels[$0] != expected[$0] || model.record[$0] != expected[$0] }!
                Issue.record("step \(step): row \(row): screen \(model.pixels[row]), record \(model.record[row]), expected \(expected[row])")
                return
            }
        }
        // The frames scroll (a third of them move rows), and a scroll is made only where it keeps
        // the pictures right.
        if pixelsScroll { #expect(scrolls > 0) } else { #expect(scrolls == 0) }
    }
}
