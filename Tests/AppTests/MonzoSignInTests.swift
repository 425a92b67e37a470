@testable import DemoServer
@testable import DemoData
import FeedModel
import Foundation
@testable import MonzoSource
import Testing
import TestSupport

extension BlockingTests {
    /// The real binary on `serve --api monzo --sca-pending`: the token waits for approval in the
    /// app; the sign-in form says so with the token kept (bullets), and Enter after the approval
    /// opens the app on the pots; `a` says pots cannot be created. The token is never shown.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct MonzoSignInTests {
        static let token = MonzoDemoAPI.testToken

        @Test func approvalPendingThenEnterOpensTheApp() async throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("monzo-signin-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let environment = ["XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                               "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
                               "MONZO_TOKEN": Self.token, "QAPITAL_TOKEN": "", "QAPITAL_SOURCE": ""]
            let handler = MonzoDemoAPI(backend: DemoBackend(now: Date(), options: .init(currency: .gbp)), options: .init(scaPending: true))
            try await withMonzoServer(handler) { url in
                let terminal = try TerminalSession(arguments: ["--source", "monzo", "--api-url", url.absoluteString], environment: environment)
                #expect(terminal.read(until: { $0.contains("Monzo") && $0.contains("approve this sign-in in the Monzo app") }))
                #expect(terminal.text.contains("GET /ping/whoami"))
                #expect(await handler.approve(Self.token))
                terminal.send("\r")
                #expect(terminal.read(until: { $0.contains("Balloons") && $0.contains("with pots") }))
                terminal.send("a")
                #expect(terminal.read(until: { $0.contains("Monzo's API cannot") }))
                terminal.send("q")
                #expect(terminal.waitForExit() == 0)
                #expect(!terminal.text.contains(Self.token))
            }
        }
    }
}
