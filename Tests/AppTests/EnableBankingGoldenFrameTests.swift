import DemoData
import DemoServer
import EnableBankingClient
import EnableBankingSource
import FeedModel
import Foundation
import HTTPTransport
@testable import QapitalApp
import SourceKit
import TermUI
import Testing
import TestSupport

/// Enable Banking's screens as whole frames (`GoldenFrameTests`' files and helper): Goals from
/// `[enablebanking] goals` with the consent's days left in the header, Activity (accounts merged,
/// pending marked, a JPY card), and Goals after the consent ended (what is kept, marked, with
/// the way out), on `serve --api enablebanking`'s data at the fixed clock, UTC, 80×24 and 120×40.
@MainActor
@Suite(.timeLimit(.minutes(2))) struct EnableBankingGoldenFrameTests {
    struct Frame: Sendable, CustomTestStringConvertible {
        let name: String
        let keys: [Key]
        /// Days between the sign-in and the frame's clock.
        let signedInDaysAgo: Double
        var testDescription: String { name }
    }

    nonisolated static let frames: [Frame] = [
        Frame(name: "enablebanking-goals", keys: [], signedInDaysAgo: 3),
        Frame(name: "enablebanking-activity", keys: [.char("2")], signedInDaysAgo: 3),
        Frame(name: "enablebanking-consent-ended", keys: [], signedInDaysAgo: 91),
    ]

    @Test(arguments: frames) func frame(_ frame: Frame) async throws {
        let signedIn = fixedNow.addingTimeInterval(-frame.signedInDaysAgo * 86_400)
        let clock = Locked(signedIn)
        let key = try EnableBankingKey.generate()
        let applicationId = "0377783c-3414-4bb1-a7d4-0c3eb54cd4b0"
        // In euros, as `serve --api enablebanking` serves them (the demo's own default is dollars).
        let backend = DemoBackend(now: signedIn, options: .init(currency: .eur))
        let server = try DemoHTTPServer(handler: try EnableBankingDemoAPI(backend: backend, publicKeyPEM: key.publicKeyPEM,
                                                                          applicationId: applicationId, clock: { clock.withLock { $0 } }))
        try await server.start()
        let base = await server.baseURL
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("enablebanking-golden-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["XDG_CONFIG_HOME": folder.path + "/config", "XDG_CACHE_HOME": folder.path + "/cache", "HOME": folder.path]
        let keyPath = folder.appendingPathComponent("app.pem")
        #expect(EnableBankingFiles.writePrivate(Data(key.privateKeyPEM.utf8), to: keyPath))
        // The sign-in, as login makes it.
        let sessionFile = EnableBankingSessionFile(fileURL: EnableBankingSessionFile.defaultFile(environment: environment))
        let client = EnableBankingClient(baseURL: base, signer: EnableBankingSigner(key: key, applicationId: applicationId,
                                                                                    now: { clock.withLock { $0 } }))
        let signIn = EnableBankingSignIn(client: client, applicationId: applicationId, sessionFile: sessionFile, now: { clock.withLock { $0 } })
        let state = EnableBankingSignIn.newState()
        let page = try await signIn.start(aspsp: EnableBankingDemoAPI.bankName, country: "FI", psuType: "personal",
                                          redirectURL: "http://127.0.0.1:8765/callback", days: 90, state: state)
        let back = try await HTTPTransport(baseURL: base, token: nil, followsRedirects: false).answer("GET", absolute: page, label: "page")
        guard case .code(let code) = EnableBankingSignIn.callback(try #require(back.header("Location")), state: state) else {
            Issue.record("no code")
            return
        }
        _ = try await signIn.finish(code: code, aspsp: EnableBankingDemoAPI.bankName, country: "FI")
        let names = await backend.goals().filter { $0.status == .active }.prefix(2).map(\.name)
        var request = BankRequest(baseURL: base, token: EnableBankingStart.keptMarker, allowInsecureHTTP: false, log: nil,
                                  settings: ["application-id": applicationId, "key-file": keyPath.path, "goals": names.joined(separator: "; "),
                                             "goal-targets": "\(names[0]) = 600"])
        request.cacheDirectory = folder.appendingPathComponent("cache")
        request.cacheDirectoryGiven = true
        let utc = TimeZone(identifier: "UTC")!
        // The first read at the sign-in, then the frame's clock.
        _ = try await EnableBankingStart.connect(request, environment: environment, timeZone: utc, now: { clock.withLock { $0 } })
        clock.withLock { $0 = fixedNow }
        let api = try await EnableBankingStart.connect(request, environment: environment, timeZone: utc, now: { fixedNow })
        let header = try await api.account()?.summary ?? api.sourceName
        for size in GoldenFrameTests.sizes {
            var configuration = AppCore.Configuration(sourceName: header, colors: true, timeZone: utc, currency: api.accountCurrency, images: false)
            configuration.noGoalCreation = EnableBankingAPI.source.noGoalCreation
            configuration.noMoneyMoves = EnableBankingAPI.source.noMoneyMoves
            var capabilities = AppCore.Capabilities(skippedRecords: api.skippedRecords)
            capabilities.sourceNote = { api.statusNote }
            let core = AppCore(api: api, configuration: configuration, capabilities: capabilities, now: { fixedNow })
            let app = AppHarness(core: core, width: size.width, height: size.height)
            _ = await app.start()
            for key in frame.keys { await app.press(key) }
            let text = try GoldenFile.render(app.terminal.screen, title: "\(frame.name) on serve --api enablebanking")
            GoldenFile.check(text, name: "\(frame.name)-\(size.width)x\(size.height)")
        }
        await server.stop()
    }
}
