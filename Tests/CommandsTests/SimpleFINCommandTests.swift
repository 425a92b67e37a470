import Commands
import DemoData
import DemoServer
import EnableBankingClient
import FeedModel
import Foundation
import SimpleFINClient
import SimpleFINSource
import SourceKit
import Testing
import TestSupport

/// The headless commands on SimpleFIN's look-alike: `roundups --save` refuses in one line and
/// sends nothing; `roundups` lists suggestions.
@Suite(.timeLimit(.minutes(1))) struct SimpleFINCommandTests {
    @Test func saveRefusesAndSendsNothing() async throws {
        let handler = SimpleFINDemoAPI(backend: DemoBackend(now: fixedNow), clock: { fixedNow })
        let server = try DemoHTTPServer(handler: handler)
        try await server.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simplefin-cmd-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["XDG_CONFIG_HOME": folder.path + "/config", "XDG_CACHE_HOME": folder.path + "/cache", "HOME": folder.path]
        var request = BankRequest(baseURL: SimpleFINAPI.bridgeURL, token: SimpleFINDemoAPI.setupToken(baseURL: await server.baseURL.absoluteString),
                                  allowInsecureHTTP: false, log: nil, settings: ["goals": "Vacation"])
        request.headless = true
        let api = try await SimpleFINStart.connect(request, environment: environment, now: { fixedNow })
        let before = await handler.accountRequests
        let output = CapturedOutput()
        var context = CommandContext(api: api, sourceKind: "simplefin", currency: api.accountCurrency, format: .table, output: output.sink(),
                                     now: { fixedNow })
        context.noMoneyMoves = SimpleFINAPI.source.noMoneyMoves
        let week = Week(containing: fixedNow.addingTimeInterval(-7 * 86_400), calendar: context.calendar)
        await #expect { try await RoundUpsCommands.save(context, week: week, goal: "Vacation", dryRun: false, yes: true, confirm: { _ in true }) }
            throws: { error in "\(error)".contains("SimpleFIN is read-only") }
        #expect(await handler.accountRequests == before)
        // `rules --save` refuses in the rules' words, not the round-ups'.
        context.noRuleMoves = SimpleFINAPI.source.noRuleMoves
        await #expect { try await RulesCommands.save(context, file: RulesFile(rules: []), through: week, dryRun: false, yes: true,
                                                     confirm: { _ in true }) }
            throws: { error in (error as? CommandFailure)?.message == ReadOnlyBank.noRuleMoves("SimpleFIN") }
        #expect(await handler.accountRequests == before)
        #expect(EnableBankingAPI.source.noRuleMoves == ReadOnlyBank.noRuleMoves("Enable Banking"))
        #expect(EnableBankingAPI.source.noRuleMoves?.contains("round-ups") == false)
        // The week's list: suggestions, each marked so.
        try await RoundUpsCommands.list(context, week: week)
        let text = output.value
        #expect(text.contains("suggestion") && !text.contains("made by the bank"))
        await server.stop()
    }

    /// Issue 50, item 6: a goal is found by the name the config file gives it and by the bank's
    /// id for the account, in any case, whatever its shown name ("Vacation · SimpleFIN Demo Bank")
    /// says today; a name no goal has is still one line.
    @Test func aGoalIsFoundByTheConfiguredNameAndTheBanksId() async throws {
        let handler = SimpleFINDemoAPI(backend: DemoBackend(now: fixedNow), clock: { fixedNow })
        let server = try DemoHTTPServer(handler: handler)
        try await server.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simplefin-goal-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["XDG_CONFIG_HOME": folder.path + "/config", "XDG_CACHE_HOME": folder.path + "/cache", "HOME": folder.path]
        var request = BankRequest(baseURL: SimpleFINAPI.bridgeURL, token: SimpleFINDemoAPI.setupToken(baseURL: await server.baseURL.absoluteString),
                                  allowInsecureHTTP: false, log: nil, settings: ["goals": "Vacation; Emergency fund"])
        request.headless = true
        let api = try await SimpleFINStart.connect(request, environment: environment, now: { fixedNow })
        let goals = try await api.goals()
        let vacation = try #require(goals.first { $0.name.hasPrefix("Vacation · ") }, "\(goals.map(\.name))")
        #expect(vacation.name != "Vacation")
        for name in ["Vacation", "vacation", "VACATION", vacation.id.rawValue, try #require(vacation.aliases.last)] {
            #expect(try CommandContext.goal(name, in: goals).id == vacation.id, "\(name)")
        }
        #expect(try CommandContext.goal("emergency FUND", in: goals).name.hasPrefix("Emergency fund"))
        #expect(throws: CommandFailure.self) { try CommandContext.goal("Holiday", in: goals) }
        await server.stop()
    }
}
