import DemoData
import DemoServer
import FeedModel
import Foundation
import HTTPTransport
import MonzoClient
import QapitalClient
import StarlingClient
import UpClient

/// Every data source the app knows, in the order `--help`, the config file and `serve --api`
/// list them. `--source`, `source =` in the config file, the token's environment variables, the
/// sign-in form, the offline cache's file, the saved weeks' identity and `serve --api` all read
/// this list; nothing else names a source. Adding one: its target (with its `SourceDescription`),
/// an entry below, and its line in `all` (docs/architecture.md, "Recipe: add a data source").
enum SourceRegistry {
    static let all: [RegisteredSource] = [.demo, .qapital, .starling, .monzo, .up]

    static func named(_ name: String) -> RegisteredSource? {
        all.first { $0.name == name.lowercased() }
    }

    /// The sources `login NAME` signs in to (OAuth with the customer's own client).
    static var withOAuth: [RegisteredSource] { all.filter { $0.bank?.oauth != nil } }

    /// The sources `serve --api` speaks.
    static var served: [RegisteredSource] { all.filter { $0.serve != nil } }

    /// "demo, qapital or starling": for help and refusals.
    static func list(_ sources: [RegisteredSource] = all) -> String {
        let names = sources.map(\.name)
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }
}

/// One source as the executable knows it: its description (declared by its own target), the
/// schemes its pictures come from, how the app opens it, and how `serve` speaks it.
struct RegisteredSource: Sendable {
    let description: SourceDescription
    /// The URL schemes whose pictures the app fetches for this source.
    let pictureSchemes: Set<String>
    let open: Opening
    /// `serve --api NAME`; nil when the source is not served (the demo runs in process).
    let serve: Serving?

    var name: String { description.name }

    enum Opening: Sendable {
        /// Made from the settings at once, no token checked (the demo, the Qapital API): the API
        /// and where it notes the records it skipped.
        case direct(@Sendable (DirectRequest) -> (api: any SavingsAPI, skipped: SkippedRecords?))
        /// A bank: the token is checked and the account chosen before the app opens.
        case bank(BankConnector)
    }

    var bank: BankConnector? {
        if case .bank(let connector) = open { return connector }
        return nil
    }
}

/// What a source made at once is made from.
struct DirectRequest: Sendable {
    var baseURL: URL?
    var token: String?
    var currency: Currency
    var allowInsecureHTTP: Bool
    var log: RequestLog?
}

/// What a bank is opened with: where, the token, the run's request log, and the config file's
/// `[NAME]` table.
struct BankRequest: Sendable {
    var baseURL: URL
    var token: String
    var allowInsecureHTTP: Bool
    var log: RequestLog?
    var settings: [String: String] = [:]
    /// For a token from an OAuth pair: a fresh token when the bank refuses this one (401).
    var refresh: (@Sendable (String?) async -> String?)?
}

/// How a bank is opened.
struct BankConnector: Sendable {
    /// Checks the token with the bank and picks the account; a refusal is `.unauthorized`.
    let connect: @Sendable (BankRequest) async throws(APIError) -> any BankAPI
    /// The account the last run opened, for starting while the bank cannot be reached (nil: no
    /// offline start for this bank); `keep` writes what it needs after each connection.
    var offline: (@Sendable (BankRequest, _ cacheDirectory: URL) -> (api: any BankAPI, header: String)?)?
    var keep: (@Sendable (any BankAPI, _ header: String, _ cacheDirectory: URL) -> Void)?
    /// `login NAME` and refreshing its token pair (nil: tokens only).
    var oauth: OAuthSupport?
}

/// `serve --api NAME`: the demo dataset in the source's shapes.
struct Serving: Sendable {
    /// The demo's currency unless `serve --currency` says otherwise.
    let currency: Currency
    let handler: @Sendable (DemoBackend, ServeFlags) -> any ServeHandler
    /// What `serve` prints once it listens at `baseURL` (a test token, how to try it).
    let greeting: @Sendable (_ baseURL: String) -> [String]
}

