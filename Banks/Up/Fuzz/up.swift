import FeedModel
import Foundation
import UpClient

// libFuzzer entry: any bytes as every Up answer the app decodes (UpClient's JSON:API payloads),
// then, for what decoded, the mapping into the model and every sum the screens draw: amounts at
// Int64's ends, `value` disagreeing with `valueInBaseUnits`, codes that are not ISO 4217 must be
// skipped and named there, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUp(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let skipped = SkippedRecords()
    let aud = Currency(code: "AUD")
    let decoder = PayloadDecoder(accountCurrency: aud, skipped: skipped)
    if let page = try? decoder.decode(Up.ListDocument<Up.AccountResource>.self, from: data, resource: "GET /accounts") {
        let goals = skipped.mapEach(page.data, resource: "savers", name: { $0.id }) { saver throws(MalformedPayload) in
            try UpMapping.goal(saver, targets: ["x": Money(minorUnits: 100, currency: aud)])
        }
        _ = goals.map { $0.progress }
        _ = page.links?.next.flatMap(URL.init(string:))
    }
    _ = try? decoder.decode(Up.SingleDocument<Up.AccountResource>.self, from: data, resource: "GET /accounts/{id}")
    if let page = try? decoder.decode(Up.ListDocument<Up.TransactionResource>.self, from: data, resource: "GET transactions") {
        mapAndSum(page.data, skipped, currency: aud)
    }
    _ = try? decoder.decode(Up.Ping.self, from: data, resource: "GET /util/ping")
    _ = Up.serverMessage(data)
    _ = UpAPI.targetAmounts(String(decoding: data.prefix(4096), as: UTF8.self))
    _ = skipped.drain()
    return 0
}

/// The feed as each screen reads it: activities (joint and not), payments with Up's round-ups,
/// a saver's feed, twelve weeks of round-ups and the sums.
private func mapAndSum(_ items: [Up.TransactionResource], _ skipped: SkippedRecords, currency: Currency) {
    let name = { (item: Up.TransactionResource) in item.id }
    let savers = ["s": "Saver"]
    let activities = skipped.mapEach(items, resource: "activities", name: name) { item throws(MalformedPayload) in
        try UpMapping.activity(item, savers: savers, joint: true)
    }
    let transactions = skipped.mapEach(items, resource: "transactions", name: name, UpMapping.transaction)
    let feed = skipped.mapEach(items, resource: "saver feed", name: name) { item throws(MalformedPayload) in
        try UpMapping.goalFeedItem(item, accounts: savers, joint: false)
    }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    _ = RoundUp.Summary(transactions: transactions, accountCurrency: currency).saveable
    _ = RoundUp.weeklyTotals(transactions, accountCurrency: currency, calendar: calendar, weeks: 12, through: now)
    _ = Money.sum(feed.map(\.amount.minorUnits))
    _ = activities.compactMap { $0.saved?.minorUnits }.reduce(0, Money.add)
    _ = activities.map { $0.message.plainText + $0.amount.formatted }
}
