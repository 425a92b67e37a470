@testable import DemoServer
@testable import DemoData
@testable import UpClient
import FeedModel
import Foundation
@testable import UpSource
import Testing
import TermUI
import TestSupport
@testable import QapitalApp
@testable import qapital_tui

/// Up through the source registry, as the command line opens it: `--source up --api-url … --token …`
/// (or `UP_TOKEN`) against `serve --api up`, the whole app on the test terminal.
@Suite(.timeLimit(.minutes(1))) struct UpAppTests {
    /// A private config directory (remembered tokens) and, when given, a config file.
    static func environment(config: String? = nil) throws -> (environment: [String: String], directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("up-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var environment = ["XDG_CONFIG_HOME": directory.path, "XDG_CACHE_HOME": directory.appendingPathComponent("cache").path]
        if let config {
            let file = directory.appendingPathComponent("config.toml")
            try config.write(to: file, atomically: true, encoding: .utf8)
            environment["QAPITAL_TEST_CONFIG"] = file.path
        }
        return (environment, directory)
    }

    @Test func theTokenComesFromTheFlagOrUpToken() throws {
        let options = try AppOptions.parse(["--source", "up"])
        #expect(options.resolvedToken(["UP_TOKEN": "up:yeah:env"], for: UpAPI.source) == "up:yeah:env")
        #expect(options.resolvedToken(["QAPITAL_TOKEN": "other"], for: UpAPI.source) == nil)
        let flagged = try AppOptions.parse(["--source", "up", "--token", "up:yeah:flag"])
        #expect(flagged.resolvedToken(["UP_TOKEN": "up:yeah:env"], for: UpAPI.source) == "up:yeah:flag")
        let settings = try options.settings(environment: [:])
        #expect(settings.source.baseURL == UpAPI.productionURL)
        #expect(throws: (any Error).self) { _ = try AppOptions.parse(["--source", "up", "--currency", "AUD"]).settings(environment: [:]) }
    }

    @Test func theWholeAppOnUpData() async throws {
        let (environment, directory) = try Self.environment()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("config.toml")
        try "[up]\nsaver-targets = \"Balloons = 500; Nobody = 1\"\n".write(to: config, atomically: true, encoding: .utf8)
        let handler = UpDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: audCurrency)), rateLimit: 60)
        try await withUpServer(handler: handler) { _, url in
            let options = try AppOptions.parse(["--source", "up", "--api-url", url.absoluteString, "--no-cache",
                                                "--config", config.path])
            let settings = try options.settings(environment: environment.merging(["UP_TOKEN": UpDemoAPI.testToken]) { $1 })
            #expect(settings.sourceSettings["saver-targets"] != nil)
            let start = try await options.startBank(settings.source, environment: environment.merging(["UP_TOKEN": UpDemoAPI.testToken]) { $1 },
                                                    sourceSettings: settings.sourceSettings)
            guard case .connected(let connection) = start else {
                Issue.record("not connected")
                return
            }
            try await Self.drive(options, connection, settings: settings, environment: environment)
        }
    }

    @MainActor
    static func drive(_ options: AppOptions, _ connection: AppOptions.BankConnection, settings: AppOptions.Settings,
                      environment: [String: String]) async throws {
        let core = options.openBank(connection, source: settings.source, settings: settings, environment: environment)
        let terminal = TestTerminal(width: 120, height: 30)
        let runner = AppRunner(core: core, terminal: terminal)
        func settle() async -> [String] {
            _ = await runner.run(until: { core.isSettled }, timeout: .seconds(30))
            return terminal.lines
        }
        func press(_ keys: Key...) async -> String {
            for key in keys {
                terminal.send(.key(key))
                _ = await settle()
            }
            return terminal.lines.joined(separator: "\n")
        }
        var screen = await settle().joined(separator: "\n")
        // The header: the spending account, JOINT marked, its balance; the rate limit running low.
        let bar = terminal.lines.last ?? ""
        #expect(bar.contains("2Up Spending (joint) · A$"))
        #expect(bar.contains("requests left this hour"))
        // Goals are the savers; the config file's target for one of them.
        #expect(screen.contains("Balloons") && screen.contains("A$500.00"))
        #expect(screen.contains("no target"))
        screen = await press(.char("a"))   // a new goal (the key `n` had before)
        // (Longer than the bar beside the header: whole, on the lines above it.)
        #expect(terminal.lines.suffix(4).joined().contains("Up's API cannot create savers"))
        // Activity: held, foreign and who paid on the joint account.
        screen = await press(.char("2"))
        #expect(screen.contains(" · held"))
        // Round-ups: Up's own, with the line saying Up moves them; `s` says why it does nothing.
        screen = await press(.char("3"))
        #expect(screen.contains(UpAPI.cannotMoveMoney))
        screen = await press(.char("["))
        #expect(screen.contains("Round-ups the bank made: A$"))
        #expect(screen.contains("boost A$1.00"))
        #expect(screen.contains(UpAPI.cannotMoveMoney))
        #expect(!screen.contains("s: save into a goal"))
        screen = await press(.char("s"))
        #expect(terminal.lines.suffix(4).joined().contains("Up's API cannot move money"))
        #expect(!screen.contains("Choose a goal"))
        // The token is nowhere on screen.
        #expect(!screen.contains(UpDemoAPI.testToken))
    }

    @Test func aRefusedTokenOpensTheSignInForm() async throws {
        let (environment, directory) = try Self.environment()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withUpServer { _, url in
            let options = try AppOptions.parse(["--source", "up", "--api-url", url.absoluteString, "--no-cache",
                                                "--token", "up:yeah:revoked"])
            let settings = try options.settings(environment: environment)
            let start = try await options.startBank(settings.source, environment: environment)
            guard case .signIn(let refusal, _) = start else {
                Issue.record("a refused token opened the app")
                return
            }
            #expect(refusal == "GET /util/ping: the token was refused (HTTP 401)")
            #expect(refusal?.contains("revoked") == false)
            let screen = await MainActor.run { options.bankSignIn(settings.source, refusal: refusal, settings: settings, environment: environment) }
            #expect(screen != nil)
        }
    }

    @Test func aBadSaverTargetIsOneLine() async throws {
        let (environment, directory) = try Self.environment()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withUpServer { _, url in
            let options = try AppOptions.parse(["--source", "up", "--api-url", url.absoluteString, "--no-cache",
                                                "--token", UpDemoAPI.testToken])
            let settings = try options.settings(environment: environment)
            do {
                _ = try await options.startBank(settings.source, environment: environment, sourceSettings: ["saver-targets": "Holiday"])
                Issue.record("a bad target was taken")
            } catch {
                #expect("\(error)".contains("[up] saver-targets: \"Holiday\" is not NAME = AMOUNT"))
            }
        }
        #expect(try UpAPI.targetAmounts("Holiday = 2000; 🐷 Savings = 500.50;").get() == ["Holiday": 2000, "🐷 Savings": Decimal(string: "500.50")!])
    }

    /// `--source up` against `url`, started as the command starts it; nil (and recorded) when
    /// it did not come up connected, online or offline.
    static func startUp(_ url: URL, environment: [String: String]) async throws
        -> (options: AppOptions, settings: AppOptions.Settings, connection: AppOptions.BankConnection)? {
        let options = try AppOptions.parse(["--source", "up", "--api-url", url.absoluteString])
        let settings = try options.settings(environment: environment)
        guard case .connected(let connection) = try await options.startBank(settings.source, environment: environment) else {
            Issue.record("Up did not start (online or from the last account)")
            return nil
        }
        return (options, settings, connection)
    }

    /// Started offline, the people on a joint account are named as Up last named them (their
    /// display names kept with the accounts beside the cache, never the token), not "User #ID",
    /// even when the last run never showed them (so none was kept as a user in the cache).
    @Test func anOfflineStartNamesThePeopleOnAJointAccount() async throws {
        let (environment, directory) = try Self.environment()
        defer { try? FileManager.default.removeItem(at: directory) }
        let withToken = environment.merging(["UP_TOKEN": UpDemoAPI.testToken]) { $1 }
        let backend = DemoBackend(now: Date(), options: .init(currency: audCurrency))
        let users = await backend.dataset.users
        let names = [1, 2].compactMap { id in users.first { $0.id == id }?.displayName }
        var served: URL?
        try await withUpServer(handler: UpDemoAPI(backend: backend)) { _, url in
            served = url
            guard let (options, settings, connection) = try await Self.startUp(url, environment: withToken) else { return }
            // The app starts on Goals (the activity's first page loads behind it); nobody is shown.
            let goals = await MainActor.run {
                AppHarness(core: options.openBank(connection, source: settings.source, settings: settings, environment: withToken),
                           width: 120)
            }
            _ = await goals.start()
        }
        guard let (options, settings, connection) = try await Self.startUp(try #require(served), environment: withToken) else { return }
        #expect(connection.offline)
        let app = await MainActor.run {
            AppHarness(core: options.openBank(connection, source: settings.source, settings: settings, environment: withToken), width: 120)
        }
        _ = await app.start()
        let activity = await app.press(.char("2")).joined(separator: "\n")
        // Naming them asked Up nothing: the app still knows it is offline (and keeps trying to reconnect).
        let bar = await MainActor.run { app.terminal.lines.last ?? "" }
        #expect(bar.contains("offline — showing cached data"), "\(bar)")
        #expect(!activity.contains("User #"), "\(activity)")
        #expect(names.count == 2 && names.allSatisfy { activity.contains($0) }, "\(names) in \(activity)")
        let people = await app.press(.char("5")).joined(separator: "\n")
        #expect(!people.contains("User #") && names.allSatisfy { people.contains($0) }, "\(people)")
        let kept = try FileManager.default.subpathsOfDirectory(atPath: directory.path).filter { $0.contains("up-account-") }
        #expect(kept.count == 1, "the account is kept: \(kept)")
        for file in kept {
            let bytes = try Data(contentsOf: directory.appendingPathComponent(file))
            #expect(bytes.range(of: Data(UpDemoAPI.testToken.utf8)) == nil)
        }
    }

    /// With Up unreachable, the app starts on the last account's cache, from the account kept
    /// beside it (no token in that file).
    @Test func anUnreachableUpStartsOnTheLastAccount() async throws {
        let (environment, directory) = try Self.environment()
        defer { try? FileManager.default.removeItem(at: directory) }
        let withToken = environment.merging(["UP_TOKEN": UpDemoAPI.testToken]) { $1 }
        var served: URL?
        try await withUpServer { _, url in
            served = url
            guard let (options, settings, connection) = try await Self.startUp(url, environment: withToken) else { return }
            #expect(!connection.offline)
            _ = await MainActor.run { options.openBank(connection, source: settings.source, settings: settings, environment: withToken) }
        }
        guard let (_, _, connection) = try await Self.startUp(try #require(served), environment: withToken) else { return }
        #expect(connection.offline)
        #expect(connection.header.hasPrefix("2Up Spending (joint) · A$"))
        #expect(connection.api.accountId == UpDemoAPI.spendingId)
        let kept = try FileManager.default.subpathsOfDirectory(atPath: directory.path).filter { $0.contains("up-account-") }
        #expect(kept.count == 1)
        for file in kept {
            let bytes = try Data(contentsOf: directory.appendingPathComponent(file))
            #expect(bytes.range(of: Data(UpDemoAPI.testToken.utf8)) == nil)
        }
    }
}
