import DemoData
import DemoServer
import FeedModel
import Foundation
import HTTPTransport
import SourceKit
import MonzoClient

public extension RegisteredSource {
    /// Monzo (UK): pots as goals, deposits once by `dedupe_id`, OAuth through `login monzo` or `L` (docs/banks.md).
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
        }, oauth: MonzoOAuthFlow.support, consentSignIn: .oauth(MonzoOAuthFlow.support, source: MonzoAPI.source))),
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
        }),
        examples: [.init("login monzo", "sign in with your own Monzo OAuth client")])
}

/// Monzo's OAuth as `login monzo` and a refresh use it: a pair's lifetime becomes its expiry.
struct MonzoOAuthFlow: OAuthFlow {
    /// The flow made from the config file's client: `login monzo`, the app's `L` and each refresh.
    static let support = OAuthSupport { apiURL, clientId, secret, allowInsecureHTTP, log in
        MonzoOAuthFlow(oauth: MonzoOAuth(clientId: clientId, clientSecret: secret, apiURL: apiURL,
                                         allowInsecureHTTP: allowInsecureHTTP, log: log))
    }

    let oauth: MonzoOAuth
    var now: @Sendable () -> Date = { Date() }

    func authorizationURL(redirectURI: String, state: String) async throws(APIError) -> URL {
        oauth.authorizationURL(redirectURI: redirectURI, state: state)
    }

    func exchange(code: String, redirectURI: String) async throws(APIError) -> OAuthTokenPair {
        pair(try await oauth.exchange(code: code, redirectURI: redirectURI))
    }

    func refresh(_ refreshToken: String) async throws(APIError) -> OAuthTokenPair {
        pair(try await oauth.refresh(refreshToken))
    }

    private func pair(_ answer: Monzo.TokenPair) -> OAuthTokenPair {
        OAuthTokenPair(accessToken: answer.accessToken, refreshToken: answer.refreshToken,
                             expiresAt: answer.expiresIn.map { now().addingTimeInterval(TimeInterval(max(0, $0))) })
    }
}
