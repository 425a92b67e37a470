@testable import DemoData
import FeedModel
import Foundation
import Testing
import TermUI
import TestSupport
@testable import QapitalApp
@testable import qapital_tui

/// Tab 4's filter (all / done / in progress / locked) and its pictures (`bg_image_url`, a level badge otherwise).
@MainActor
@Suite(.timeLimit(.minutes(1))) struct AchievementsScreenTests {
    static let recorded: AchievementsFile = try! AppOptions.loadAchievements(path: nil)

    static func levels(_ lines: [String]) -> [String] {
        lines.compactMap { line in line.range(of: #"Level \d+"#, options: .regularExpression).map { String(line[$0]) } }
    }

    @Test func fStepsThroughAllDoneInProgressAndLockedAndTheTitleSaysWhich() async {
        let file = AchievementsFile(title: "Smart Investing", achievements: [
            Achievement(id: 1, level: "1", progress: 50, total: 50, isAccessible: true),
            Achievement(id: 2, level: "2", progress: 10, total: 50, isAccessible: true),
            Achievement(id: 3, level: "3", progress: 0, total: 50, isAccessible: false),
        ])
        let app = AppHarness(width: 80, height: 16, achievements: file)
        _ = await app.start()
        var lines = await app.press(.char("4"))
        #expect(lines[1].contains("Smart Investing") && lines[1].contains("showing all (3 of 3)"))
        #expect(Self.levels(lines) == ["Level 1", "Level 2", "Level 3"])
        lines = await app.press(.char("f"))
        #expect(lines[1].contains("showing done (1 of 3)"))
        #expect(Self.levels(lines) == ["Level 1"])
        lines = await app.press(.char("f"))
        #expect(lines[1].contains("showing in progress (1 of 3)"))
        #expect(Self.levels(lines) == ["Level 2"])
        lines = await app.press(.char("f"))
        #expect(lines[1].contains("showing locked (1 of 3)"))
        #expect(Self.levels(lines) == ["Level 3"])
        lines = await app.press(.char("f"))
        #expect(lines[1].contains("showing all (3 of 3)"))
        // The recorded file has nothing done: the list says so in one line.
        let recorded = AppHarness(width: 80, height: 16, achievements: Self.recorded)
        _ = await recorded.start()
        lines = await recorded.press(.char("4"), .char("f"))
        #expect(lines.contains { $0.contains("No achievement is done. f shows the others.") })
        // The help lists the key.
        #expect(KeysHelp.defaultEntries.contains { $0.keys.contains(.char("f")) && $0.help.contains("in progress") })
    }

    @Test func picturesWhereTheWidthAllowsElseTheLevelBadge() async throws {
        let picture = DemoImages.goalURL(id: 1)
        let file = AchievementsFile(title: "T", achievements: [
            Achievement(id: 1, level: "1", progress: 10, total: 50, backgroundImageURL: picture, isAccessible: true),
            Achievement(id: 2, level: "2", progress: 0, total: 50, backgroundImageURL: nil, isAccessible: false),
            Achievement(id: 3, level: "3", progress: 0, total: 50, backgroundImageURL: URL(string: "demo:/images/none.png"), isAccessible: false),
        ])
        let app = AppHarness(width: 80, height: 16, colors: true, achievements: file)
        _ = await app.start()
        var lines = await app.press(.char("4"))
        let level1 = try #require(lines.firstIndex { $0.contains("Level 1") })
        #expect(lines[level1].dropFirst().prefix(4).allSatisfy { "▀▄█ ".contains($0) } && lines[level1].contains("▀"), "\(lines[level1])")
        let level2 = try #require(lines.firstIndex { $0.contains("Level 2") })
        #expect(lines[level2].hasPrefix("  L2  Level 2"), "\(lines[level2])")
        // A picture that cannot be had shows the badge for good.
        let level3 = try #require(lines.firstIndex { $0.contains("Level 3") })
        #expect(lines[level3].hasPrefix("  L3  Level 3"), "\(lines[level3])")
        // The screen reports which pictures it shows; the store fetched them after the frame.
        let shown = app.core.screen.shown(app.coreData)
        #expect(shown.pictures == [picture, URL(string: "demo:/images/none.png")!])
        // Narrow: no picture column at all.
        lines = await app.resize(width: 36, height: 16)
        let narrow = try #require(lines.firstIndex { $0.contains("Level 1") })
        #expect(lines[narrow].hasPrefix(" Level 1"), "\(lines[narrow])")
        #expect(app.core.screen.shown(app.coreData).pictures.isEmpty)
        // Without colours: the badge in reverse video.
        let plain = AppHarness(width: 80, height: 16, colors: false, achievements: file)
        _ = await plain.start()
        lines = await plain.press(.char("4"))
        let plainRow = try #require(lines.firstIndex { $0.contains("Level 1") })
        #expect(lines[plainRow].hasPrefix("  L1  Level 1"))
        #expect(plain.terminal.attributes(atX: 2, y: plainRow).contains(.reverse))
    }
}
