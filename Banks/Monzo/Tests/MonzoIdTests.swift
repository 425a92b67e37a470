import FeedModel
import Foundation
import Testing
@testable import MonzoClient

/// Issue 36, defects 1 and 2 on Monzo: each row keeps its `id`, money into a pot names the pot by
/// `metadata.pot_id`.
@Suite struct MonzoIdTests {
    @Test func idAndThePotById() throws {
        let transactions = try Fixture.transactions("monzo_transactions_kinds")
        let activities = try transactions.map { transaction throws(MalformedPayload) in
            try MonzoMapping.activity(transaction, potNames: ["pot_00009holiday": "Holiday"])
        }
        #expect(activities.map(\.id) == transactions.map(\.id))
        let pot = try #require(activities.first { $0.id == "tx_pot" })
        #expect(pot.kind == .moveToGoal && pot.goalId == GoalID("pot_00009holiday"))
        #expect(activities.filter { $0.id != "tx_pot" }.allSatisfy { $0.goalId == nil })
        // The published example too.
        let documented = try Fixture.transactions("monzo_transactions_docs_example")
        #expect(try documented.map { transaction throws(MalformedPayload) in try MonzoMapping.activity(transaction).id } == documented.map(\.id))
    }
}
