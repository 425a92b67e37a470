import FeedModel
import Foundation
import SimpleFINClient

// libFuzzer entry: any bytes as a SimpleFIN Account Set (v1 or v2), a setup token, an access
// URL or a claim answer; for what decoded, the store's merge and every mapping the screens
// read (goals, header, activity, a goal's feed, round-ups and their sums): unreadable amounts,
// custom currencies, ids repeated, `posted: 0` must be shown or skipped, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSimpleFIN(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let text = String(decoding: data.prefix(4096), as: UTF8.self)
    _ = try? SimpleFINCredential.read(text)
    _ = try? SimpleFINAccess.parse(text)
    _ = SimpleFINAmount.minorUnits(text, minorDigits: Int(count % 4))
    guard let set = try? PayloadDecoder().decode(SimpleFIN.AccountSet.self, from: data, resource: "GET /accounts") else { return 0 }
    var store = SimpleFINStore()
    store.merge(set, start: 1_700_000_000, end: 1_800_000_000, newest: true, at: Date(timeIntervalSince1970: 1_795_000_000))
    store.merge(set, start: 1_600_000_000, end: 1_700_000_000, newest: false, at: Date(timeIntervalSince1970: 1_795_000_000))
    let names = set.accounts.prefix(3).map(\.name)
    let mapping = SimpleFINMapping(store: store, settings: .init(goals: names, targets: Dictionary(names.map { ($0, "100") }, uniquingKeysWith: { a, _ in a })))
    let from = Date(timeIntervalSince1970: 0)
    let to = Date(timeIntervalSince1970: 2_000_000_000)
    let goals = mapping.goals(skipped: SkippedRecords())
    _ = goals.map { $0.progress }
    _ = mapping.header(now: to)?.summary
    let page = mapping.activities(from: from, to: to)
    _ = page.activities.map { $0.message.plainText + $0.amount.formatted }
    for goal in goals { _ = Money.sum(mapping.feed(accountKey: goal.id.rawValue).map(\.amount.minorUnits)) }
    let payments = mapping.transactions(from: from, to: to)
    _ = RoundUp.Summary(transactions: payments, accountCurrency: mapping.accountCurrency).saveable
    _ = SimpleFINMapping.shownProblems(set.problems, store: store)
    return 0
}
