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
        // A bank's account names the key whatever the goal.
        let dog = Goal(id: 2, name: "Dog", ownerId: 1, target: nil, balance: Money(minorUnits: 0, currency: .gbp))
        let car = Goal(id: 3, name: "Car", ownerId: 9, target: nil, balance: Money(minorUnits: 0, currency: .gbp))
        #expect(identity.weekKey(week, goal: dog) == identity.weekKey(week) && identity.weekKey(week, goal: car) == identity.weekKey(week))
        // Version 5, RFC variant.
        let text = identity.weekKey(week).uuidString
        #expect(Array(text)[14] == "5" && "89AB".contains(Array(text)[19]))
        #expect(!SaveIdentity.digest("token").contains("token"))
    }

    /// Issue 37.1: where the API names no account (the Qapital API), the key comes from the
    /// server and the goal's owner, never from a token: a new sign-in, or another machine with
    /// its own token, saving into any goal of the same user, sends the same key.
    @Test func theQapitalKeyComesFromTheServerAndTheGoalsOwner() {
        let week = Week(containing: Timestamp.parse("2026-11-18T12:00:00+00:00")!, calendar: Week.calendar(in: .gmt))
        let identity = SaveIdentity.forSaving(sourceName: "qapital", baseURL: "HTTPS://api.example.com/", account: nil)
        #expect(identity == SaveIdentity.forSaving(sourceName: "qapital", baseURL: "https://api.example.com", account: nil))
        #expect(identity.byGoalOwner && identity.account.isEmpty)
        func goal(_ id: Int, owner: Int) -> Goal {
            Goal(id: GoalID(id), name: "G\(id)", ownerId: owner, target: nil, balance: Money(minorUnits: 0, currency: .usd))
        }
        #expect(identity.weekKey(week, goal: goal(1, owner: 7)) == identity.weekKey(week, goal: goal(2, owner: 7)))
        #expect(identity.weekKey(week, goal: goal(1, owner: 7)) != identity.weekKey(week, goal: goal(1, owner: 8)))
        #expect(identity.weekKey(week, goal: goal(1, owner: 7)) != identity.weekKey(week.previous, goal: goal(1, owner: 7)))
        let other = SaveIdentity.forSaving(sourceName: "qapital", baseURL: "https://other.example.com", account: nil)
        #expect(identity.weekKey(week, goal: goal(1, owner: 7)) != other.weekKey(week, goal: goal(1, owner: 7)))
        // A bank names its account: the goal's owner plays no part.
        let bank = SaveIdentity.forSaving(sourceName: "starling", baseURL: "https://api.starlingbank.com", account: "acc-1")
        #expect(!bank.byGoalOwner)
        #expect(bank.weekKey(week, goal: goal(1, owner: 7)) == bank.weekKey(week, goal: goal(2, owner: 8)))
        #expect(bank.weekKey(week) == SaveIdentity(source: "starling https://api.starlingbank.com", account: "acc-1").weekKey(week))
    }
}

/// Issue 37.2: a week is saved whole once it is over. While it is under way nothing is sent
/// (its payments are not all there); once over, one transfer under the week's key covers every
/// payment, a lost answer is sent again with the same key and amount, and the week is closed.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct UnfinishedWeekTests {
    nonisolated static let friday = Date(timeIntervalSince1970: 1_800_000_000)  // Fri 15 Jan 2027
    static let calendar = Week.calendar(in: .gmt)

    @Test func aWeekUnderWayWaitsAndIsSavedWholeOnceOver() async throws {
        let backend = DemoBackend(now: Self.friday)
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: backend), sourceName: "test")
        let payments = Locked<[Int64]>([-435, -520])
        let clock = Locked<Date>(Self.friday)
        let week = Week(containing: Self.friday, calendar: Self.calendar)
        api.script { script in
            script.transactions = { from, to in
                payments.withLock { $0 }.enumerated().map { index, cents in
                    Transaction(id: "t\(index)", timestamp: week.start.addingTimeInterval(Double(index + 1) * 3_600),
                                amount: Money(minorUnits: cents, currency: .usd), counterparty: "Shop \(index)")
                }.filter { $0.timestamp >= from && $0.timestamp < to }
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
                                     now: { clock.withLock { $0 } }, events: probe.sink, saver: saver)
            if store.week != week { store.showPreviousWeek() } else { store.load() }
            await probe.wait { store.status == .loaded }
            return (store, goals, probe)
        }
        let dogBefore = try #require(await backend.dataset.goals.first { $0.id == 2 }).balance

        // Friday: the week is under way; nothing is sent.
        let (first, goals, _) = await session()
        let dog = try #require(goals.goal(id: 2))
        guard case .weekUnderWay? = first.saveProblem else {
            Issue.record("a week under way could be saved: \(String(describing: first.saveProblem))")
            return
        }
        #expect(throws: RoundUpStore.SaveProblem.self) { try first.save(into: dog) }
        #expect(api.transferIds.isEmpty)

        // Saturday: 0.87 more. Tuesday after: the week is over; the first save's answer is lost.
        payments.withLock { $0.append(-87) }
        clock.withLock { $0 = week.end.addingTimeInterval(86_400 + 3_600) }
        let (second, _, secondProbe) = await session()
        #expect(second.week == week)
        #expect(second.saveProblem == nil)
        #expect(second.unsavedTotal == Money(minorUnits: 158, currency: .usd))
        // Lost, and the saver's check at once lost too.
        api.script { $0.transferFaults = [.afterApplying, .beforeApplying] }
        try second.save(into: dog)
        await secondProbe.wait { second.transfer?.isSending == false }
        #expect(second.transfer?.failureMessage != nil)
        #expect(api.transferIds == [identity.weekKey(week), identity.weekKey(week)])

        // A payment the bank lists late changes nothing: the week's transfer is in the record, and
        // the next run sends it again, the same key and amount, and nothing else.
        payments.withLock { $0.append(-101) }
        let (third, _, thirdProbe) = await session()
        #expect(third.progress?.pending?.key == identity.weekKey(week))
        #expect(third.saveProblem == .failedTransferPending)
        #expect(third.retryTransfer())
        await thirdProbe.wait { third.transfer?.isSending == false }
        guard case .succeeded? = third.transfer?.phase else {
            Issue.record("not sent again: \(String(describing: third.transfer?.phase))")
            return
        }
        #expect(api.transferIds == Array(repeating: identity.weekKey(week), count: 3))
        #expect(third.progress?.isSaved == true)
        #expect(third.unsavedTotal?.minorUnits == 0)
        third.dismissTransfer()
        #expect(throws: RoundUpStore.SaveProblem.self) { try third.save(into: dog) }

        // Each payment's round-up moved once: 0.65 + 0.80 + 0.13.
        let dogAfter = try #require(await backend.dataset.goals.first { $0.id == 2 }).balance
        #expect(dogAfter == dogBefore + Money(minorUnits: 158, currency: .usd))
    }
}

