@testable import DemoData
import Foundation
import Testing
import TermImage
import TermUI
@testable import QapitalApp

/// Where the terminal draws pictures itself (kitty, sixel), the frame places each goal picture
/// over its half-block cells; what scrolls away or is drawn over is placed no more.
@MainActor
@Suite struct TerminalPictureTests {
    static let cell = PixelSize(width: 10, height: 20)

    /// Every placement stands on its own half-block cells in the frame shown.
    static func placementsStandOnTheirCells(_ app: AppHarness) -> Bool {
        app.terminal.pictures.allSatisfy { placement in
            (placement.rect.y..<placement.rect.maxY).allSatisfy { y in
                (placement.rect.x..<placement.rect.maxX).allSatisfy { app.terminal.screen[$0, y].scalar == "▀" }
            }
        }
    }

    @Test func goalThumbnailsAndTheSummaryArePlacedAtTheTerminalsResolution() async throws {
        let app = AppHarness(width: 120, height: 35, colors: true, pictureCellPixels: Self.cell)
        let lines = await app.start()
        let balloons = try #require(app.row(containing: "Balloons  "))
        #expect(lines[balloons].hasPrefix("▀▀▀▀ Balloons"))
        let thumbnail = try #require(app.terminal.pictures.first { $0.rect == Rect(x: 0, y: balloons, width: 4, height: 1) })
        #expect(thumbnail.picture.width == 40 && thumbnail.picture.height == 20)
        let summary = try #require(app.terminal.pictures.first { $0.rect.width == 16 && $0.rect.height == 8 })
        #expect(summary.picture.width == 160 && summary.picture.height == 160)
        #expect(Self.placementsStandOnTheirCells(app))
        // One per goal with a picture, plus the summary.
        let thumbnails = app.terminal.pictures.filter { $0.rect.width == 4 && $0.rect.height == 1 }
        #expect(thumbnails.count == lines.filter { $0.hasPrefix("▀▀▀▀ ") }.count, "\(thumbnails.map(\.rect)) \(lines)")
    }

    @Test func aPictureScrolledAwayIsNotPlacedAnyMore() async throws {
        let app = AppHarness(width: 80, height: 12, colors: true, pictureCellPixels: Self.cell)
        _ = await app.start()
        let balloons = try #require(app.row(containing: "Balloons"))
        let first = try #require(app.terminal.pictures.first { $0.rect.y == balloons })
        var moved = false
        for _ in 0..<30 {
            _ = await app.press(.char("j"))
            #expect(Self.placementsStandOnTheirCells(app))
            if app.row(containing: "Balloons") == nil {
                moved = true
                break
            }
        }
        #expect(moved, "Balloons never scrolled out of a 12-line screen")
        #expect(!app.terminal.pictures.contains { $0.picture == first.picture })
    }

    @Test func anOverlayOverAPictureHidesIt() async throws {
        let app = AppHarness(width: 120, height: 35, colors: true, pictureCellPixels: Self.cell)
        _ = await app.start()
        #expect(app.terminal.pictures.contains { $0.rect.width == 16 })
        _ = await app.press(.char("?"))
        // The help covers the middle of the screen, the summary picture with it.
        #expect(!app.terminal.pictures.contains { $0.rect.width == 16 })
        #expect(Self.placementsStandOnTheirCells(app))
        _ = await app.press(.escape)
        #expect(app.terminal.pictures.contains { $0.rect.width == 16 })
    }

