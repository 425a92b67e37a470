import BunqSource
import DemoData
import DemoServer
import EnableBankingSource
import FeedModel
import Foundation
import MonzoSource
import QapitalClient
import SimpleFINSource
import SourceKit
import StarlingSource
import UpSource

/// Every data source the app knows, in the order `--help`, the config file and `serve --api`
/// list them. `--source`, `source =` in the config file, the token's environment variables, the
/// sign-in form, the offline cache's file, the saved weeks' identity, `login`, the help's
/// examples and `serve --api` all read this list; nothing else names a source. A bank declares
/// its entry in its own folder (`Banks/NAME/Source`); adding one is its import and its name in
/// `all` (docs/architecture.md, "Recipe: add a data source").
enum SourceRegistry {
    static let builtIn: [RegisteredSource] = [.demo, .qapital, .starling, .monzo, .up, .simplefin, .bunq, .enablebanking]

    /// Sources added for the length of a task, after the built-in ones: how a test shows that a
    /// new entry is all a source needs (`ArchitectureTests.aFakeSourceIsOneEntry`).
    @TaskLocal static var added: [RegisteredSource] = []

    static var all: [RegisteredSource] { builtIn + added }

    static func named(_ name: String) -> RegisteredSource? {
        all.first { $0.name == name.lowercased() }
    }

    /// The sources `login NAME` and `logout NAME` sign in to and out of: their own sign-in steps
    /// (an OAuth client's, a consent at the bank).
    static var withSignIn: [RegisteredSource] { all.filter { $0.bank?.consentSignIn != nil } }

    /// The sources that take no token and sign in only through a consent given at the bank
    /// (`login NAME`): the app opens on that sign-in, not on the token form.
    static var consentOnly: [RegisteredSource] { all.filter { $0.bank?.consentSignIn?.replacesTokenForm == true } }

    /// The sources whose `login NAME` is the customer's own OAuth client beside a token.
    static var withOAuthClient: [RegisteredSource] { withSignIn.filter { $0.bank?.consentSignIn?.replacesTokenForm == false } }

    /// The sources `serve --api` speaks.
    static var served: [RegisteredSource] { all.filter { $0.serve != nil } }

    /// "demo, qapital or starling": for help and refusals.
    static func list(_ sources: [RegisteredSource] = all) -> String {
        orList(sources.map(\.name))
    }
}

extension RegisteredSource {
    static let demo = RegisteredSource(
        description: DemoSavingsAPI.source,
        // The demo's own pictures only: it makes no network request (the bundled achievements get pictures of its own).
        pictureSchemes: [DemoImages.scheme],
        open: .direct { request in (DemoSavingsAPI(backend: DemoBackend(options: .init(currency: request.currency))), nil) },
        serve: nil)

    static let qapital = RegisteredSource(
        description: QapitalHTTPAPI.source, pictureSchemes: ["http", "https"],
        open: .direct { request in
            let api = QapitalHTTPAPI(baseURL: request.baseURL ?? URL(fileURLWithPath: "/"), token: request.token,
                                     accountCurrency: request.currency, allowInsecureHTTP: request.allowInsecureHTTP, log: request.log)
            return (api, api.skippedRecords)
        },
        serve: Serving(currency: .usd, handler: { backend, _ in DemoAPIHandler(backend: backend) },
                       greeting: { url in ["serving the demo API on \(url) (Ctrl-C to stop)"] }))
}
