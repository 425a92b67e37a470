import DemoData
import DemoServer
import FeedModel
import Foundation
@testable import QapitalApp
import SimpleFINClient
import SimpleFINSource
import SourceKit
import TermUI
import Testing
import TestSupport

/// SimpleFIN's screens as whole frames (`GoldenFrameTests`' files and helper): Goals with and
/// without `[simplefin] goals`, Activity (the spending accounts merged, pending marked) and the
/// Round-ups tab (suggestions only), on `serve --api simplefin`'s data at the fixed clock, UTC,
/// colours on, pictures off, 80×24 and 120×40. The app is configured as `openBank` does it: the
/// source's read-only words, its header and its note.
@MainActor
@Suite(.timeLimit(.minutes(2))) struct SimpleFINGoldenFrameTests {
    struct Frame: Sendable, CustomTestStringConvertible {
        let name: String
        let keys: [Key]
        let goals: String?
        var testDescription: String { name }
    }

    nonisolated static let frames: [Frame] = [
        Frame(name: "simplefin-goals", keys: [], goals: "Vacation; Emergency fund"),
        Frame(name: "simplefin-goals-unset", keys: [], goals: nil),
        Frame(name: "simplefin-activity", keys: [.char("2")], goals: "Vacation; Emergency fund"),
        Frame(name: "simplefin-round-ups", keys: [.char("3")], goals: "Vacation; Emergency fund"),
    ]

    @Test(arguments: frames) func frame(_ frame: Frame) async throws {
        let server = try DemoHTTPServer(handler: SimpleFINDemoAPI(backend: DemoBackend(now: fixedNow), clock: { fixedNow }))
        try await server.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simplefin-golden-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["XDG_CONFIG_HOME": folder.path + "/config", "XDG_CACHE_HOME": folder.path + "/cache", "HOME": folder.path]
        var settings: [String: String] = [:]
        if let goals = frame.goals {
            settings["goals"] = goals
            settings["goal-targets"] = "Vacation = 2500"
        }
        let request = BankRequest(baseURL: SimpleFINAPI.bridgeURL, token: SimpleFINDemoAPI.setupToken(baseURL: await server.baseURL.absoluteString),
                                  allowInsecureHTTP: false, log: nil, settings: settings)
        let api = try await SimpleFINStart.connect(request, environment: environment, now: { fixedNow })
        let header = try await api.account()?.summary ?? api.sourceName
        for size in GoldenFrameTests.sizes {
            var configuration = AppCore.Configuration(sourceName: header, colors: true, timeZone: TimeZone(identifier: "UTC")!,
                                                      currency: api.accountCurrency, images: false)
            configuration.noGoalCreation = SimpleFINAPI.source.noGoalCreation
            configuration.noMoneyMoves = SimpleFINAPI.source.noMoneyMoves
            var capabilities = AppCore.Capabilities(skippedRecords: api.skippedRecords)
            capabilities.sourceNote = { api.statusNote }
            let core = AppCore(api: api, configuration: configuration, capabilities: capabilities, now: { fixedNow })
            let app = AppHarness(core: core, width: size.width, height: size.height)
            _ = await app.start()
            for key in frame.keys { await app.press(key) }
            let text = try GoldenFile.render(app.terminal.screen, title: "\(frame.name) on serve --api simplefin")
            GoldenFile.check(text, name: "\(frame.name)-\(size.width)x\(size.height)")
        }
        await server.stop()
    }
}
