import FeedModel
import Foundation
import MonzoClient

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
