import Commands
@testable import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport
@testable import QapitalApp
@testable import qapital_tui

/// `--round-up-step` and the config file's `round-up-step` feed the Round-ups tab and the
/// `roundups` command alike: the same feed gives the same round-ups on screen and on stdout.
@MainActor @Suite(.timeLimit(.minutes(1))) struct RoundUpStepTests {
    static func configFile(_ text: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("qapital-step-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("config.toml")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test func theAppAndTheCommandRoundUpByTheSameStep() async throws {
        let file = try Self.configFile("round-up-step = 5\n")
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: file).deletingLastPathComponent().path) }
        for arguments in [["--round-up-step", "5"], ["--config", file]] {
            // One feed for both paths, around the moment the app opens on.
            let api = DemoSavingsAPI(backend: DemoBackend(now: Date()))
            let options = try AppOptions.parse(arguments + ["--no-cache"])
            var settings = try options.settings(environment: [:])
            settings.api = api
            #expect(settings.roundUpStep == 500)

            // The app: the Round-ups tab's week and total.
            let core = options.openApp(settings, api: api, sourceName: "demo", partition: nil, environment: [:])
            let app = AppHarness(core: core)
            _ = await app.start()
            // Last week: a whole week of payments, whatever the day today.
            let screen = await app.press(.char("3"), .char("["))
            let shown = try #require(core.roundUps.summary?.saveable)
            #expect(screen.contains { $0.contains("Round-ups: \(shown.formatted)") }, "\(screen.joined(separator: "\n"))")

            // The command on the same feed and week.
            let headless = try HeadlessOptions<JournalFormats>.parse(arguments + ["--no-cache", "--output", "json"])
            let captured = CapturedOutput()
            let context = try await headless.context(settings: settings, environment: [:], output: captured.sink())
            #expect(context.roundUpStep == 500)
            try await RoundUpsCommands.list(context, week: core.roundUps.week)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(captured.value.utf8)) as? [String: Any])
            let total = try #require(document["total"] as? [String: Any])
            #expect(total["minorUnits"] as? Int == Int(shown.minorUnits), "\(arguments)")
            for payment in try #require(document["payments"] as? [[String: Any]]) {
                let roundUp = try #require(payment["roundUp"] as? [String: Any])
                #expect((roundUp["minorUnits"] as? Int ?? -1) < 500)
            }

            // The step matters on this feed: the default step gives another total.
            let transactions = try await api.transactions(from: core.roundUps.week.start, to: core.roundUps.week.end)
                .filter { core.roundUps.week.contains($0.timestamp) }
            let byDefault = RoundUp.Summary(transactions: transactions, accountCurrency: .usd).saveable
            #expect(byDefault != shown)
        }
    }
}
