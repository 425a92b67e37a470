import BunqClient
import DemoData
import DemoServer
import FeedModel
import Foundation
import HTTPTransport
import SourceKit

public extension RegisteredSource {
    /// bunq (NL, EUR): savings accounts as goals, round-ups moved once by a marked payment over
    /// bunq's signed API (docs/banks.md, "bunq").
    static let bunq = RegisteredSource(
        description: BunqAPI.source, pictureSchemes: [],
        open: .bank(BankConnector(connect: { request throws(APIError) in
            try await BunqAPI.connect(baseURL: request.baseURL, apiKey: request.token, contextDirectory: BunqContextFile.defaultDirectory(),
                                      mainAccount: request.settings["main-account"], allowInsecureHTTP: request.allowInsecureHTTP,
                                      log: request.log)
        }, offline: { request, directory in
            guard let record = LastBankAccount<KeptBunqAccount>(source: "bunq", cacheDirectory: directory, baseURL: request.baseURL).load(),
                  let api = BunqAPI.offline(baseURL: request.baseURL, apiKey: request.token, contextDirectory: BunqContextFile.defaultDirectory(),
                                            userId: record.account.userId, main: record.account.main,
                                            allowInsecureHTTP: request.allowInsecureHTTP, log: request.log)
            else { return nil }
            return (api, record.header)
        }, keep: { api, header, directory in
            guard let bunq = api as? BunqAPI else { return }
            LastBankAccount<KeptBunqAccount>(source: "bunq", cacheDirectory: directory, baseURL: bunq.baseURL)
                .save(.init(account: KeptBunqAccount(userId: bunq.userId, main: bunq.main), header: header))
        })),
        serve: Serving(currency: .eur, handler: { backend, flags in
            var options = BunqDemoAPI.Options()
            if let seconds = flags.sessionTimeout { options.sessionTimeout = max(1, Int(seconds)) }
            if flags.rateLimit == 0 { options.rateLimits = false }
            options.losePaymentAnswer = flags.faults.contains("lose-payment-answer")
            options.badSignature = flags.faults.contains("bad-signature")
            if let api = try? BunqDemoAPI(backend: backend, options: options) { return api }
            return BunqUnavailable()
        }, greeting: { url in
            ["serving the demo in bunq's API on \(url)/v1 (Ctrl-C to stop)",
             "test key: \(BunqDemoAPI.testKey)",
             "faults (--fault NAME): \(BunqDemoAPI.faultNames.joined(separator: ", ")); --session-timeout S; --rate-limit 0 turns bunq's limits off",
             "try: BUNQ_API_KEY=\(BunqDemoAPI.testKey) qapital-tui --source bunq --api-url \(url)/v1"]
        }),
        examples: [.init("--source bunq --sandbox", "bunq's sandbox (a sandbox_ API key)")])
}

/// What `serve --api bunq` answers when no RSA key could be made at start.
struct BunqUnavailable: ServeHandler {
    func handle(_ request: ServeRequest) async -> ServeResponse { .error(500, "the look-alike could not make its RSA key") }
}

/// What a bunq start needs without asking bunq: the user and the main account (no key, no token).
struct KeptBunqAccount: Codable, Sendable {
    var userId: Int
    var main: Bunq.MonetaryAccount
}
