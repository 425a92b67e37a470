import Foundation
import PropertyBased
import Testing
@testable import FeedModel

/// The pager's id index against the obvious model (a `Set` of the ids), and an activity's id and
/// goal id kept in one string.
@Suite struct ActivityIDIndexTests {
    static func activity(_ id: String) -> Activity {
        Activity(id: id, message: MarkupText(parsing: "x"), amount: Money(minorUnits: 1, currency: .usd), userId: 1,
                 timestamp: Date(timeIntervalSince1970: 0), kind: .other)
    }

    @Test func keepsTheFirstOfEachIdAsASetWould() async {
        // Few distinct ids among many: repeats, growth past several table sizes, long probe runs.
        await propertyCheck(count: 60, input: Gen.int(in: 0...400).array(of: 0...600)) { numbers in
            var index = ActivityIDIndex()
            var list: [Activity] = []
            var model: [String] = []
            var seen = Set<String>()
            for number in numbers {
                let id = "id-\(number)"
                if index.insert(Self.activity(id), appendingTo: list) { list.append(Self.activity(id)) }
                if seen.insert(id).inserted { model.append(id) }
            }
            #expect(list.map(\.id) == model)
        }
    }

    @Test func idAndGoalIdAreIndependent() {
        var activity = Activity(id: "tx-1", message: MarkupText(parsing: "x"), amount: Money(minorUnits: 1, currency: .usd), userId: 1,
                                timestamp: Date(timeIntervalSince1970: 0), kind: .moveToGoal, goalId: "pot_1")
        #expect(activity.id == "tx-1" && activity.goalId == "pot_1")
        activity.id = "tx-2"
        #expect(activity.id == "tx-2" && activity.goalId == "pot_1")
        activity.goalId = nil
        #expect(activity.id == "tx-2" && activity.goalId == nil)
        activity.goalId = "saver-9"
        activity.id = "tx\u{1F}3"  // a control character never reaches an id
        #expect(activity.id == "tx3" && activity.goalId == "saver-9")
    }
}
