@testable import EnableBankingClient
import FeedModel
import Foundation
import PropertyBased
import Testing

@Suite struct EnableBankingBudgetTests {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    /// Reads at any times by any number of processes (each its own budget over one file): no
    /// rolling day ever holds more than four reads of an account, and a read is refused only
    /// when four were made in the day before it.
    @Test func neverMoreThanFourInAnyDayAcrossProcesses() async throws {
        await propertyCheck(count: 60, input: Gen.int(in: 0...40_000).array(of: 1...24), Gen.int(in: 1...3), Gen.int(in: 0...1).array(of: 24)) {
            steps, processes, accounts in
            guard let folder = try? TemporaryFolder() else { return }
            let file = folder.url.appendingPathComponent("enablebanking-reads-f.json")
            let clock = Locked(Self.start)
            let budgets = (0..<processes).map { _ in
                EnableBankingBudget(fileURL: file, sessionId: "session", now: { clock.withLock { $0 } })
            }
            var sent: [String: [Date]] = [:]
            for (index, step) in steps.enumerated() {
                let now = clock.withLock { date in
                    date = date.addingTimeInterval(Double(step))
                    return date
                }
                let account = "acct-\(accounts[index])"
                let before = (sent[account] ?? []).count { now.timeIntervalSince($0) < 86_400 }
                do throws(APIError) {
                    try budgets[index % processes].take(account, shown: account, headless: true)
                    sent[account, default: []].append(now)
                    #expect(before < EnableBankingBudget.daily)
                } catch {
                    #expect(before >= EnableBankingBudget.daily, "refused with \(before) reads in the day")
                    #expect(error.message == "\(before) of 4 reads of \(account) used today: --force reads anyway")
                }
            }
            for times in sent.values {
                for time in times {
                    #expect(times.count { $0 >= time && $0.timeIntervalSince(time) < 86_400 } <= EnableBankingBudget.daily)
                }
            }
        }
    }

    @Test func theStatusBarCountsFromThreeAndRAsksOnceMore() throws {
        let folder = try TemporaryFolder()
        let clock = Locked(Self.start)
        let budget = EnableBankingBudget(fileURL: folder.url.appendingPathComponent("r.json"), sessionId: "s", now: { clock.withLock { $0 } })
        for n in 1...4 {
            try budget.take("a", shown: "Everyday", headless: false)
            #expect(budget.note == (n >= 3 ? "\(n) of 4 reads today" : nil))
        }
        #expect(throws: APIError.self) { try budget.take("a", shown: "Everyday", headless: false) }
        do throws(APIError) {
            try budget.take("a", shown: "Everyday", headless: false)
        } catch {
            #expect(error.message == "4 of 4 reads of Everyday used today: r asks whether to read anyway")
        }
        #expect(budget.question([("a", "Everyday"), ("b", "Savings")]) == "4 of 4 reads of Everyday used today: read anyway? read 5 today [y/N]")
        // The yes: exactly one read more.
        budget.allowPast(["a", "b"])
        try budget.take("a", shown: "Everyday", headless: false)
        #expect(throws: APIError.self) { try budget.take("a", shown: "Everyday", headless: false) }
        // Another account has its own four; --force reads anyway.
        try budget.take("b", shown: "Savings", headless: true)
        let forced = EnableBankingBudget(fileURL: folder.url.appendingPathComponent("r.json"), sessionId: "s", forced: true,
                                         now: { clock.withLock { $0 } })
        try forced.take("a", shown: "Everyday", headless: true)
        #expect(forced.used("a", .transactions) == 6)
    }

    /// Reads counted but never sent (the look stopped first, or the bank could not be reached)
    /// are given back, as every process sees the count; the read that went stays, kept in whole
    /// seconds rounded up, so it rolls over a moment late, never early.
    @Test func readsNeverSentAreGivenBack() throws {
        let folder = try TemporaryFolder()
        let clock = Locked(Self.start.addingTimeInterval(0.4))
        let file = folder.url.appendingPathComponent("r.json")
        let budget = EnableBankingBudget(fileURL: file, sessionId: "s", now: { clock.withLock { $0 } })
        let accounts = [(key: "a", shown: "Everyday"), (key: "b", shown: "Savings"), (key: "c", shown: "Card")]
        let decision = budget.takeAll(accounts, headless: true)
        #expect(decision.taken == ["a", "b", "c"])
        budget.giveBack(["b", "c"], takenAt: decision.at)
        let other = EnableBankingBudget(fileURL: file, sessionId: "s", now: { clock.withLock { $0 } })
        #expect(other.used("a", .balances) == 1 && other.used("a", .transactions) == 1)
        #expect(other.used("b", .balances) == 0 && other.used("c", .transactions) == 0)
        clock.withLock { $0 = Self.start.addingTimeInterval(0.4 + 86_400) }
        #expect(other.used("a", .transactions) == 1, "a read rolled over before a whole day")
        clock.withLock { $0 = Self.start.addingTimeInterval(1 + 86_400) }
        #expect(other.used("a", .transactions) == 0)
    }

