import Testing
import TermUI
@testable import TermImage

@Suite struct ScalingTests {
    @Test func quadrantsAverageToTheirOwnColours() {
        let colours: [(UInt8, UInt8, UInt8, UInt8)] = [(255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255), (255, 255, 255, 255)]
        let image = TestImages.image(width: 4, height: 4) { x, y in colours[(y / 2) * 2 + x / 2] }
        let half = image.scaledToFill(width: 2, height: 2)
        for (i, c) in colours.enumerated() {
            #expect(half.pixel(x: i % 2, y: i / 2) == c)
        }
    }

    @Test func aCheckerboardAveragesToGrey() {
        let image = TestImages.image(width: 2, height: 2) { x, y in (x + y) % 2 == 0 ? (0, 0, 0, 255) : (255, 255, 255, 255) }
        let one = image.scaledToFill(width: 1, height: 1)
        #expect(one.pixel(x: 0, y: 0) == (128, 128, 128, 255))
    }

    @Test func fractionalCoverageIsWeighted() {
        // Three columns into two, uncropped: each target takes 1.5 source pixels.
        let image = TestImages.image(width: 3, height: 1) { x, _ in [(0, 0, 0, 255), (90, 90, 90, 255), (240, 240, 240, 255)][x] }
        let two = image.resampled(width: 2, height: 1, crop: (0, 0, 3, 1))
        #expect(two.pixel(x: 0, y: 0).r == 30)   // (0 × 1 + 90 × 0.5) / 1.5
        #expect(two.pixel(x: 1, y: 0).r == 190)  // (90 × 0.5 + 240 × 1) / 1.5
    }

    @Test func fillingCropsTheMiddleToTheTargetShape() {
        // A wide picture: red | green green | blue; a square target keeps the green middle.
        let image = TestImages.image(width: 4, height: 2) { x, _ in x == 0 ? (255, 0, 0, 255) : x == 3 ? (0, 0, 255, 255) : (0, 255, 0, 255) }
        let square = image.scaledToFill(width: 1, height: 1)
        #expect(square.pixel(x: 0, y: 0) == (0, 255, 0, 255))
    }

    @Test func transparentPixelsLendNoColour() {
        let image = TestImages.image(width: 2, height: 1) { x, _ in x == 0 ? (255, 0, 0, 255) : (0, 0, 255, 0) }
        let one = image.scaledToFill(width: 1, height: 1)
        #expect(one.pixel(x: 0, y: 0) == (255, 0, 0, 128))
    }

    @Test func limitingKeepsTheAspectRatioAndNeverEnlarges() {
        let image = TestImages.image(width: 200, height: 100) { _, _ in (1, 2, 3, 255) }
        let limited = image.limited(toMaxSide: 64)
        #expect(limited.width == 64 && limited.height == 32)
        #expect(limited.pixel(x: 10, y: 10) == (1, 2, 3, 255))
        #expect(TestImages.image(width: 8, height: 8) { _, _ in (0, 0, 0, 255) }.limited(toMaxSide: 64).width == 8)
    }

    @Test func enlargingRepeatsPixels() {
        let image = TestImages.image(width: 2, height: 1) { x, _ in x == 0 ? (10, 10, 10, 255) : (200, 200, 200, 255) }
        let big = image.scaledToFill(width: 4, height: 2)
        #expect(big.pixel(x: 0, y: 1) == (10, 10, 10, 255) && big.pixel(x: 1, y: 0) == (10, 10, 10, 255))
        #expect(big.pixel(x: 2, y: 0) == (200, 200, 200, 255) && big.pixel(x: 3, y: 1) == (200, 200, 200, 255))
    }
}

@Suite struct HalfBlockTests {
    /// A 4×4 picture, each pixel its own colour: red from x, green from y.
    static let image = TestImages.image(width: 4, height: 4) { x, y in (UInt8(x * 60), UInt8(y * 60), 200, 255) }

    @Test func eachCellShowsItsUpperPixelOnItsLowerPixel() {
        let cells = HalfBlockImage(HalfBlockTests.image, columns: 4, rows: 2)
        var buffer = CellBuffer(width: 8, height: 4)
        cells.draw(into: &buffer, x: 2, y: 1)
        for row in 0..<2 {
            for column in 0..<4 {
                let cell = buffer[2 + column, 1 + row]
                #expect(cell.scalar == "▀")
                #expect(cell.style.fg == .rgb(UInt8(column * 60), UInt8(row * 2 * 60), 200), "cell \(column),\(row)")
                #expect(cell.style.bg == .rgb(UInt8(column * 60), UInt8((row * 2 + 1) * 60), 200), "cell \(column),\(row)")
            }
        }
        #expect(buffer.rowText(1) == "  ▀▀▀▀  ")
        #expect(buffer[1, 1] == .blank && buffer[6, 2] == .blank && buffer.rowText(0) == "        ")
    }

    @Test func aOneLineStripShowsTheMiddleOfASquarePicture() {
        // 4×1 cells show 4×2 pixels, a 2:1 shape: the square's middle rows 1 and 2 fill it.
        let strip = HalfBlockImage(HalfBlockTests.image, columns: 4, rows: 1)
        #expect(strip.cell(column: 1, row: 0).style.fg == .rgb(60, 60, 200))
        #expect(strip.cell(column: 1, row: 0).style.bg == .rgb(60, 120, 200))
        // An 8×8 picture into the same strip: each strip pixel averages a 2×2 block.
        let big = TestImages.image(width: 8, height: 8) { x, y in (UInt8(x * 30), UInt8(y * 30), 0, 255) }
        let averaged = HalfBlockImage(big, columns: 4, rows: 1).cell(column: 0, row: 0)
        #expect(averaged.style.fg == .rgb(15, 75, 0))   // columns 0–1, rows 2–3
        #expect(averaged.style.bg == .rgb(15, 135, 0))  // columns 0–1, rows 4–5
    }

    @Test func drawingIsClippedAndRepairsWideCharacters() {
        var buffer = CellBuffer(width: 5, height: 2)
        buffer.write("東京", x: 0, y: 0)
        HalfBlockImage(HalfBlockTests.image, columns: 4, rows: 2).draw(into: &buffer, x: 1, y: 0, clip: Rect(x: 0, y: 0, width: 3, height: 1))
        #expect(buffer.rowText(0) == " ▀▀  ")
        #expect(buffer[3, 0] == Cell(" "))
        #expect(buffer.rowText(1) == "     ")
    }

    @Test func transparencyIsLaidOverTheBackdrop() {
        let clear = TestImages.image(width: 1, height: 2) { _, y in y == 0 ? (255, 255, 255, 0) : (255, 255, 255, 255) }
        let cell = HalfBlockImage(clear, columns: 1, rows: 1, backdrop: .init(10, 20, 30)).cell(column: 0, row: 0)
        #expect(cell.style.fg == .rgb(10, 20, 30))
        #expect(cell.style.bg == .rgb(255, 255, 255))
    }
}
