import FeedModel
import Foundation
import StarlingClient

// libFuzzer entry: any bytes as every Starling answer the app decodes (payloads of StarlingClient).
// Adding a resource is one line here.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStarling(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let decoder = PayloadDecoder(accountCurrency: .gbp, skipped: SkippedRecords())
    _ = try? decoder.decode(Starling.AccountList.self, from: data, resource: "GET /api/v2/accounts")
    _ = try? decoder.decode(Starling.Balance.self, from: data, resource: "GET balance")
    _ = try? decoder.decode(Starling.Identifiers.self, from: data, resource: "GET identifiers")
    _ = try? decoder.decode(Starling.HolderName.self, from: data, resource: "GET holder")
    _ = try? decoder.decode(Starling.SavingsGoalList.self, from: data, resource: "GET savings-goals")
    _ = try? decoder.decode(Starling.Photo.self, from: data, resource: "GET photo")
    _ = try? decoder.decode(Starling.FeedItems.self, from: data, resource: "GET transactions-between")
    _ = try? decoder.decode(Starling.CreateGoalResponse.self, from: data, resource: "PUT savings-goals")
    _ = try? decoder.decode(Starling.TransferResponse.self, from: data, resource: "PUT add-money")
    _ = try? decoder.decode(Starling.ErrorBody.self, from: data, resource: "error")
    return 0
}
