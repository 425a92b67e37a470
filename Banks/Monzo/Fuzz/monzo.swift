import FeedModel
import Foundation
import MonzoClient

// libFuzzer entry: any bytes as every Monzo answer the app decodes (payloads of MonzoClient),
// then, for what decoded, the mapping into the model and the sums the screens draw: amounts at
// Int64's ends must be skipped and named there, never trap. Adding a resource is one line here.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMonzo(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let skipped = SkippedRecords()
    let decoder = PayloadDecoder(accountCurrency: .gbp, skipped: skipped)
    _ = try? decoder.decode(Monzo.WhoAmI.self, from: data, resource: "GET /ping/whoami")
    if let list = try? decoder.decode(Monzo.AccountList.self, from: data, resource: "GET /accounts") {
        for account in list.accounts ?? [] {
            _ = Account(id: account.id, name: account.description ?? "", currency: .gbp, createdAt: account.created ?? .distantPast,
                        holder: account.owners?.first?.preferredName, sortCode: account.sortCode.map(Account.formatSortCode),
                        accountNumber: account.accountNumber).summary
        }
    }
    if let balance = try? decoder.decode(Monzo.Balance.self, from: data, resource: "GET /balance") {
        if let available = Money(bounded: balance.balance, currency: .gbp) {
            let total = balance.totalBalance.flatMap { Money(bounded: $0, currency: .gbp) }
            _ = Account(id: "a", name: "a", currency: .gbp, createdAt: .distantPast, effectiveBalance: available, totalBalance: total).summary
        }
    }
    if let list = try? decoder.decode(Monzo.PotList.self, from: data, resource: "GET /pots") {
        let goals = skipped.mapEach(list.pots ?? [], resource: "pots", name: { $0.id }, MonzoMapping.goal)
        _ = Money.sum(goals.map(\.balance.minorUnits))
        _ = goals.map { $0.progress }
    }
    if let pot = try? decoder.decode(Monzo.Pot.self, from: data, resource: "PUT /pots/…/deposit") {
        _ = try? MonzoMapping.goal(pot)
    }
    if let list = try? decoder.decode(Monzo.TransactionList.self, from: data, resource: "GET /transactions") {
        let transactions = list.transactions ?? []
        let name = { (transaction: Monzo.Transaction) in transaction.id }
        let activities = skipped.mapEach(transactions, resource: "activities", name: name) { transaction throws(MalformedPayload) in
            try MonzoMapping.activity(transaction)
        }
        let payments = skipped.mapEach(transactions, resource: "transactions", name: name, MonzoMapping.transaction)
        let feed = skipped.mapEach(transactions, resource: "pot feed", name: name, MonzoMapping.potFeedItem)
        _ = RoundUp.Summary(transactions: payments, accountCurrency: .gbp).saveable
        _ = Money.sum(feed.map(\.amount.minorUnits))
        _ = activities.map { $0.amount.formatted + $0.message.plainText }
    }
    _ = try? decoder.decode(Monzo.TokenPair.self, from: data, resource: "POST /oauth2/token")
    _ = Monzo.serverMessage(data)
    _ = Monzo.parseDate(String(decoding: data.prefix(80), as: UTF8.self))
    _ = skipped.drain()
    return 0
}
