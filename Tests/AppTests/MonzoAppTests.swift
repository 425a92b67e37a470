import Commands
import FeedCache
@testable import DemoServer
@testable import DemoData
@testable import MonzoClient
import FeedModel
import Foundation
@testable import MonzoSource
import SourceKit
import Testing
import TestSupport
import TermUI
@testable import QapitalApp
@testable import qapital_tui

/// The whole app on Monzo's data, built as the command builds it, against `serve --api monzo`.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct MonzoAppTests {
    nonisolated static let token = MonzoDemoAPI.testToken

    func open(_ url: URL, cache: URL) async throws -> AppHarness {
        let environment = ["XDG_CONFIG_HOME": cache.path + "/config", "MONZO_TOKEN": Self.token]
        let options = try AppOptions.parse(["--source", "monzo", "--api-url", url.absoluteString, "--cache-dir", cache.path, "--no-color"])
        let settings = try options.settings(environment: environment)
        guard case .connected(let connection) = try await options.startBank(settings.source, environment: environment) else {
            throw APIError(kind: .unauthorized, request: "start", message: "not connected")
        }
        return AppHarness(core: options.openBank(connection, source: settings.source, settings: settings, environment: environment),
                          width: 200)
    }

    /// `L` on Monzo runs `login monzo`'s own steps (`ConsentSignIn.oauth`) over the app: the
    /// client from the config file, the bank's page followed back to the loopback listener, the
    /// pair kept 0600, and the account goes on with the new token. With Monzo's approval asked
    /// for (`scaPending`), the panel says to approve it in the Monzo app and Enter checks again.
    @Test(arguments: [false, true]) func keyLSignsInWithTheOAuthClientOverTheApp(scaPending: Bool) async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("qt-monzo-l-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let demo = MonzoDemoAPI(backend: DemoBackend(now: Date(), options: .init(currency: .gbp)), options: .init(scaPending: scaPending))
        if scaPending { #expect(await demo.approve(Self.token)) }
        let handler = RecordingHandler(demo)
        try await withMonzoServer(handler) { url in
            try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
            let config = cache.appendingPathComponent("config.toml")
            try Data("[monzo]\nclient-id = \"\(MonzoDemoAPI.clientId)\"\nclient-secret = \"\(MonzoDemoAPI.clientSecret)\"\n".utf8).write(to: config)
            let environment = ["XDG_CONFIG_HOME": cache.path + "/config", "MONZO_TOKEN": Self.token]
            let options = try AppOptions.parse(["--source", "monzo", "--api-url", url.absoluteString, "--cache-dir", cache.path, "--no-color",
                                                "--config", config.path])
            var settings = try options.settings(environment: environment)
            settings.noBrowser = true
            guard case .connected(let connection) = try await options.startBank(settings.source, environment: environment) else {
                Issue.record("not connected")
                return
            }
            let app = AppHarness(core: options.openBank(connection, source: settings.source, settings: settings, environment: environment),
                                 width: 220)
            _ = await app.start()
            let panel = await app.press(.char("L"))
            #expect(panel.contains { $0.contains("Sign in at Monzo with your own OAuth client") }, "\(panel.joined(separator: "\n"))")
            app.terminal.send(.key(.enter))
            let prefix = url.absoluteString + "/auth/?client_id="
            await app.runner.run(until: { app.terminal.lines.contains { $0.hasPrefix(prefix) } }, timeout: .seconds(30))
            let address = try #require(app.terminal.lines.first { $0.hasPrefix(prefix) }).trimmingCharacters(in: .whitespaces)
            // The browser: the bank's page sends it back to the app's listener with the code.
            let back = try await rawRequest("GET", address)
            #expect(back.status == 200)
            let pairs = OAuthTokenPairs(fileURL: OAuthTokenPairs.defaultFile(environment: environment))
            if scaPending {
                await app.runner.run(until: { app.terminal.lines.contains { $0.contains("then press Enter here") } }, timeout: .seconds(30))
                #expect(app.terminal.lines.contains { $0.contains("Approve this sign-in in the Monzo app, then press Enter here.") })
                let kept = try #require(pairs.pair(for: url))
                #expect(await demo.approve(kept.accessToken))
                app.terminal.send(.key(.enter))
            }
            await app.runner.run(until: { app.terminal.lines.contains { $0.contains("the new token is in use") } }, timeout: .seconds(30))
            #expect(app.terminal.lines.contains { $0.contains("Signed in at Monzo: the new token is in use") })
            let pair = try #require(pairs.pair(for: url))
            #expect(pair.accessToken != Self.token)
            #expect(await handler.targets.filter { $0 == "POST /oauth2/token" }.count == 1)
            // The account goes on: the token replaced was checked with the bank.
            #expect(await handler.targets.filter { $0 == "GET /ping/whoami" }.count >= (scaPending ? 3 : 2))
        }
    }

    @Test func potsActivityAndNoNewPots() async throws {
        let backend = DemoBackend(now: Date(), options: .init(currency: .gbp))
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("qt-monzo-app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        try await withMonzoServer(MonzoDemoAPI(backend: backend)) { url in
            let app = try await open(url, cache: cache)
            let goals = await app.start()
            #expect(goals.contains { $0.contains("Balloons") }, "\(goals.joined(separator: "\n"))")
            #expect(goals.contains { $0.contains("Mikael · 04-00-04 12345678 · £") && $0.contains("with pots)") })
            // `a` (new goal): Monzo's API cannot create pots; the form does not open.
            let after = await app.press(.char("a"))
            #expect(app.core.overlays.isEmpty)
            #expect(after.contains { $0.contains("Monzo's API cannot create pots") }, "\(after.joined(separator: "\n"))")
            let activity = await app.press(.char("2"))
            #expect(activity.contains { $0.contains("· pending") }, "\(activity.joined(separator: "\n"))")
            #expect(activity.contains { $0.contains("Saved into") })
        }
    }

    /// Monzo asks the customer to approve access again in the middle of a session (403
    /// `forbidden.verification_required`): no sign-in form; the status bar says to approve it in
    /// the Monzo app and press r; what was loaded stays on screen; nothing is asked again until
    /// the user presses r, and then everything works with the same token.
    @Test func approvalAskedAgainMidSessionKeepsTheScreenAndWaitsForTheUser() async throws {
        let demo = MonzoDemoAPI(backend: DemoBackend(now: Date(), options: .init(currency: .gbp)))
        let handler = RecordingHandler(demo)
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("qt-monzo-sca-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        try await withMonzoServer(handler) { url in
            let app = try await open(url, cache: cache)
            _ = await app.start()
            let activity = await app.press(.char("2"))
            #expect(activity.contains { $0.contains("Saved into") })
            var goals = await app.press(.char("1"))
            #expect(goals.contains { $0.contains("Balloons") })

            #expect(await demo.lapseApproval(Self.token))
            goals = await app.press(.char("r"))
            let note = "Approve access in the Monzo app, then press r to try again"
            #expect(!app.core.overlays.contains { $0 is SignInOverlay }, "no sign-in form: the token is good")
            #expect(app.core.overlays.isEmpty)
            #expect(goals.last?.contains(note) == true, "\(goals.last ?? "")")
            #expect(goals.contains { $0.contains("Balloons") }, "the pots stay: \(goals.joined(separator: "\n"))")
            let shown = await app.press(.char("2"), .char("r"))
            #expect(shown.contains { $0.contains("Saved into") }, "the activity stays: \(shown.joined(separator: "\n"))")
            #expect(shown.last?.contains(note) == true)
            #expect(!shown.joined().contains(Self.token))

            // Nothing polls: ticks (offline retries, expiring messages) ask Monzo nothing.
            let asked = await handler.targets.count
            for _ in 0..<3 { _ = app.tick() }
            _ = await app.screen()
            #expect(await handler.targets.count == asked)

            // Approved in the app, r: loaded again with the same token, the note gone.
            #expect(await demo.approve(Self.token))
            let again = await app.press(.char("1"), .char("r"))
            #expect(again.contains { $0.contains("Balloons") })
            #expect(again.last?.contains("Approve access") == false, "\(again.last ?? "")")
            #expect(app.core.overlays.isEmpty)
        }
    }

    /// A pot's style colours its monogram through the theme's roles (so a theme, or no colour,
    /// decides the colour): known styles only; an unknown one keeps the name's colour; without
    /// colour every monogram is reverse video alone.
    @Test func potStylesColourTheirMonogramsThroughTheTheme() async throws {
        let pots: [(String, String?)] = [("Plain", nil), ("Trip", "beach_ball"), ("Fun", "raspberry"), ("Odd", "umbrella")]
        let goals = try pots.enumerated().map { index, pot in
            try MonzoMapping.goal(Monzo.Pot(id: "pot_\(index)", name: pot.0, style: pot.1, balance: 2_500, currency: "GBP",
                                            goalAmount: 10_000, created: nil, updated: nil))
        }
        let api = FakeSavingsAPI()
        api.script { $0.goals = { goals } }
        for colors in [true, false] {
            let app = AppHarness(api: api, width: 120, colors: colors, currency: .gbp)
            _ = await app.start()
            func monogram(_ name: String) throws -> Style {
                app.terminal.style(atX: 1, y: try #require(app.row(containing: name), "\(name) not listed"))
            }
            let reverse: Attributes = [.reverse, .bold]
            if colors {
                #expect(try monogram("Trip") == Style(fg: .role(.moneyOut), attributes: reverse))
                #expect(try monogram("Fun") == Style(fg: .role(.highlight), attributes: reverse))
                let odd = try monogram("Odd")
                #expect(odd.fg == .indexed(231) && odd.bg == DisplayFormat.monogramColor("Odd"), "an unknown style: the name's colour")
                // The summary beside the list draws the selected pot's block in its colour too.
                let tripRow = try #require(app.row(containing: "Trip"))
                _ = await app.press(.char("j"))
                let block = (0..<app.terminal.lines.count).filter { $0 != tripRow }.contains { y in
                    (0..<120).contains { app.terminal.style(atX: $0, y: y) == Style(fg: .role(.moneyOut), attributes: reverse) }
                }
                #expect(block)
            } else {
                for name in ["Trip", "Fun", "Odd"] {
                    #expect(try monogram(name) == Style(attributes: reverse), "\(name)")
                }
                #expect(Theme.noColor.resolve(Style(fg: .role(.moneyOut), attributes: reverse)) == Style(attributes: reverse))
            }
        }
    }

    /// Started once, the app keeps the account beside the cache; with Monzo unreachable the next
    /// start opens on it and its cache, offline, with the last header and no token in the file.
    @Test func startsOfflineOnTheLastAccount() async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("qt-monzo-offline-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        var served: URL?
        try await withMonzoServer(MonzoDemoAPI(backend: DemoBackend(now: Date(), options: .init(currency: .gbp)))) { url in
            served = url
            let app = try await open(url, cache: cache)
            _ = await app.start()
        }
        let url = try #require(served)
        let environment = ["XDG_CONFIG_HOME": cache.path + "/config", "MONZO_TOKEN": Self.token]
        let options = try AppOptions.parse(["--source", "monzo", "--api-url", url.absoluteString, "--cache-dir", cache.path, "--no-color"])
        let settings = try options.settings(environment: environment)
        guard case .connected(let connection) = try await options.startBank(settings.source, environment: environment) else {
            Issue.record("no offline start")
            return
        }
        #expect(connection.offline)
        #expect(connection.api.accountId == MonzoDemoAPI.accountId && connection.api.accountCurrency == .gbp)
        #expect(connection.header.hasPrefix("Mikael · 04-00-04 12345678 · £"))
        let kept = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasPrefix("monzo-account-") }
        #expect(kept.count == 1)
        #expect(kept.allSatisfy(CacheFiles.isCacheFile), "pruned with the cache it belongs to")
        #expect(!CacheFiles.isCacheFile("roundups-0a1b.json") && !CacheFiles.isCacheFile("-account-x.json"))
        let bytes = try Data(contentsOf: cache.appendingPathComponent(try #require(kept.first)))
        #expect(bytes.range(of: Data(Self.token.utf8)) == nil)
        let app = AppHarness(core: options.openBank(connection, source: settings.source, settings: settings, environment: environment),
                             width: 200)
        let lines = await app.start()
        #expect(lines.contains { $0.contains("Balloons") }, "the cached pots: \(lines.joined(separator: "\n"))")
    }

    /// `roundups --save` twice for the same week, from two machines (two cache directories),
    /// and again from the first: the deposit's dedupe_id comes from (monzo, base URL, account,
    /// week), so money moves once.
    @Test func aWeeksRoundUpsMoveOnceAcrossRunsAndMachines() async throws {
        let handler = MonzoDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: .gbp)))
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("qt-monzo-save-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try await withMonzoServer(handler) { url in
            func run(_ machine: String) async throws -> String {
                let options = try HeadlessOptions<JournalFormats>.parse(["--source", "monzo", "--api-url", url.absoluteString, "--token", Self.token,
                                                         "--cache-dir", root.appendingPathComponent(machine).path])
                let real = try await options.context(environment: ["XDG_CONFIG_HOME": root.path + "/config"])
                let output = Locked("")
                let context = CommandContext(api: real.api, sourceKind: real.sourceKind, currency: real.currency, format: .table,
                                             output: OutputSink(colors: false) { more in output.withLock { $0 += more } },
                                             calendar: Week.calendar(in: TimeZone(identifier: "Europe/London")!), now: { fixedNow },
                                             saver: real.saver)
                #expect(real.saver.identity == SaveIdentity(source: "monzo " + AppOptions.sourceText(url), account: MonzoDemoAPI.accountId))
                try await RoundUpsCommands.save(context, week: try context.week("last"), goal: "Balloons", dryRun: false, yes: true,
                                                confirm: { _ in true })
                return output.withLock { $0 }
            }
            let first = try await run("a")
            #expect(first.contains("saved £") && first.contains("into Balloons"), "\(first)")
            let other = try await run("b")
            #expect(await handler.depositCount == 1, "\(other)")
            let again = try await run("a")
            #expect(again.lowercased().contains("already saved"), "\(again)")
            #expect(await handler.depositCount == 1)
        }
    }
}
