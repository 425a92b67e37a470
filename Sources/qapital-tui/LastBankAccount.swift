import FeedCache
import FeedModel
import Foundation
import MonzoClient
import StarlingClient
import UpClient

/// The account last opened on a bank's base URL, kept beside the offline cache (no token in
/// it), so that the app can start when the bank cannot be reached: the cache file is chosen by
/// the account, which otherwise only the bank could name. One file per source and base URL:
/// `starling-account-<name>.json`, `monzo-account-<name>.json`, `up-account-<name>.json`.
struct LastBankAccount<Kept: Codable & Sendable> {
    struct Record: Codable {
        var account: Kept
        /// The header as it was ("Mikael · 60-83-71 12345678 · £9,111.60").
        var header: String
    }

    let fileURL: URL

    init(source: String, cacheDirectory: URL, baseURL: URL) {
        let name = SQLiteCache.fileName(for: baseURL).replacingOccurrences(of: ".sqlite", with: "")
        fileURL = cacheDirectory.appendingPathComponent("\(source)-account-\(name).json")
    }

    func load() -> Record? {
        guard let data = try? Data(contentsOf: fileURL) else { return nil }
        return try? JSONDecoder().decode(Record.self, from: data)
    }

    /// Best effort: without it the app only cannot start offline.
    func save(_ record: Record) {
        guard let data = try? JSONEncoder().encode(record) else { return }
        try? CacheFiles.preparePrivateDirectory(fileURL.deletingLastPathComponent())
        try? data.write(to: fileURL, options: .atomic)
        CacheFiles.makePrivate(fileURL)
    }
}

typealias LastStarlingAccount = LastBankAccount<Starling.AccountItem>

extension LastBankAccount where Kept == Starling.AccountItem {
    init(cacheDirectory: URL, baseURL: URL) {
        self.init(source: "starling", cacheDirectory: cacheDirectory, baseURL: baseURL)
    }
}

/// What a Monzo start needs of the account without asking Monzo: the account and its currency.
struct KeptMonzoAccount: Codable, Sendable {
    var id: String
    var description: String?
    var createdAt: Date?
    var currency: String
    var owner: String?
    var sortCode: String?
    var accountNumber: String?

    init(_ api: MonzoAPI) {
        id = api.account.id
        description = api.account.description
        createdAt = api.account.created
        currency = api.accountCurrency.code
        owner = api.account.owners?.compactMap(\.preferredName).first
        sortCode = api.account.sortCode
        accountNumber = api.account.accountNumber
    }

    var account: Monzo.Account {
        Monzo.Account(id: id, description: description, created: createdAt, currency: currency,
                      owners: owner.map { [Monzo.Owner(userId: nil, preferredName: $0)] }, accountNumber: accountNumber, sortCode: sortCode)
    }
}

/// What an Up start needs without asking Up: the spending account, the savers' and other
/// accounts' names by id ("Saved into Holiday" offline too), and the display names of the people
/// on a joint account (who paid, offline too; a file of an older version has none).
struct KeptUpAccounts: Codable, Sendable {
    var spending: Up.AccountResource
    var accounts: [Up.AccountResource]
    var people: [Person]?

    struct Person: Codable, Sendable {
        var id: Int
        var name: String
    }

    init(spending: Up.AccountResource, accounts: [Up.AccountResource], people: [Int: String] = [:]) {
        self.spending = spending
        self.accounts = accounts
        self.people = people.sorted { $0.key < $1.key }.map { Person(id: $0.key, name: $0.value) }
    }

    var peopleById: [Int: String] {
        Dictionary((people ?? []).map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
    }
}
