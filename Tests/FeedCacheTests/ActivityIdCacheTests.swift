import FeedModel
import Foundation
import Testing
@testable import FeedCache

/// Issue 36, defect 1: the cache keeps each activity once, by its id, and keeps look-alikes apart.
@Suite struct ActivityIdCacheTests {
    static func coffee(_ id: String?, at date: Date, minor: Int64 = 250) -> Activity {
        Activity(id: id, message: MarkupText(parsing: "<strong>Coffee</strong>"), amount: Money(minorUnits: minor, currency: .usd),
                 userId: 1, timestamp: date, kind: .other)
    }

    @Test func lookAlikesAreKeptAndAnIdIsKeptOnceAfterARestart() async throws {
        let directory = temporaryDirectory()
        let day: TimeInterval = 86_400
        let newer = (from: now.addingTimeInterval(-14 * day), to: now)
        let older = (from: now.addingTimeInterval(-28 * day), to: newer.from)
        let moment = now.addingTimeInterval(-3 * day)
        do {
            let cache = try openCache(directory)
            // Two coffees in one second with ids of their own, and a pending item delivered in the
            // older window first that the newer window then has at its settled time.
            await cache.saveActivities(ActivityPage(oldest: older.from, activities: [
                Self.coffee("tx-pending", at: older.to.addingTimeInterval(-60)),
            ]), from: older.from, to: older.to, at: now)
            await cache.saveActivities(ActivityPage(oldest: older.from, activities: [
                Self.coffee("tx-a", at: moment), Self.coffee("tx-b", at: moment), Self.coffee("tx-pending", at: newer.from.addingTimeInterval(60)),
            ]), from: newer.from, to: newer.to, at: now)
            cache.checkpoint()
        }
        let reopened = try openCache(directory)
        let all = try #require(await reopened.activities(from: older.from, to: newer.to, allowPartial: false)).value.activities
        #expect(all.map(\.id).sorted() == ["tx-a", "tx-b", "tx-pending"])
        #expect(all.first { $0.id == "tx-pending" }?.timestamp == newer.from.addingTimeInterval(60))
        #expect(all.reduce(0) { $0 + $1.amount.minorUnits } == 750)
    }

    @Test func qapitalLookAlikesWithoutIdsStayTwoThroughTheCache() async throws {
        let json = """
        {"oldest": "2026-01-01T00:00:00+00:00", "activities": [
         {"message": "<strong>You</strong> saved.", "amount": 2.50, "userId": 1, "timestamp": "2026-11-10T09:00:00.000+00:00"},
         {"message": "<strong>You</strong> saved.", "amount": 2.50, "userId": 1, "timestamp": "2026-11-10T09:00:00.000+00:00"}
        ]}
        """
        let page = try PayloadDecoder(accountCurrency: .usd).decode(ActivityPage.self, from: Data(json.utf8), resource: "test")
        #expect(Set(page.activities.map(\.id)).count == 2)
        let directory = temporaryDirectory()
        do {
            let cache = try openCache(directory)
            await cache.saveActivities(page, from: now.addingTimeInterval(-14 * 86_400), to: now, at: now)
        }
        let reopened = try openCache(directory)
        let kept = try #require(await reopened.activities(from: now.addingTimeInterval(-14 * 86_400), to: now, allowPartial: false))
        #expect(kept.value.activities.map(\.id).sorted() == page.activities.map(\.id).sorted())
    }
}