    /// The goal detail at 120 × 40 places the large photo (24 × 12 cells at 10 × 20 pixels: 240 × 240),
    /// made from the picture as decoded; leaving the detail places it no more, and the list's
    /// pictures come back.
    @Test func theDetailsLargePhotoIsPlacedAndLeavingClearsIt() async throws {
        let app = AppHarness(width: 120, height: 40, colors: true, pictureCellPixels: Self.cell)
        _ = await app.start()
        let listPictures = app.terminal.pictures.count
        #expect(listPictures > 1)
        _ = await app.press(.enter)
        let photo = try #require(app.terminal.pictures.first { $0.rect == Rect(x: 0, y: 1, width: 24, height: 12) },
                                 "\(app.terminal.pictures.map(\.rect))")
        #expect(app.terminal.pictures.count == 1)
        #expect(photo.picture.width == 240 && photo.picture.height == 240)
        #expect(Self.placementsStandOnTheirCells(app))
        // Scaled from the decoded picture (kept up to `GoalDetailHeader.sourceSide`), not from a smaller size.
        let balloons = try #require(app.core.stores.goals.goals.first { $0.name == "Balloons" })
        let png = try #require(balloons.imageURL.flatMap { DemoImages.png(atPath: $0.path) })
        let source = try #require(ImageDecoder.decode(png)).limited(toMaxSide: GoalDetailHeader.sourceSide(cell: Self.cell))
        let expected = try #require(HalfBlockImage(source, columns: 24, rows: 12, cellPixels: Self.cell).picture)
        #expect(photo.picture.rgb == expected.rgb)

        _ = await app.press(.escape)
        #expect(!app.terminal.pictures.contains { $0.picture == photo.picture || $0.rect == photo.rect })
        #expect(app.terminal.pictures.count == listPictures)
        #expect(Self.placementsStandOnTheirCells(app))
    }

    /// Below 100 × 30 the detail keeps its 8 × 4 header picture, also placed.
    @Test func aSmallDetailPlacesItsHeaderPicture() async throws {
        let app = AppHarness(width: 80, height: 24, colors: true, pictureCellPixels: Self.cell)
        _ = await app.start()
        _ = await app.press(.enter)
        let placed = app.terminal.pictures.map(\.rect)
        #expect(placed == [Rect(x: 0, y: 1, width: 8, height: 4)])
        #expect(app.terminal.pictures.first.map { $0.picture.width == 80 && $0.picture.height == 80 } == true)
    }

    /// Avatars (activity feed, People, a person, the person card) and achievement pictures go
    /// through the same placements as goal photos: each at the terminal's resolution, on its cells.
    @Test func avatarsAndAchievementPicturesArePlacedToo() async throws {
        let achievements = DemoImages.withOwnPictures(GoldenFrameTests.achievements)
        let app = AppHarness(width: 120, height: 40, colors: true, achievements: achievements, pictureCellPixels: Self.cell)
        _ = await app.start()
        func placed(_ columns: Int, _ rows: Int) -> [PicturePlacement] {
            app.terminal.pictures.filter { $0.rect.width == columns && $0.rect.height == rows }
        }
        func atResolution(_ placements: [PicturePlacement]) -> Bool {
            placements.allSatisfy { $0.picture.width == $0.rect.width * 10 && $0.picture.height == $0.rect.height * 20 }
        }
        _ = await app.press(.char("u"))
        #expect(placed(4, 2).count == 1 && atResolution(placed(4, 2)), "the person card: \(app.terminal.pictures.map(\.rect))")
        _ = await app.press(.escape)
        _ = await app.press(.char("2"))
        #expect(placed(2, 1).count > 3 && atResolution(placed(2, 1)), "activity avatars: \(app.terminal.pictures.map(\.rect))")
        _ = await app.press(.char("4"))
        #expect(placed(4, 1).count == achievements.achievements.count(where: { $0.backgroundImageURL != nil }), "achievements")
        #expect(atResolution(placed(4, 1)))
        _ = await app.press(.char("5"))
        #expect(placed(4, 1).count > 3 && atResolution(placed(4, 1)), "People: \(app.terminal.pictures.map(\.rect))")
        _ = await app.press(.enter)
        #expect(placed(16, 8).count == 1 && atResolution(placed(16, 8)), "a person: \(app.terminal.pictures.map(\.rect))")
        #expect(Self.placementsStandOnTheirCells(app))
    }

    @Test func halfBlocksOnlyPlaceNothing() async throws {
        let app = AppHarness(width: 120, height: 35, colors: true)
        let lines = await app.start()
        #expect(lines.contains { $0.hasPrefix("▀▀▀▀ Balloons") })
        #expect(app.terminal.pictures.isEmpty)
    }
}