    /// Headless, a count that cannot be kept (unreadable, or its lock cannot be had) refuses every
    /// account, sending nothing: another process could not see the read. The app goes on.
    @Test func aCountThatCannotBeKeptRefusesHeadless() throws {
        let folder = try TemporaryFolder()
        let accounts = [(key: "a", shown: "Everyday"), (key: "b", shown: "Savings")]
        let file = folder.url.appendingPathComponent("r.json")
        try Data("not a count".utf8).write(to: file)
        let budget = EnableBankingBudget(fileURL: file, sessionId: "s", now: { Self.start })
        let refused = budget.takeAll(accounts, headless: true)
        #expect(refused.taken.isEmpty)
        #expect(refused.refused.map(\.account) == ["a", "b"])
        #expect(refused.refused.first?.error.message == "the read count in \(file.path) cannot be read: nothing was sent (unattended reads must be counted)")
        #expect(budget.takeAll(accounts, headless: false).taken == ["a", "b"])

        let locked = folder.url.appendingPathComponent("l.json")
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("l.lock"), withIntermediateDirectories: true)
        let unlockable = EnableBankingBudget(fileURL: locked, sessionId: "s", now: { Self.start })
        let none = unlockable.takeAll(accounts, headless: true)
        #expect(none.taken.isEmpty && none.refused.count == 2)
        #expect(none.refused.first?.error.message.hasPrefix("the read count cannot be locked") == true)
        #expect(!FileManager.default.fileExists(atPath: locked.path))
    }

    /// Headless, every account of a look is decided at once: one refused refuses them all and
    /// counts nothing; the app takes what it may. A bank limit has a headless line of its own.
    @Test func headlessTakesEveryAccountOrNone() throws {
        let folder = try TemporaryFolder()
        let clock = Locked(Self.start)
        let file = folder.url.appendingPathComponent("r.json")
        let budget = EnableBankingBudget(fileURL: file, sessionId: "s", now: { clock.withLock { $0 } })
        for _ in 0..<4 { try budget.take("a", shown: "Everyday", headless: true) }
        let accounts = [(key: "b", shown: "Savings"), (key: "a", shown: "Everyday"), (key: "c", shown: "Card")]
        let refused = budget.takeAll(accounts, headless: true)
        #expect(refused.taken.isEmpty)
        #expect(refused.refused.map(\.error.message) == ["4 of 4 reads of Everyday used today: --force reads anyway"])
        // Another process finds nothing counted for the others.
        let other = EnableBankingBudget(fileURL: file, sessionId: "s", now: { clock.withLock { $0 } })
        #expect(other.used("b", .balances) == 0 && other.used("c", .transactions) == 0)
        // The app reads the others and says why not the one.
        let app = other.takeAll(accounts, headless: false)
        #expect(app.taken == ["b", "c"])
        #expect(app.refused.map(\.error.message) == ["4 of 4 reads of Everyday used today: r asks whether to read anyway"])
        // --force takes them all.
        let forced = EnableBankingBudget(fileURL: file, sessionId: "s", forced: true, now: { clock.withLock { $0 } })
        #expect(forced.takeAll(accounts, headless: true).taken == ["b", "a", "c"])
        // The bank's limit: no line about what is kept (nothing is shown), forced or not.
        forced.bankLimited("c")
        let limited = forced.takeAll(accounts, headless: true)
        #expect(limited.taken.isEmpty)
        let until = EnableBankingBudget.clock(Self.start.addingTimeInterval(86_400))
        #expect(limited.refused.map(\.error.message) == ["the bank's daily limit of reads of Card is used up until \(until): nothing was sent"])
        #expect(other.takeAll([(key: "c", shown: "Card")], headless: false).refused.map(\.error.message)
                == ["Card: the bank's daily limit of reads is used up until \(until); showing what is kept"])
        #expect(forced.used("b", .balances) == 2)
    }

    /// The bank's 429: nothing is read of that account until its oldest read of the day rolls over.
    @Test func aBankLimitHoldsUntilTheCountRollsOver() throws {
        let folder = try TemporaryFolder()
        let clock = Locked(Self.start)
        let file = folder.url.appendingPathComponent("r.json")
        let budget = EnableBankingBudget(fileURL: file, sessionId: "s", forced: true, now: { clock.withLock { $0 } })
        try budget.take("a", shown: "Everyday", headless: true)
        clock.withLock { $0 = $0.addingTimeInterval(3_600) }
        budget.bankLimited("a")
        // Another process sees it too, forced or not.
        let other = EnableBankingBudget(fileURL: file, sessionId: "s", forced: true, now: { clock.withLock { $0 } })
        #expect(throws: APIError.self) { try other.take("a", shown: "Everyday", headless: true) }
        try other.take("b", shown: "Savings", headless: true)
        clock.withLock { $0 = Self.start.addingTimeInterval(86_401) }
        try other.take("a", shown: "Everyday", headless: true)
    }

    /// A new consent counts afresh; the file names no session id.
    @Test func theCountIsPerConsentAndHoldsNoSecret() throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("r.json")
        let first = EnableBankingBudget(fileURL: file, sessionId: "secret-session-1", now: { Self.start })
        for _ in 0..<4 { try first.take("a", shown: "A", headless: true) }
        #expect(throws: APIError.self) { try first.take("a", shown: "A", headless: true) }
        let second = EnableBankingBudget(fileURL: file, sessionId: "secret-session-2", now: { Self.start })
        try second.take("a", shown: "A", headless: true)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("secret-session"))
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
