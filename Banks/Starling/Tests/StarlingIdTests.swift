import FeedModel
import Foundation
import Testing
@testable import StarlingClient

/// Issue 36, defects 1 and 2 on Starling's SDK recording (v2-get-feed-items): each row keeps its
/// `feedItemUid`, and money into a savings goal names the goal by `counterPartyUid`.
@Suite struct StarlingIdTests {
    @Test func feedItemUidAndTheGoalByUid() throws {
        let items = try PayloadDecoder(accountCurrency: .gbp).decode(Starling.FeedItems.self, from: try Fixture.data("starling_feed_items_sdk"),
                                                                     resource: "feed").feedItems ?? []
        #expect(items.count >= 5)
        let activities = try items.map { item throws(MalformedPayload) in try StarlingMapping.activity(item) }
        #expect(activities.map(\.id) == items.map(\.feedItemUid))
        let transfer = try #require(activities.first { $0.id == "220f236e-6a67-4cfe-97b0-cb806f1f612f" })
        #expect(transfer.kind == .moveToGoal)
        #expect(transfer.goalId == GoalID("5031325f-49b2-4c8c-b9cb-3f5cfa7f6d6e"))
        // A card payment names a merchant's uid, never a goal.
        #expect(activities.filter { $0.kind != .moveToGoal }.allSatisfy { $0.goalId == nil })
        // Each payment keeps Starling's spendingCategory, for the rules' `category`.
        let payments = try items.map { item throws(MalformedPayload) in try StarlingMapping.transaction(item) }
        #expect(payments.map(\.category) == items.map(\.spendingCategory))
        #expect(payments.contains { $0.category == "TRANSPORT" })
    }
}
