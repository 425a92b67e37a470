import FeedModel
import Foundation

/// The bank account as the cache keeps it (the header's holder, numbers and balance): amounts
/// as minor units with their currency's code, so nothing is rounded on the way.
struct KeptAccount: Codable, Sendable {
    var id: String
    var name: String
    var currency: String
    var createdAt: Double
    var holder: String?
    var sortCode: String?
    var accountNumber: String?
    var effectiveBalance: Int64?
    var totalBalance: Int64?

    init(_ account: Account) {
        id = account.id
        name = account.name
        currency = account.currency.code
        createdAt = account.createdAt.timeIntervalSince1970
        holder = account.holder
        sortCode = account.sortCode
        accountNumber = account.accountNumber
        effectiveBalance = account.effectiveBalance?.minorUnits
        totalBalance = account.totalBalance?.minorUnits
    }

    /// Nil when what was kept does not read (a currency this version does not know).
    var account: Account? {
        guard let currency = Currency.from(code: currency) else { return nil }
        return Account(id: id, name: name, currency: currency, createdAt: Date(timeIntervalSince1970: createdAt), holder: holder,
                       sortCode: sortCode, accountNumber: accountNumber,
                       effectiveBalance: effectiveBalance.map { Money(minorUnits: $0, currency: currency) },
                       totalBalance: totalBalance.map { Money(minorUnits: $0, currency: currency) })
    }
}