/// The `serve` flags a source's handler may read.
struct ServeFlags: Sendable {
    /// `--history-minutes`: how long after a sign-in the whole history is served (Monzo's
    /// 90-day edge; nil: the bank's own 5 minutes).
    var historyMinutes: Double?
    /// `--sca-pending`: new tokens wait for the customer's approval in the app (strong customer
    /// authentication) until `POST /test/approve` is sent with them.
    var scaPending = false
    /// `--sca-after`: after N requests a token's approval lapses once (Monzo asking again mid-session).
    var scaAfter: Int?
    /// `--page-size`: records a page at most, for an API that pages (Up's `links.next`).
    var pageSize = UpDemoAPI.defaultPageSize
    /// `--rate-limit`: requests an hour before each answer is 429 (Up).
    var rateLimit = UpDemoAPI.defaultRateLimit
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

    static let starling = RegisteredSource(
        description: StarlingAPI.source, pictureSchemes: [StarlingAPI.photoScheme],
        open: .bank(BankConnector(
            connect: { request throws(APIError) in
                try await StarlingAPI.connect(baseURL: request.baseURL, token: request.token,
                                              allowInsecureHTTP: request.allowInsecureHTTP, log: request.log)
            },
            offline: { request, directory in
                guard let record = LastStarlingAccount(cacheDirectory: directory, baseURL: request.baseURL).load(),
                      let api = try? StarlingAPI(transport: StarlingAPI.transport(baseURL: request.baseURL, token: request.token,
                                                                                  allowInsecureHTTP: request.allowInsecureHTTP,
                                                                                  log: request.log),
                                                 account: record.account)
                else { return nil }
                return (api, record.header)
            },
            keep: { api, header, directory in
                guard let starling = api as? StarlingAPI else { return }
                LastStarlingAccount(cacheDirectory: directory, baseURL: starling.baseURL)
                    .save(.init(account: starling.primary, header: header))
            })),
        serve: Serving(currency: .gbp, handler: { backend, _ in StarlingDemoAPI(backend: backend) },
                       greeting: { url in
                           ["serving the demo in Starling's API on \(url) (Ctrl-C to stop)",
                            "test token: \(StarlingDemoAPI.testToken)",
                            "try: qapital-tui --source starling --api-url \(url) --token \(StarlingDemoAPI.testToken)"]
                       }))

    static let monzo = RegisteredSource(
        description: MonzoAPI.source, pictureSchemes: [],
        open: .bank(BankConnector(connect: { request throws(APIError) in
            try await MonzoAPI.connect(baseURL: request.baseURL, token: request.token, allowInsecureHTTP: request.allowInsecureHTTP,
                                       log: request.log, refresh: request.refresh)
        }, offline: { request, directory in
            guard let record = LastBankAccount<KeptMonzoAccount>(source: "monzo", cacheDirectory: directory, baseURL: request.baseURL).load(),
                  let currency = Currency.from(code: record.account.currency) else { return nil }
            let transport = MonzoAPI.transport(baseURL: request.baseURL, token: request.token,
                                               allowInsecureHTTP: request.allowInsecureHTTP, log: request.log, refresh: request.refresh)
            return (MonzoAPI(transport: transport, account: record.account.account, currency: currency), record.header)
        }, keep: { api, header, directory in
            guard let monzo = api as? MonzoAPI else { return }
            LastBankAccount<KeptMonzoAccount>(source: "monzo", cacheDirectory: directory, baseURL: monzo.baseURL)
                .save(.init(account: KeptMonzoAccount(monzo), header: header))
        }, oauth: OAuthSupport { apiURL, clientId, secret, allowInsecureHTTP, log in
            MonzoOAuthFlow(oauth: MonzoOAuth(clientId: clientId, clientSecret: secret, apiURL: apiURL,
                                             allowInsecureHTTP: allowInsecureHTTP, log: log))
        })),
        serve: Serving(currency: .gbp, handler: { backend, flags in
            var options = MonzoDemoAPI.Options(scaPending: flags.scaPending, approvalLapsesAfter: flags.scaAfter)
            if let minutes = flags.historyMinutes { options.historyWindow = minutes * 60 }
            return MonzoDemoAPI(backend: backend, options: options)
        }, greeting: { url in
            ["serving the demo in Monzo's API on \(url) (Ctrl-C to stop)",
             "test token: \(MonzoDemoAPI.testToken)",
             "OAuth client for `qapital-tui login monzo` (config file [monzo]): client-id = \"\(MonzoDemoAPI.clientId)\", "
                + "client-secret = \"\(MonzoDemoAPI.clientSecret)\"",
             "try: qapital-tui --source monzo --api-url \(url) --token \(MonzoDemoAPI.testToken)"]
        }))
}

