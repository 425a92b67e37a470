import FeedModel
import Foundation
import UpClient

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
