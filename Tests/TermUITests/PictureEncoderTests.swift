import Foundation
import Testing
@testable import TermUI

/// The terminal picture protocols against outputs worked out by hand, and what each frame sends.
@Suite struct PictureEncoderTests {
    /// Red, green / blue, white.
    static let twoByTwo = TerminalPicture(width: 2, height: 2, rgb: [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255])!

    @Test func kittyTransmitsA2x2PictureInOneQuietChunk() {
        let id = Self.twoByTwo.id
        #expect(KittyGraphics.transmit(Self.twoByTwo) == "\u{1B}_Ga=t,f=24,s=2,v=2,i=\(id),q=2,m=0;/wAAAP8AAAD/////\u{1B}\\")
        #expect(KittyGraphics.place(id: 7, placement: 3, columns: 4, rows: 1) == "\u{1B}_Ga=p,i=7,p=3,c=4,r=1,C=1,q=2\u{1B}\\")
        #expect(KittyGraphics.delete(id: 7, placement: 3) == "\u{1B}_Ga=d,d=i,i=7,p=3,q=2\u{1B}\\")
    }

    @Test func kittySendsABigPictureIn4096ByteChunks() throws {
        let picture = try #require(TerminalPicture(width: 64, height: 64, rgb: [UInt8](repeating: 7, count: 64 * 64 * 3)))
        let text = KittyGraphics.transmit(picture)
        let commands = text.components(separatedBy: "\u{1B}\\").dropLast()
        // 12288 bytes are 16384 base64 characters: four chunks, m=1 but the last.
        #expect(commands.count == 4)
        #expect(commands[0].hasPrefix("\u{1B}_Ga=t,f=24,s=64,v=64,i=\(picture.id),q=2,m=1;"))
        #expect(commands[1].hasPrefix("\u{1B}_Gm=1,q=2;"))
        #expect(commands[3].hasPrefix("\u{1B}_Gm=0,q=2;"))
        let payload = commands.map { String($0.split(separator: ";", maxSplits: 1)[1]) }.joined()
        #expect(Data(base64Encoded: payload) == Data(picture.rgb))
        #expect(commands.allSatisfy { ($0.split(separator: ";", maxSplits: 1).last?.count ?? 0) <= 4096 })
    }

