@testable import DemoData
import ArgumentParser
import FeedModel
import Foundation
import Testing
import TestSupport
import TermImage
import TermUI
@testable import QapitalApp
@testable import qapital_tui

/// Goal images and avatars on the screens, their monogram fallbacks, the flags, and `serve`.
@MainActor
@Suite struct PictureTests {
    static func isPicture(_ harness: AppHarness, x: Int, y: Int) -> Bool {
        let cell = harness.terminal.screen[x, y]
        guard cell.scalar == "▀", case .rgb = cell.style.fg, case .rgb = cell.style.bg else { return false }
        return true
    }

    @Test func goalRowsShowThumbnailsAndTheGoalWithoutAPictureItsMonogram() async throws {
        let app = AppHarness(width: 120, height: 35, colors: true)
        let lines = await app.start()
        let balloons = try #require(app.row(containing: "Balloons  "))
        #expect(lines[balloons].hasPrefix("▀▀▀▀ Balloons"))
        for x in 0..<4 { #expect(PictureTests.isPicture(app, x: x, y: balloons)) }
        let crib = try #require(app.row(containing: "A New Crib"))
        #expect(lines[crib].hasPrefix(" AN  A New Crib"))
        // The wide summary: a 16×8 picture.
        #expect(lines[balloons + 1].contains("│ ▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀ "))
        #expect(lines.filter { $0.contains("│ ▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀ ") }.count == 8)
    }

    @Test func theSelectedRowsThumbnailIsDrawnOverTheSelection() async throws {
        let app = AppHarness(width: 80, height: 20, colors: true)
        _ = await app.start()
        let dog = try #require(app.row(containing: "Dog"))
        await app.press(.char("j"))
        #expect(app.terminal.attributes(atX: 6, y: dog).contains(.reverse))
        for x in 0..<4 {
            #expect(PictureTests.isPicture(app, x: x, y: dog))
            #expect(!app.terminal.attributes(atX: x, y: dog).contains(.reverse))
        }
    }

    @Test func theGoalHeaderAndTheActivityFeedShowPictures() async throws {
        // One column short of the large photo: the compact header's 8×4.
        let app = AppHarness(width: 99, height: 30, colors: true)
        _ = await app.start()
        let detail = await app.press(.enter)
        #expect(detail[1].hasPrefix("▀▀▀▀▀▀▀▀ Balloons"))
        #expect(detail[4].hasPrefix("▀▀▀▀▀▀▀▀ "))
        #expect(detail[5].hasPrefix("────"))
        let activity = await app.press(.char("2"))
        let row = try #require(activity.firstIndex { $0.hasPrefix("▀▀ ") })
        #expect(PictureTests.isPicture(app, x: 0, y: row) && PictureTests.isPicture(app, x: 1, y: row))
        // Daniel has no avatar (and no activity of his own): his initial on his colour in People.
        let people = await app.press(.char("5"))
        let daniel = try #require(people.firstIndex { $0.contains("Daniel") }, "Daniel in People: \(people)")
        #expect(people[daniel].hasPrefix(" D   Daniel") && !PictureTests.isPicture(app, x: 1, y: daniel), "\(people[daniel])")
    }

    /// From 100 × 30 the detail's header is the photo, 24 × 12 half blocks (24 × 24 pixels),
    /// the text and the chart beside it, a rule under both.
    @Test func aWideAndTallDetailShowsTheLargePhoto() async throws {
        let app = AppHarness(width: 100, height: 30, colors: true)
        _ = await app.start()
        let detail = await app.press(.enter)
        let photo = String(repeating: "▀", count: 24)
        for y in 1...12 {
            #expect(detail[y].hasPrefix(photo + " "), "line \(y): \(detail[y])")
            for x in 0..<24 { #expect(PictureTests.isPicture(app, x: x, y: y)) }
        }
        #expect(detail[1].hasPrefix(photo + "  Balloons"))
        #expect(detail[2].hasPrefix(photo + "  Saved $400.00 of $1,500.00"))
        #expect(detail[5].contains("$1,500.00┤"), "the chart beside the photo: \(detail[5])")
        #expect(detail[13] == String(repeating: "─", count: 100))
        #expect(detail[14].contains("Johan made a roundup."))
        // Made from the decoded picture, not from a smaller size: the half blocks are the
        // picture's own at 24 × 12.
        let balloons = try #require(app.core.stores.goals.goals.first { $0.name == "Balloons" })
        let png = try #require(balloons.imageURL.flatMap { DemoImages.png(atPath: $0.path) })
        let source = try #require(ImageDecoder.decode(png))
        let expected = HalfBlockImage(source, columns: 24, rows: 12)
        for y in 0..<12 { for x in 0..<24 { #expect(app.terminal.screen[x, y + 1] == expected.cell(column: x, row: y)) } }
        // `c` hides the chart, and the compact header gives the feed its rows; `c` again, back.
        let compact = await app.press(.char("c"))
        #expect(compact[1].hasPrefix("▀▀▀▀▀▀▀▀ Balloons") && compact[5].hasPrefix("────"))
        #expect(compact[6].contains("Johan made a roundup."))
        #expect(await app.press(.char("c"))[1].hasPrefix(photo + "  Balloons"))
    }

    @Test func noImagesAndNoColourShowMonogramsOnly() async throws {
        for (colors, images) in [(true, false), (false, true)] {
            let app = AppHarness(width: 100, height: 30, colors: colors, images: images)
            let lines = await app.start()
            #expect(app.core.stores.images == nil)
            let balloons = try #require(app.row(containing: "Balloons  "))
            #expect(lines[balloons].hasPrefix(" BA  Balloons"))
            #expect(!lines.joined().contains("▀"))
        }
    }

    @Test func theFlagAndNoColorTurnPicturesOff() throws {
        let plain = try AppOptions.parse([]).settings(environment: [:])
        #expect(plain.images && plain.colors)
        #expect(try AppOptions.parse([]).settings(environment: [:], screen: ScreenOptions.parse(["--no-images"])).images == false)
        #expect(try AppOptions.parse([]).settings(environment: ["NO_COLOR": "1"]).images == false)
        #expect(try AppOptions.parse(["--no-color"]).settings(environment: [:]).images == false)
    }
}

@Suite struct ServedPictureTests {
    @Test func serveGivesPictureURLsOnItsOwnAddressAndAnswersThem() async throws {
        try await withDemoServer { _, api in
            let goals = try await api.goals()
            let balloons = try #require(goals.first { $0.id == 1 })
            let url = try #require(balloons.imageURL)
            #expect(url.scheme == "http" && url.path == "/images/goals/1.png" && url.port != nil)
            #expect(goals.first { $0.id == 7 }?.imageURL == nil)
            let png = try await api.imageData(at: url)
            #expect(png == DemoImages.goalPNG(id: 1))
            #expect(ImageDecoder.decode(png)?.width == 48)
            let avatar = try #require(try await api.user(id: 2).avatarURL)
            #expect(ImageDecoder.decode(try await api.imageData(at: avatar))?.width == 32)
            let missing = avatar.deletingLastPathComponent().appendingPathComponent("x.png")
            await #expect(throws: APIError.self) { try await api.imageData(at: missing) }
        }
    }

    @Test func theInProcessDemoAnswersItsOwnPictureURLsWithoutANetwork() async throws {
        let api = DemoSavingsAPI(backend: DemoBackend(now: fixedNow))
        let goal = try #require(try await api.goals().first)
        let url = try #require(goal.imageURL)
        #expect(url.scheme == "demo")
        #expect(try await api.imageData(at: url) == DemoImages.goalPNG(id: goal.id.number ?? 0))
        await #expect(throws: APIError.self) { try await api.imageData(at: URL(string: "ftp://example.com/a.png")!) }
    }
}