/// A rule's transfer key (RULES.md): the round-up rule's is the round-ups key, byte for byte;
/// every other is made of the source, account, rule name and period only.
@Suite struct RuleKeyTests {
    let identity = SaveIdentity(source: "starling https://api.starlingbank.com", account: "acc-1")
    let week = Week(containing: Timestamp.parse("2026-11-18T12:00:00+00:00")!, calendar: Week.calendar(in: .gmt))
    let goal = Goal(id: 1, name: "Holiday", ownerId: 7, target: nil, balance: Money(minorUnits: 0, currency: .gbp))

    @Test func theRoundUpRuleSharesTheRoundUpsKey() {
        let roundUps = Rule(name: "anything", kind: .roundUp(step: nil), goal: "Holiday")
        #expect(identity.ruleKey(roundUps, period: .week(week), goal: goal) == identity.weekKey(week, goal: goal))
        // Pinned: a change to how keys are made would send saved weeks again.
        #expect(identity.weekKey(week).uuidString.lowercased() == UUID.version5(namespace: SaveIdentity.namespace,
            name: "round-ups\nstarling https://api.starlingbank.com\nacc-1\n2026-W47").uuidString.lowercased())
    }

    @Test func otherRulesKeysDependOnNameAndPeriodOnly() {
        let coffee = Rule(name: "coffee", kind: .guiltyPleasure(amount: Money(minorUnits: 200, currency: .gbp), match: ["Pret"]), goal: "Holiday")
        var edited = coffee
        edited.kind = .guiltyPleasure(amount: Money(minorUnits: 300, currency: .gbp), match: ["Costa"])
        edited.goal = "Car"
        let key = identity.ruleKey(coffee, period: .week(week), goal: goal)
        #expect(key == identity.ruleKey(edited, period: .week(week), goal: goal), "editing a rule's amount never reopens a week")
        var renamed = coffee
        renamed.name = "coffee2"
        #expect(key != identity.ruleKey(renamed, period: .week(week), goal: goal))
        #expect(key != identity.ruleKey(coffee, period: .week(week.next), goal: goal))
        #expect(key != identity.weekKey(week))
        #expect(key != SaveIdentity(source: identity.source, account: "acc-2").ruleKey(coffee, period: .week(week), goal: goal))
        let month = RulePeriod.month(year: 2026, month: 11, settledBy: week)
        #expect(key != identity.ruleKey(coffee, period: month, goal: goal))
        #expect(key == UUID.version5(namespace: SaveIdentity.namespace,
                                     name: "rule\nstarling https://api.starlingbank.com\nacc-1\ncoffee\n2026-W47"))
    }
}

/// A transfer's period as a source that marks its transfers reads it: where to look from.
@Suite struct TransferAttemptTests {
    @Test func aPeriodStartsOnItsMondayOrItsMonthsFirstDay() {
        let calendar = Week.calendar(in: TimeZone(identifier: "Europe/Stockholm")!)
        #expect(TransferAttempt(week: "2026-W47", resent: false).periodStart(calendar: calendar) == Timestamp.parse("2026-11-16T00:00:00+01:00"))
        #expect(TransferAttempt(week: "2026-11", resent: false, rule: "m").periodStart(calendar: calendar) == Timestamp.parse("2026-11-01T00:00:00+01:00"))
        for bad in ["2026-13", "2026-W54", "26-11", "", "2026-1"] {
            #expect(TransferAttempt(week: bad, resent: false).periodStart(calendar: calendar) == nil, "\(bad)")
        }
    }
}
