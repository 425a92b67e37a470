import BunqClient
import FeedModel
import Foundation

// libFuzzer entry: any bytes as every bunq answer the app decodes (the `Response` envelope with
// users, monetary accounts and payments, the `Error` body), then, for what decoded, the mapping
// into the model and every sum the screens draw: amounts that are not decimals, times that are
// not bunq's, unknown types must be skipped and named there, never trap. Signatures are checked
// before decoding in the app; the harness feeds the decoder directly.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBunq(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let skipped = SkippedRecords()
    let decoder = PayloadDecoder(accountCurrency: .eur, skipped: skipped)
    if let envelope = try? decoder.decode(Bunq.Envelope.self, from: data, resource: "GET /v1/user/1/monetary-account") {
        let holder = envelope.user.map { _ in "Holder" }
        let goals = skipped.mapEach(envelope.accounts, resource: "monetary accounts", name: { _ in "account" }) { account throws(MalformedPayload) in
            try BunqMapping.goal(account, people: [:], holder: holder)
        }
        _ = goals.map { ($0.progress, $0.balance.formatted) }
        _ = envelope.accounts.map { BunqMapping.coOwners($0, holder: holder) }
        mapAndSum(envelope.payments, skipped)
        _ = (envelope.ids, envelope.token != nil, envelope.serverPublicKey, envelope.unreadable.count)
    }
    _ = (try? JSONDecoder().decode(Bunq.ErrorBody.self, from: data))?.text
    let text = String(decoding: data.prefix(64), as: UTF8.self)
    _ = Bunq.parseTime(text)
    _ = Bunq.Amount.parse(text, currency: .eur)
    _ = BunqMapping.tint(color: text)
    _ = skipped.drain()
    return 0
}

/// The feed as each screen reads it: activities, payments and their round-ups, a goal's feed,
/// twelve weeks of round-ups and the sums.
private func mapAndSum(_ payments: [Bunq.Payment], _ skipped: SkippedRecords) {
    let name = { (payment: Bunq.Payment) in String(payment.id) }
    let activities = skipped.mapEach(payments, resource: "activities", name: name) { payment throws(MalformedPayload) in
        try BunqMapping.activity(payment, savings: ["NL00BUNQ0000000001": GoalID(1)], currency: .eur)
    }
    let transactions = skipped.mapEach(payments, resource: "transactions", name: name, BunqMapping.transaction)
    let feed = skipped.mapEach(payments, resource: "goal feed", name: name, BunqMapping.feedItem)
    _ = payments.map { (BunqRoundUp.roundsUp($0), BunqRoundUp.isAutoSave($0), BunqMapping.counterparty($0)) }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    _ = RoundUp.Summary(transactions: transactions, accountCurrency: .eur).saveable
    _ = RoundUp.weeklyTotals(transactions, accountCurrency: .eur, calendar: calendar, weeks: 12, through: now)
    _ = Money.sum(feed.map(\.amount.minorUnits))
    _ = activities.compactMap { $0.saved?.minorUnits }.reduce(0, Money.add)
    _ = activities.map { $0.message.plainText + $0.amount.formatted }
}
