@testable import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport
@testable import FeedCache

/// Issue 36, defect 11: what the screen showed last is what the cache shows next. A save into a
/// goal, a quit, the server gone, a start offline: the goal's new balance, and the account's.
@Suite(.timeLimit(.minutes(1))) struct SaveThenOfflineTests {
    @Test func aSavedGoalsBalanceAndTheAccountSurviveARestartOffline() async throws {
        let directory = temporaryDirectory()
        let remote = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: now)), sourceName: "demo")
        let account = Account(id: "acc", name: "Personal", currency: .usd, createdAt: now.addingTimeInterval(-86_400 * 400),
                              holder: "Jane", sortCode: "60-83-71", accountNumber: "12345678",
                              effectiveBalance: Money(minorUnits: 100_000, currency: .usd))
        let balance = Locked(Int64(100_000))
        let gone = Locked(false)
        remote.script { script in
            script.account = {
                if gone.withLock({ $0 }) {
                    throw APIError(kind: .cannotConnect, request: "GET /account", message: "GET /account: cannot connect to 127.0.0.1:9")
                }
                var current = account
                current.effectiveBalance = Money(minorUnits: balance.withLock { $0 }, currency: .usd)
                return current
            }
        }
        let saved: Goal
        let shownAccount: Account?
        do {
            let api = CachingSavingsAPI(remote: remote, cache: try openCache(directory), now: { now })
            let goals = try await api.goals()
            #expect(try await api.account()?.effectiveBalance?.minorUnits == 100_000)
            let dog = try #require(goals.first { $0.status == .active })
            saved = try await api.transfer(goalId: dog.id, transferId: UUID(), amount: Money(minorUnits: 245, currency: .usd), attempt: .init(week: "2026-W47", resent: false))
            #expect(saved.balance.minorUnits == dog.balance.minorUnits + 245)
            balance.withLock { $0 -= 245 }
            // The app asks for the account again after money moved: the header shows it.
            shownAccount = try await api.account()
            let created = try await api.createGoal(name: "Kite", target: nil)
            #expect(created.name == "Kite")
        }
        remote.script { $0.unreachable = Set(FakeSavingsAPI.Endpoint.allCases) }
        gone.withLock { $0 = true }
        let offline = CachingSavingsAPI(remote: remote, cache: try openCache(directory), now: { now.addingTimeInterval(60) })
        let goals = try await offline.goals()
        #expect(offline.connectivity.isOffline)
        #expect(goals.first { $0.id == saved.id }?.balance == saved.balance)
        #expect(goals.contains { $0.name == "Kite" })
        #expect(try await offline.account() == shownAccount)
        #expect(shownAccount?.effectiveBalance == Money(minorUnits: 99_755, currency: .usd))
    }
}
