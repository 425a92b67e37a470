import Foundation
import Testing
@testable import FeedModel
import TestSupport

/// Issue 36, defect 1: ids from decoding through the pager; look-alikes are kept, an id once.
@Suite struct ActivityIdTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func coffee(_ id: String?, at date: Date) -> Activity {
        Activity(id: id, message: MarkupText(parsing: "<strong>Coffee</strong>"), amount: Money(minorUnits: 250, currency: .usd),
                 userId: 1, timestamp: date, kind: .other)
    }

    @Test func thePagerKeepsLookAlikesAndShowsAnIdOnce() {
        var pager = ActivityPager()
        let first = pager.start(now: Self.now)
        let moment = Self.now.addingTimeInterval(-3_600)
        let pending = Self.coffee("tx-pending", at: Self.now.addingTimeInterval(-7_200))
        // The pending item comes again in the next window, at the time it settled.
        var settled = pending
        settled.timestamp = Self.now.addingTimeInterval(-15 * 86_400)
        _ = pager.receive(first[0], .success(ActivityPage(oldest: Self.now.addingTimeInterval(-20 * 86_400), activities: [
            Self.coffee("tx-a", at: moment), Self.coffee("tx-b", at: moment), Self.coffee("tx-a", at: moment), pending,
        ])))
        let second = pager.viewportChanged(cursor: 2, screenHeight: 30)
        #expect(second.count == 1)
        _ = pager.receive(second[0], .success(ActivityPage(oldest: Self.now.addingTimeInterval(-20 * 86_400), activities: [settled])))
        #expect(pager.phase == .atEnd)
        #expect(pager.activities.map(\.id) == ["tx-a", "tx-b", "tx-pending"])
    }

    @Test func rowsWithoutIdsGetStableDistinctIds() throws {
        let json = """
        {"oldest": "2026-01-01T00:00:00+00:00", "activities": [
         {"message": "<strong>You</strong> saved.", "amount": 2.50, "userId": 1, "timestamp": "2026-11-10T09:00:00.000+00:00"},
         {"message": "<strong>You</strong> saved.", "amount": 2.50, "userId": 1, "timestamp": "2026-11-10T09:00:00.000+00:00"},
         {"id": "own-1", "message": "<strong>You</strong> saved.", "amount": 2.50, "userId": 1, "timestamp": "2026-11-10T09:00:00.000+00:00"},
         {"message": "<strong>You</strong> saved.", "amount": 2.50, "userId": 1, "timestamp": "2026-11-10T09:00:00.000+00:00"}
        ]}
        """
        let decode = { try PayloadDecoder(accountCurrency: .usd).decode(ActivityPage.self, from: Data(json.utf8), resource: "test") }
        let ids = try decode().activities.map(\.id)
        #expect(Set(ids).count == 4)
        #expect(ids[2] == "own-1")
        // The same answer read again (another fetch, another process) gives the same ids.
        #expect(try decode().activities.map(\.id) == ids)
        // Another run of the app (another process) gives the same id: it is no per-process hash.
        #expect(ids == ["qFkqAm4Wq3pM", "qFkqAm4Wq3pM-1", "own-1", "qFkqAm4Wq3pM-2"])
        #expect(ids.allSatisfy { $0.utf8.count <= 15 })
        // What the cache writes reads back with the same ids.
        let round = try PayloadDecoder(accountCurrency: .usd).decode(ActivityPage.self, from: JSONEncoder().encode(try decode()), resource: "test")
        #expect(round.activities.map(\.id) == ids)
    }
}

/// What a refresh says changed counts transactions by id (issue 36).
@MainActor
@Suite(.timeLimit(.minutes(1))) struct RefreshChangeByIdTests {
    @Test func aSettledPaymentIsNoChangeAndALookAlikeIsNew() async throws {
        let now = ActivityIdTests.now
        let moment = now.addingTimeInterval(-3_600)
        let pending = Activity(id: "tx-1", message: MarkupText(parsing: "<strong>Coffee</strong> · pending"),
                               amount: Money(minorUnits: -250, currency: .usd), userId: 1, timestamp: moment, kind: .other)
        var settled = pending
        settled.message = MarkupText(parsing: "<strong>Coffee</strong>")
        var twin = settled
        twin.id = "tx-2"
        let answer = Locked([pending])
        let api = FakeSavingsAPI(base: nil, sourceName: "fake")
        api.script { script in
            script.activities = { _, _ in ActivityPage(oldest: now.addingTimeInterval(-86_400), activities: answer.withLock { $0 }) }
        }
        let probe = EventProbe<StoreEvent>()
        let feed = ActivityFeed(api: api, now: { now }, events: probe.sink)
        feed.start()
        #expect(await probe.wait { feed.phase == .atEnd })
        answer.withLock { $0 = [settled, twin] }
        feed.refresh()
        var change: ActivityFeed.RefreshChange?
        #expect(await probe.wait { change = change ?? feed.takeRefreshChange(); return change != nil })
        #expect(change == ActivityFeed.RefreshChange(added: 1, removed: 0))
        #expect(feed.activities.map(\.id).sorted() == ["tx-1", "tx-2"])
    }
}
