import DemoData
import DemoServer
import FeedModel
import Foundation
import HTTPTransport
import SourceKit
import UpClient

public extension RegisteredSource {
    /// Up (Australia), read-only: savers as goals, Up's own round-ups, a rate limit (docs/banks.md).
    static let up = RegisteredSource(
        description: UpAPI.source, pictureSchemes: [],
        open: .bank(BankConnector(
            connect: { request throws(APIError) in
                try await UpAPI.connect(baseURL: request.baseURL, token: request.token, allowInsecureHTTP: request.allowInsecureHTTP,
                                        log: request.log, targetAmounts: try upTargets(request), you: request.settings["you"])
            },
            offline: { request, directory in
                guard let record = LastBankAccount<KeptUpAccounts>(source: "up", cacheDirectory: directory, baseURL: request.baseURL).load(),
                      let targets = try? upTargets(request),
                      let api = try? UpAPI(transport: UpAPI.transport(baseURL: request.baseURL, token: request.token,
                                                                      allowInsecureHTTP: request.allowInsecureHTTP, log: request.log),
                                           spending: record.account.spending, accounts: record.account.accounts, targetAmounts: targets,
                                           people: record.account.peopleById, you: request.settings["you"])
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
                       handler: { backend, flags in
                           UpDemoAPI(backend: backend, pageSize: flags.pageSize ?? UpDemoAPI.defaultPageSize,
                                     rateLimit: flags.rateLimit ?? UpDemoAPI.defaultRateLimit)
                       },
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