/// Monzo's OAuth as `login monzo` and a refresh use it: a pair's lifetime becomes its expiry.
struct MonzoOAuthFlow: OAuthFlow {
    let oauth: MonzoOAuth
    var now: @Sendable () -> Date = { Date() }

    func authorizationURL(redirectURI: String, state: String) -> URL {
        oauth.authorizationURL(redirectURI: redirectURI, state: state)
    }

    func exchange(code: String, redirectURI: String) async throws(APIError) -> OAuthTokenPairs.Pair {
        pair(try await oauth.exchange(code: code, redirectURI: redirectURI))
    }

    func refresh(_ refreshToken: String) async throws(APIError) -> OAuthTokenPairs.Pair {
        pair(try await oauth.refresh(refreshToken))
    }

    private func pair(_ answer: Monzo.TokenPair) -> OAuthTokenPairs.Pair {
        OAuthTokenPairs.Pair(accessToken: answer.accessToken, refreshToken: answer.refreshToken,
                             expiresAt: answer.expiresIn.map { now().addingTimeInterval(TimeInterval(max(0, $0))) })
    }
}

extension RegisteredSource {
    /// Up (Australia), read-only: savers as goals, Up's own round-ups, a rate limit (docs/banks.md).
    static let up = RegisteredSource(
        description: UpAPI.source, pictureSchemes: [],
        open: .bank(BankConnector(
            connect: { request throws(APIError) in
                try await UpAPI.connect(baseURL: request.baseURL, token: request.token, allowInsecureHTTP: request.allowInsecureHTTP,
                                        log: request.log, targetAmounts: try upTargets(request))
            },
            offline: { request, directory in
                guard let record = LastBankAccount<KeptUpAccounts>(source: "up", cacheDirectory: directory, baseURL: request.baseURL).load(),
                      let targets = try? upTargets(request),
                      let api = try? UpAPI(transport: UpAPI.transport(baseURL: request.baseURL, token: request.token,
                                                                      allowInsecureHTTP: request.allowInsecureHTTP, log: request.log),
                                           spending: record.account.spending, accounts: record.account.accounts, targetAmounts: targets,
                                           people: record.account.peopleById)
                else { return nil }
                return (api, record.header)
            },
            keep: { api, header, directory in
                guard let up = api as? UpAPI else { return }
                let file = LastBankAccount<KeptUpAccounts>(source: "up", cacheDirectory: directory, baseURL: up.baseURL)
                let save = { @Sendable (people: [Int: String]) in
                    file.save(.init(account: KeptUpAccounts(spending: up.spending, accounts: up.knownAccounts, people: people), header: header))
                }
                save(up.knownPeople)
                // People on a joint account are met as their payments arrive: kept as they are met.
                up.whenPeopleChange(save)
            })),
        serve: Serving(currency: Currency(code: "AUD"),
                       handler: { backend, flags in UpDemoAPI(backend: backend, pageSize: flags.pageSize, rateLimit: flags.rateLimit) },
                       greeting: { url in
                           let base = url + UpDemoAPI.basePath
                           return ["serving the demo in Up's API on \(base) (Ctrl-C to stop)",
                                   "test token: \(UpDemoAPI.testToken)",
                                   "try: qapital-tui --source up --api-url \(base) --token \(UpDemoAPI.testToken)"]
                       }))

    /// The config file's `[up] saver-targets`, read; a malformed value is one line.
    private static func upTargets(_ request: BankRequest) throws(APIError) -> [String: Decimal] {
        guard let text = request.settings["saver-targets"] else { return [:] }
        switch UpAPI.targetAmounts(text) {
        case .success(let parsed): return parsed
        case .failure(let problem):
            throw APIError(kind: .rejected, request: "config", message: "config file, [up] saver-targets: \(problem.reason)")
        }
    }
}
