@testable import DemoData
import Foundation
import Testing
import TestSupport
@testable import FeedModel

@Suite struct SaveKeyTests {
    @Test func sha1MatchesTheStandardVectors() {
        #expect(SHA1.hex(Array("abc".utf8)) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(SHA1.hex([]) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(SHA1.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
            == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(SHA1.hex(Array(repeating: UInt8(ascii: "a"), count: 1_000_000)) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func version5MatchesPython() {
        // uuid.uuid5(uuid.NAMESPACE_DNS, "python.org")
        let dns = UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8")!
        #expect(UUID.version5(namespace: dns, name: "python.org").uuidString.lowercased() == "886313e1-3b8a-5372-9b90-0c9aee199e5d")
    }

    @Test func weekLabelsRoundTrip() throws {
        let calendar = Week.calendar(in: TimeZone(identifier: "Europe/Stockholm")!)
        let week = Week(containing: Timestamp.parse("2026-11-18T12:00:00+00:00")!, calendar: calendar)
        #expect(week.isoLabel == "2026-W47")
        #expect(Week(isoLabel: "2026-W47", calendar: calendar) == week)
        #expect(Week(isoLabel: "2026-w47", calendar: calendar) == week)
        // 2026 has 53 ISO weeks; 2027 has 52.
        #expect(Week(isoLabel: "2026-W53", calendar: calendar)?.isoLabel == "2026-W53")
        #expect(Week(isoLabel: "2027-W53", calendar: calendar) == nil)
        // The first week of 2027 starts on Monday 4 January.
        #expect(Week(isoLabel: "2027-W01", calendar: calendar)?.start == Timestamp.parse("2027-01-04T00:00:00+01:00"))
        for bad in ["2026-47", "2026-W0", "2026-W54", "26-W47", "2026-W4x", "", "2026-W047"] {
            #expect(Week(isoLabel: bad, calendar: calendar) == nil, "\(bad)")
        }
    }

    @Test func keysDependOnSourceAccountWeekAndPaymentsOnly() {
        let calendar = Week.calendar(in: .gmt)
        let week = Week(containing: Timestamp.parse("2026-11-18T12:00:00+00:00")!, calendar: calendar)
        let identity = SaveIdentity(source: "starling https://api.starlingbank.com", account: "acc-1")
        #expect(identity.weekKey(week) == SaveIdentity(source: identity.source, account: "acc-1").weekKey(week))
        #expect(identity.weekKey(week) != identity.weekKey(week.previous))
        #expect(identity.weekKey(week) != SaveIdentity(source: identity.source, account: "acc-2").weekKey(week))
        #expect(identity.weekKey(week) != SaveIdentity(source: "qapital https://api.starlingbank.com", account: "acc-1").weekKey(week))
        #expect(identity.restKey(week, payments: ["b", "a"]) == identity.restKey(week, payments: ["a", "b"]))
        #expect(identity.restKey(week, payments: ["a"]) != identity.restKey(week, payments: ["a", "b"]))
        #expect(identity.restKey(week, payments: ["a"]) != identity.weekKey(week))
        // Version 5, RFC variant.
        let text = identity.weekKey(week).uuidString
        #expect(Array(text)[14] == "5" && "89AB".contains(Array(text)[19]))
        #expect(!SaveIdentity.digest("token").contains("token"))
    }
}

/// A week saved while under way: the rest later under its own key, and a lost answer sent again
/// before the rest; every payment's round-up moves once.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct UnfinishedWeekTests {
    nonisolated static let now = Date(timeIntervalSince1970: 1_800_000_000)  // Fri 15 Jan 2027
    static let calendar = Week.calendar(in: .gmt)

    @Test func theRestOfAnUnfinishedWeekIsSavedOnceEachPayment() async throws {
        let backend = DemoBackend(now: Self.now)
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: backend), sourceName: "test")
        let payments = Locked<[Int64]>([-435, -520])
        api.script { script in
            script.transactions = { from, _ in
                payments.withLock { $0 }.enumerated().map { index, cents in
                    Transaction(id: "t\(index)", timestamp: from.addingTimeInterval(Double(index + 1) * 3_600),
                                amount: Money(minorUnits: cents, currency: .usd), counterparty: "Shop \(index)")
                }
            }
        }
        let record = MemoryRoundUpRecord()
        let identity = SaveIdentity(source: "test", account: "1")
        let saver = RoundUpSaver(identity: identity, record: record)
        func session() async -> (RoundUpStore, GoalStore, EventProbe<StoreEvent>) {
            let probe = EventProbe<StoreEvent>()
            let goals = GoalStore(api: api, events: probe.sink)
            goals.load()
            await probe.wait { goals.status == .loaded }
            let store = RoundUpStore(api: api, goals: goals, accountCurrency: .usd, calendar: Self.calendar,
                                     now: { Self.now }, events: probe.sink, saver: saver)
            store.load()
            await probe.wait { store.status == .loaded }
            return (store, goals, probe)
        }
        let dogBefore = try #require(await backend.dataset.goals.first { $0.id == 2 }).balance

        // Monday and Tuesday's payments: 0.65 + 0.80.
        let (first, goals, probe) = await session()
        let dog = try #require(goals.goal(id: 2))
        try first.save(into: dog)
        await probe.wait { first.transfer?.isSending == false }
        #expect(first.saveProblem == .alreadySaved(try #require(first.progress?.saved.last)))
        #expect(api.transferIds == [identity.weekKey(first.week)])

        // Wednesday: 0.87 → 0.13 more; a restart offers only that, under a key of its own, and its answer is lost.
        payments.withLock { $0.append(-87) }
        let (second, _, secondProbe) = await session()
        #expect(second.unsavedTotal == Money(minorUnits: 13, currency: .usd))
        #expect(second.progress?.remaining.map(\.id) == ["t2"])
        api.script { $0.transferFaults = [.afterApplying] }
        try second.save(into: dog)
        await secondProbe.wait { second.transfer?.isSending == false }
        #expect(second.transfer?.failureMessage != nil)
        let restKey = identity.restKey(second.week, payments: ["t2"])
        #expect(api.transferIds.last == restKey)

        // Thursday: 1.01 → 0.99 more. The next run sends the lost transfer again first (same key,
        // same amount), and only then the new payment, under yet another key.
        payments.withLock { $0.append(-101) }
        let (third, _, thirdProbe) = await session()
        #expect(third.progress?.pending?.key == restKey)
        #expect(third.saveProblem == .failedTransferPending)
        #expect(third.transfer?.failureMessage != nil)
        #expect(third.retryTransfer())
        await thirdProbe.wait { third.transfer?.isSending == false }
        guard case .succeeded? = third.transfer?.phase else {
            Issue.record("not sent again: \(String(describing: third.transfer?.phase))")
            return
        }
        #expect(third.unsavedTotal == Money(minorUnits: 99, currency: .usd))
        third.dismissTransfer()
        try third.save(into: dog)
        await thirdProbe.wait { third.transfer?.isSending == false }
        #expect(api.transferIds.last == identity.restKey(third.week, payments: ["t3"]))
        #expect(third.progress?.isSaved == true)
        #expect(third.progress?.saved.count == 3)

        // Each payment's round-up moved once: 0.65 + 0.80 + 0.13 + 0.99.
        let dogAfter = try #require(await backend.dataset.goals.first { $0.id == 2 }).balance
        #expect(dogAfter == dogBefore + Money(minorUnits: 257, currency: .usd))
        #expect(Set(api.transferIds).count == 3)
    }
}
