import FeedModel
import Foundation
import Testing
@testable import UpClient

/// Issue 36, defects 1 and 2 on Up's OpenAPI example: each row keeps its `id`, money into a saver
/// names the saver by `relationships.transferAccount.data.id`.
@Suite struct UpIdTests {
    @Test func idAndTheSaverById() throws {
        var item = try PayloadDecoder().decode(Up.SingleDocument<Up.TransactionResource>.self,
                                               from: try Fixture.data("up_transaction_foreign_roundup"), resource: "GET").data
        let payment = try UpMapping.activity(item, savers: [:], joint: false)
        #expect(payment.id == item.id && payment.goalId == nil)
        item.relationships?.transferAccount = Up.ToOne(Up.Identifier(type: "accounts", id: "saver-2"))
        // Two savers with one name: the one Up names.
        let transfer = try UpMapping.activity(item, savers: ["saver-1": "Holiday", "saver-2": "Holiday"], joint: false)
        #expect(transfer.kind == .moveToGoal && transfer.goalId == GoalID("saver-2"))
    }
}
