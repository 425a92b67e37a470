import DemoData
import DemoServer
import FeedModel
import Foundation
import HTTPTransport
import SourceKit
import StarlingClient

public extension RegisteredSource {
    /// Starling Bank (UK): savings goals, round-ups moved once by `transferUid` (docs/starling.md).
    static let starling = RegisteredSource(
        description: StarlingAPI.source, pictureSchemes: [StarlingAPI.photoScheme],
        open: .bank(BankConnector(
            connect: { request throws(APIError) in
                try await StarlingAPI.connect(baseURL: request.baseURL, token: request.token,
                                              allowInsecureHTTP: request.allowInsecureHTTP, log: request.log)
            },
            offline: { request, directory in
                guard let record = LastBankAccount<Starling.AccountItem>(source: "starling", cacheDirectory: directory, baseURL: request.baseURL).load(),
                      let api = try? StarlingAPI(transport: StarlingAPI.transport(baseURL: request.baseURL, token: request.token,
                                                                                  allowInsecureHTTP: request.allowInsecureHTTP,
                                                                                  log: request.log),
                                                 account: record.account)
                else { return nil }
                return (api, record.header)
            },
            keep: { api, header, directory in
                guard let starling = api as? StarlingAPI else { return }
                LastBankAccount<Starling.AccountItem>(source: "starling", cacheDirectory: directory, baseURL: starling.baseURL)
                    .save(.init(account: starling.primary, header: header))
            })),
        serve: Serving(currency: .gbp, handler: { backend, _ in StarlingDemoAPI(backend: backend) },
                       greeting: { url in
                           ["serving the demo in Starling's API on \(url) (Ctrl-C to stop)",
                            "test token: \(StarlingDemoAPI.testToken)",
                            "try: qapital-tui --source starling --api-url \(url) --token \(StarlingDemoAPI.testToken)"]
                       }),
        examples: [.init("--source starling --sandbox", "Starling's sandbox")])
}
