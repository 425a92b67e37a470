import EnableBankingClient
import FeedModel
import Foundation

// libFuzzer entry: any bytes as each Enable Banking answer the app decodes (a session, balances,
// a transaction page, the error envelope) and as an amount; for what decoded, each row's signed
// amount, text and dates, each account's shown name: unreadable amounts, no indicator, control
// characters, numbers for strings must be shown or skipped, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnableBanking(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let text = String(decoding: data.prefix(256), as: UTF8.self)
    _ = EnableBankingAmount.magnitude(text, minorDigits: count % 4)
    _ = EnableBanking.Problem.read(data)
    let decoder = PayloadDecoder(skipped: SkippedRecords())
    if let session = try? decoder.decode(EnableBanking.Session.self, from: data, resource: "POST /sessions") {
        _ = session.accounts.map { $0.shownName + $0.key }
    }
    if let balances = try? decoder.decode(EnableBanking.Balances.self, from: data, resource: "GET balances") {
        _ = balances.balances.map { EnableBankingAmount.balance($0.amount)?.formatted ?? "" }
    }
    if let page = try? decoder.decode(EnableBanking.TransactionPage.self, from: data, resource: "GET transactions") {
        for row in page.transactions {
            _ = EnableBankingAmount.money(row.amount, indicator: row.indicator)?.formatted
            _ = row.text + (row.date ?? "")
            _ = row.isPending || row.isCancelled
        }
    }
    return 0
}
