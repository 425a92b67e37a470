@testable import DemoData
import Foundation
import Testing
@testable import FeedModel

@Suite struct DemoDatasetTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func isDeterministicForOneNow() {
        let a = DemoDataset(now: now)
        let b = DemoDataset(now: now)
        #expect(a.goals == b.goals)
        #expect(a.activities == b.activities)
        #expect(a.transactions == b.transactions)
    }

    @Test func hasTheGoalsTheProductAsksFor() {
        let data = DemoDataset(now: now)
        #expect((10...14).contains(data.goals.count))
        #expect(data.goals.filter { $0.status == .deleted }.count == 1)
        #expect(data.goals.contains { $0.target == nil })
        #expect(data.goals.contains { ($0.progress ?? 0) > 1 })
        #expect(data.goals.filter(\.isShared).count >= 3)
        #expect(data.users.count == 8)
        #expect(Set(data.rules.map(\.kind)) == [.roundup, .guiltyPleasure])
        for goal in data.goals {
            let saved = (data.feeds[goal.id] ?? []).reduce(Money.zero(.usd)) { $0 + $1.amount }
            #expect(saved == goal.balance, "goal \(goal.id)")
        }
    }

    @Test func activitySpansEighteenMonthsWithALongGap() {
        let data = DemoDataset(now: now)
        let window = ActivityPager.windowLength
        #expect(data.activities.allSatisfy { $0.timestamp <= now })
        #expect(data.activities.map(\.timestamp) == data.activities.map(\.timestamp).sorted(by: >))
        let span = now.timeIntervalSince(data.activities.last!.timestamp) / 86_400
        #expect(span > 500 && span < 560)
        // Count the longest run of empty two-week windows walking back from now.
        var longest = 0
        var run = 0
        var to = now
        while to > data.oldestActivity {
            let from = to.addingTimeInterval(-window)
            let empty = !data.activities.contains { $0.timestamp >= from && $0.timestamp < to }
            run = empty ? run + 1 : 0
            longest = max(longest, run)
            to = from
        }
        #expect(longest >= 6)
    }

    @Test func emptyRecentDaysEmptiesTheNewestWindows() {
        let data = DemoDataset(now: now, options: .init(emptyRecentDays: 26 * 14))
        let newest = try! #require(data.activities.first)
        #expect(newest.timestamp < now.addingTimeInterval(-26 * ActivityPager.windowLength))
    }

    @Test func transactionsCoverEightWeeksWithPaymentsIncomeAndAnotherCurrency() {
        let data = DemoDataset(now: now)
        let oldest = try! #require(data.transactions.last)
        #expect(now.timeIntervalSince(oldest.timestamp) <= 56 * 86_400)
        #expect(data.transactions.contains { $0.isMoneyOut })
        #expect(data.transactions.contains { !$0.isMoneyOut })
        #expect(data.transactions.contains { $0.amount.currency != .usd })
    }

    @Test func backendTransfersOnceForOneId() async throws {
        let backend = DemoBackend(now: now)
        let id = UUID()
        let amount = Money(minorUnits: 158, currency: .usd)
        let first = try await backend.transfer(goalId: 4, transferId: id, amount: amount)
        let second = try await backend.transfer(goalId: 4, transferId: id, amount: amount)
        #expect(first.balance.minorUnits == 158)
        #expect(second.balance.minorUnits == 158)
        await #expect(throws: APIError.self) { try await backend.transfer(goalId: 3, transferId: id, amount: amount) }
        await #expect(throws: APIError.self) { try await backend.createGoal(name: "   ", target: nil) }
        let created = try await backend.createGoal(name: "  Kayak ", target: Money(minorUnits: 90_000, currency: .usd))
        #expect(created.name == "Kayak")
        #expect(await backend.goals().last == created)
    }
}
