import Commands
import DemoServer
@testable import DemoData
import FeedModel
import Foundation
import QapitalClient
import Testing
import TestSupport

/// A saving the server stamps after our clock's "now" (a server clock ahead of ours, or the
/// same second with a fraction the query's whole seconds leave out) is in the newest window:
/// on screen after the refresh that follows the save, and in `activity` and `export`.
@MainActor @Suite(.timeLimit(.minutes(1))) struct FutureRowTests {
    @Test(arguments: [0.637, 300.0, 6 * 3600.0])
    func aSavingStampedAheadOfOurClockIsShownAndListed(ahead: Double) async throws {
        let stamp = fixedNow.addingTimeInterval(ahead)
        let server = try DemoHTTPServer(backend: DemoBackend(now: fixedNow, clock: { stamp }))
        try await server.start()
        let api = QapitalHTTPAPI(baseURL: await server.baseURL, timeout: serverAnswerTimeout)
        do {
            let probe = EventProbe<StoreEvent>()
            let feed = ActivityFeed(api: api, now: { fixedNow }, events: probe.sink)
            feed.start()
            #expect(await probe.wait { feed.phase != .loading(firstPage: true) && feed.phase != .loading(firstPage: false) })
            let before = feed.activities.count

            // Save, then refresh, as `s` does.
            let amount = Money(minorUnits: 1_234, currency: .usd)
            _ = try await api.transfer(goalId: 1, transferId: UUID(), amount: amount, attempt: .init(week: "2026-W47", resent: false))
            feed.refresh()
            var change: ActivityFeed.RefreshChange?
            #expect(await probe.wait {
                change = change ?? feed.takeRefreshChange()
                return change != nil && !feed.isBusy
            })
            // The status bar's line: not "Refreshed: nothing changed."
            #expect(change?.summary == "Refreshed: 1 new activity.", "ahead \(ahead)s")
            #expect(feed.activities.contains { abs($0.timestamp.timeIntervalSince(stamp)) < 1 && $0.amount == amount }, "ahead \(ahead)s")
            #expect(feed.activities.count == before + 1)

            for kind in [ActivityExport.Kind.activity, .export] {
                let (context, out) = commandContext(api, format: .json, kind: "qapital")
                let since = kind == .export ? fixedNow.addingTimeInterval(-30 * 86_400) : nil
                try await ActivityExport.run(context, kind: kind, since: since, until: nil, goal: nil)
                let document = try #require(try JSONSerialization.jsonObject(with: Data(out.value.utf8)) as? [String: Any])
                let rows = try #require(document["activities"] as? [[String: Any]])
                #expect(rows.contains { $0["time"] as? String == Cell.isoTime(stamp) && ($0["amount"] as? [String: Any])?["minorUnits"] as? Int == 1_234 },
                        "\(kind) ahead \(ahead)s")
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
