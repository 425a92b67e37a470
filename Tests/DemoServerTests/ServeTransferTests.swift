@testable import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport
@testable import DemoServer

/// `POST /savingsgoals/:id/transfers` over HTTP: idempotent by `transferId`, also when the same
/// transfer arrives many times at once.
@Suite struct ServeTransferTests {
    static let goalId: GoalID = 4  // "Graduation": $0 saved

    @Test func theSameTransferSentTwiceMovesMoneyOnce() async throws {
        let backend = DemoBackend(now: fixedNow)
        try await withDemoServer(backend: backend) { _, api in
            let before = try #require(try await api.goals().first { $0.id == ServeTransferTests.goalId })
            let amount = Money(minorUnits: 158, currency: .usd)
            let id = UUID()
            let first = try await api.transfer(goalId: ServeTransferTests.goalId, transferId: id, amount: amount, attempt: .init(week: "2026-W47", resent: false))
            let second = try await api.transfer(goalId: ServeTransferTests.goalId, transferId: id, amount: amount, attempt: .init(week: "2026-W47", resent: false))
            #expect(first.balance == before.balance + amount)
            #expect(second.balance == first.balance)
            #expect(try await api.goals().first { $0.id == ServeTransferTests.goalId }?.balance == before.balance + amount)
            let feed = try await api.feed(goalId: ServeTransferTests.goalId)
            #expect(feed.filter { $0.id == id.uuidString.lowercased() }.count == 1)
        }
    }

    /// A savings rule's transfer names the API's rule of its kind (`savingsRuleId`), and the goal's
    /// feed item carries it (RULES.md: "serve accepts a transfer's savingsRuleId"); a transfer of
    /// no rule of the API's kind, as before, is the round-ups'.
    @Test func aRulesTransferIsFedWithItsSavingsRuleId() async throws {
        let backend = DemoBackend(now: fixedNow)
        try await withDemoServer(backend: backend) { _, api in
            let amount = Money(minorUnits: 400, currency: .usd)
            let coffee = UUID(), weekly = UUID()
            _ = try await api.transfer(goalId: ServeTransferTests.goalId, transferId: coffee, amount: amount,
                                       attempt: .init(week: "2026-W47", resent: false, rule: "coffee", kind: "guilty-pleasure"))
            _ = try await api.transfer(goalId: ServeTransferTests.goalId, transferId: weekly, amount: amount,
                                       attempt: .init(week: "2026-W47", resent: false, rule: "weekly", kind: "set-and-forget"))
            let feed = try await api.feed(goalId: ServeTransferTests.goalId)
            let rules = try await api.rules()
            let guilty = try #require(rules.first { $0.kind == .guiltyPleasure })
            #expect(feed.first { $0.id == coffee.uuidString.lowercased() }?.savingsRuleId == guilty.id)
            #expect(feed.first { $0.id == coffee.uuidString.lowercased() }?.message.plainText.contains("guilty pleasure") == true)
            #expect(feed.first { $0.id == weekly.uuidString.lowercased() }?.savingsRuleId == rules.first { $0.kind == .roundup }?.id)
        }
    }

    @Test func tenConcurrentSendsOfOneTransferMoveMoneyOnce() async throws {
        let backend = DemoBackend(now: fixedNow)
        try await withDemoServer(backend: backend) { server, api in
            let before = await backend.dataset.goals.first { $0.id == ServeTransferTests.goalId }!.balance
            let amount = Money(minorUnits: 2_500, currency: .usd)
            let id = UUID()
            let balances = try await withThrowingTaskGroup(of: Money.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        try await api.transfer(goalId: ServeTransferTests.goalId, transferId: id, amount: amount, attempt: .init(week: "2026-W47", resent: false)).balance
                    }
                }
                var balances: [Money] = []
                for try await balance in group { balances.append(balance) }
                return balances
            }
            #expect(balances == Array(repeating: before + amount, count: 10))
            #expect(await backend.dataset.goals.first { $0.id == ServeTransferTests.goalId }?.balance == before + amount)
            #expect(await server.receivedRequests().filter { $0.method == "POST" }.count == 10)
        }
    }

    @Test func tenConcurrentDifferentTransfersAllLand() async throws {
        let backend = DemoBackend(now: fixedNow)
        try await withDemoServer(backend: backend) { _, api in
            let before = await backend.dataset.goals.first { $0.id == ServeTransferTests.goalId }!.balance
            try await withThrowingTaskGroup(of: Void.self) { group in
                for cents in 1...10 {
                    group.addTask {
                        _ = try await api.transfer(goalId: ServeTransferTests.goalId, transferId: UUID(),
                                                   amount: Money(minorUnits: Int64(cents), currency: .usd), attempt: .init(week: "2026-W47", resent: false))
                    }
                }
                try await group.waitForAll()
            }
            let after = try await api.goals().first { $0.id == ServeTransferTests.goalId }?.balance
            #expect(after == before + Money(minorUnits: 55, currency: .usd))
        }
    }

    @Test func aTransferIdReusedForAnotherAmountIsAConflict() async throws {
        try await withDemoServer { server, api in
            let id = UUID()
            _ = try await api.transfer(goalId: ServeTransferTests.goalId, transferId: id, amount: Money(minorUnits: 100, currency: .usd), attempt: .init(week: "2026-W47", resent: false))
            do {
                _ = try await api.transfer(goalId: ServeTransferTests.goalId, transferId: id, amount: Money(minorUnits: 200, currency: .usd), attempt: .init(week: "2026-W47", resent: false))
                Issue.record("expected a 409")
            } catch let error as APIError {
                #expect(error.kind == .rejected)
                #expect(error.message == "POST /savingsgoals/4/transfers: HTTP 409: transfer id already used for another transfer")
            }
            #expect(await server.receivedRequests().map(\.status) == [200, 409])
        }
    }

    @Test func transfersToUnknownOrDeletedGoalsAreNotFound() async throws {
        try await withDemoServer { _, api in
            for goalId: GoalID in [11, 999] {  // 11 is deleted
                do {
                    _ = try await api.transfer(goalId: goalId, transferId: UUID(), amount: Money(minorUnits: 100, currency: .usd), attempt: .init(week: "2026-W47", resent: false))
                    Issue.record("expected a 404 for goal \(goalId)")
                } catch let error as APIError {
                    #expect(error.kind == .notFound)
                }
            }
        }
    }
}