    /// Worked by hand: four colours on the 6×6×6 cube get registers 0–3 in the order they
    /// appear; one band; red is row 0 of column 0 (`@` = 63 + 1), green row 0 of column 1, blue
    /// row 1 of column 0 (`A` = 63 + 2), white row 1 of column 1. Empty trailing sixels are left out.
    @Test func sixelOfA2x2Picture() {
        #expect(SixelEncoder.encode(Self.twoByTwo)
                == "\u{1B}P0;1;0q\"1;1;2;2#0;2;100;0;0#1;2;0;100;0#2;2;0;0;100#3;2;100;100;100#0@$#1?@$#2A$#3?A\u{1B}\\")
    }

    @Test func sixelBandsAndRuns() throws {
        // 5 wide, 7 high, one grey: a full band (`~` = all six rows) run-length coded, then one row.
        let picture = try #require(TerminalPicture(width: 5, height: 7, rgb: [UInt8](repeating: 128, count: 5 * 7 * 3)))
        #expect(SixelEncoder.encode(picture) == "\u{1B}P0;1;0q\"1;1;5;7#0;2;60;60;60#0!5~-#0!5@\u{1B}\\")
        // With 16 registers the cube is 2 × 2 × 2.
        #expect(SixelEncoder.encode(Self.twoByTwo, registers: 16).contains("#3;2;100;100;100"))
        #expect(SixelEncoder.runLength([1, 1, 2, 2, 2]) == "@@!3A")
    }

    /// A 24-bit BMP worked by hand: 54 header bytes, rows bottom up in blue-green-red, each
    /// padded to 8 bytes; then iTerm2's OSC 1337 around its base64.
    @Test func iTerm2ImageOfA2x2Picture() {
        let bmp = ITerm2Image.bmp(Self.twoByTwo)
        let header: [UInt8] = [0x42, 0x4D, 70, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0,
                               40, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 24, 0, 0, 0, 0, 0, 16, 0, 0, 0,
                               0x13, 0x0B, 0, 0, 0x13, 0x0B, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        let rows: [UInt8] = [255, 0, 0, 255, 255, 255, 0, 0,   // blue, white (the bottom row first)
                             0, 0, 255, 0, 255, 0, 0, 0]       // red, green
        #expect(bmp == header + rows)
        #expect(ITerm2Image.encode(Self.twoByTwo, columns: 4, rows: 1)
                == "\u{1B}]1337;File=inline=1;size=70;width=4;height=1;preserveAspectRatio=0:" + Data(header + rows).base64EncodedString() + "\u{07}")
    }

    @Test func everyPictureHasItsOwnID() {
        let ids = (0..<100).compactMap { _ in TerminalPicture(width: 1, height: 1, rgb: [0, 0, 0])?.id }
        #expect(Set(ids).count == 100)
        #expect(!ids.contains(0))
    }

    // MARK: Placement

    static func buffer(with picture: TerminalPicture, at rect: Rect, width: Int = 20, height: Int = 10) -> CellBuffer {
        var buffer = CellBuffer(width: width, height: height)
        buffer.fill(rect, style: Style(fg: .rgb(1, 2, 3), bg: .rgb(4, 5, 6)), with: "▀")
        buffer.place(picture, in: rect)
        return buffer
    }

    @Test func aPictureDrawnOverIsNotShown() {
        var buffer = Self.buffer(with: Self.twoByTwo, at: Rect(x: 2, y: 2, width: 4, height: 2))
        #expect(buffer.visiblePictures.count == 1)
        buffer.write("help", x: 4, y: 3)
        #expect(buffer.visiblePictures.isEmpty)
        buffer.clear()
        #expect(buffer.pictures.isEmpty)
        // A picture not wholly inside the buffer is not placed.
        buffer.place(Self.twoByTwo, in: Rect(x: 18, y: 0, width: 4, height: 1))
        #expect(buffer.pictures.isEmpty)
    }

    @Test func kittyPlacesOnceRemovesWhatLeftAndMovesWhatMoved() {
        let picture = Self.twoByTwo, id = Self.twoByTwo.id
        var layer = PictureLayer(graphics: .kitty)
        let size = TerminalSize(width: 20, height: 10)
        let at2 = Self.buffer(with: picture, at: Rect(x: 0, y: 2, width: 4, height: 1)).visiblePictures
        let first = layer.update(to: at2, size: size, fullRepaint: true)
        #expect(first.output == KittyGraphics.deleteAllPlacements + KittyGraphics.transmit(picture) + "\u{1B}7\u{1B}[3;1H"
                + KittyGraphics.place(id: id, placement: 2 * 4096 + 1, columns: 4, rows: 1) + "\u{1B}8")
        // The same frame again: nothing to send.
        #expect(layer.update(to: at2, size: size, fullRepaint: false) == PictureLayer.Step())
        // Scrolled up a line: the old placement goes, the new one is placed, the pixels are not sent again.
        let at1 = Self.buffer(with: picture, at: Rect(x: 0, y: 1, width: 4, height: 1)).visiblePictures
        let moved = layer.update(to: at1, size: size, fullRepaint: false)
        #expect(moved.output == KittyGraphics.delete(id: id, placement: 2 * 4096 + 1) + "\u{1B}7\u{1B}[2;1H"
                + KittyGraphics.place(id: id, placement: 4096 + 1, columns: 4, rows: 1) + "\u{1B}8")
        #expect(moved.repaint.isEmpty)
        // Kept, but ncurses writes its line (it may have scrolled it): placed again, nothing deleted.
        #expect(layer.update(to: at1, size: size, fullRepaint: false, changedLines: [1]).output
                == "\u{1B}7\u{1B}[2;1H" + KittyGraphics.place(id: id, placement: 4096 + 1, columns: 4, rows: 1) + "\u{1B}8")
        #expect(layer.update(to: at1, size: size, fullRepaint: false, changedLines: [0, 2]) == PictureLayer.Step())
        // Scrolled away: removed, nothing left behind.
        #expect(layer.update(to: [], size: size, fullRepaint: false).output == KittyGraphics.delete(id: id, placement: 4096 + 1))
        #expect(layer.shown.isEmpty)
        // One picture in two places: sent once, placed twice.
        var twice = Self.buffer(with: picture, at: Rect(x: 0, y: 1, width: 4, height: 1))
        twice.fill(Rect(x: 0, y: 5, width: 4, height: 1), style: Style(fg: .rgb(1, 2, 3), bg: .rgb(4, 5, 6)), with: "▀")
        twice.place(picture, in: Rect(x: 0, y: 5, width: 4, height: 1))
        layer.forgetScreen()
        let both = layer.update(to: twice.visiblePictures, size: size, fullRepaint: true).output
        #expect(both.components(separatedBy: "a=t,").count == 2)
        #expect(both.components(separatedBy: "a=p,").count == 3)
        // The screen cleared (Ctrl-L, a resize): kitty freed the pictures with it, so they are sent again.
        layer.forgetScreen()
        #expect(layer.update(to: at1, size: size, fullRepaint: true).output.contains(KittyGraphics.transmit(picture)))
    }

    @Test func sixelRepaintsTheLinesAPictureLeftAndDrawsItWhereItIs() {
        let picture = Self.twoByTwo
        let other = TerminalPicture(width: 2, height: 2, rgb: [UInt8](repeating: 9, count: 12))!
        var layer = PictureLayer(graphics: .sixel)
        let size = TerminalSize(width: 20, height: 10)
        var frame = Self.buffer(with: picture, at: Rect(x: 0, y: 2, width: 4, height: 2))
        frame.fill(Rect(x: 10, y: 3, width: 2, height: 1), style: Style(fg: .rgb(7, 7, 7)), with: "▀")
        frame.place(other, in: Rect(x: 10, y: 3, width: 2, height: 1))
        let first = layer.update(to: frame.visiblePictures, size: size, fullRepaint: true)
        #expect(first.repaint.isEmpty)
        #expect(first.output == "\u{1B}7\u{1B}[3;1H" + SixelEncoder.encode(picture) + "\u{1B}8"
                + "\u{1B}7\u{1B}[4;11H" + SixelEncoder.encode(other) + "\u{1B}8")
        // The first picture moves down a line: lines 2 and 3 are repainted, which erases the
        // other picture on line 3 too, so it is drawn again.
        var next = Self.buffer(with: picture, at: Rect(x: 0, y: 3, width: 4, height: 2))
        next.fill(Rect(x: 10, y: 3, width: 2, height: 1), style: Style(fg: .rgb(7, 7, 7)), with: "▀")
        next.place(other, in: Rect(x: 10, y: 3, width: 2, height: 1))
        let step = layer.update(to: next.visiblePictures, size: size, fullRepaint: false)
        #expect(step.repaint == [2, 3])
        #expect(step.output == "\u{1B}7\u{1B}[4;1H" + SixelEncoder.encode(picture) + "\u{1B}8"
                + "\u{1B}7\u{1B}[4;11H" + SixelEncoder.encode(other) + "\u{1B}8")
        // Nothing moved, but ncurses writes to line 3 (it may rewrite the whole line): the
        // pictures on it are drawn again, the one on line 4 alone is left.
        let rewritten = layer.update(to: next.visiblePictures, size: size, fullRepaint: false, changedLines: [3])
        #expect(rewritten.repaint.isEmpty)
        #expect(rewritten.output == "\u{1B}7\u{1B}[4;1H" + SixelEncoder.encode(picture) + "\u{1B}8"
                + "\u{1B}7\u{1B}[4;11H" + SixelEncoder.encode(other) + "\u{1B}8")
        #expect(layer.update(to: next.visiblePictures, size: size, fullRepaint: false, changedLines: [7]) == PictureLayer.Step())
        // On the last line a sixel would scroll the screen: left to the half blocks.
        let bottom = Self.buffer(with: picture, at: Rect(x: 0, y: 9, width: 4, height: 1)).visiblePictures
        #expect(!layer.update(to: bottom, size: size, fullRepaint: true).output.contains("\u{1B}P"))
    }

    @Test func halfBlocksSendNothing() {
        var layer = PictureLayer(graphics: .halfBlocks)
        let frame = Self.buffer(with: Self.twoByTwo, at: Rect(x: 0, y: 2, width: 4, height: 1)).visiblePictures
        #expect(layer.update(to: frame, size: TerminalSize(width: 20, height: 10), fullRepaint: true) == PictureLayer.Step())
    }
}
