import Foundation

// libFuzzer entry: any bytes as every Qapital answer the app decodes. Decoding may refuse the
// bytes (a MalformedPayload); it must never crash, hang or take memory without bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPayloads(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let decoder = PayloadDecoder(accountCurrency: .usd, skipped: SkippedRecords())
    _ = try? decoder.decode(GoalList.self, from: data, resource: "GET /savingsgoals")
    _ = try? decoder.decode(GoalFeed.self, from: data, resource: "GET /savingsgoals/1/feed")
    _ = try? decoder.decode(RuleList.self, from: data, resource: "GET /savingsrules")
    _ = try? decoder.decode(UserResponse.self, from: data, resource: "GET /users/1")
    _ = try? decoder.decode(ActivityPage.self, from: data, resource: "GET /activities")
    _ = try? decoder.decode(TransactionList.self, from: data, resource: "GET /transactions")
    _ = try? decoder.decode(Goal.self, from: data, resource: "POST /savingsgoals")
    _ = try? AchievementsLoader.decode(data, name: "achievements.json")
    return 0
}
