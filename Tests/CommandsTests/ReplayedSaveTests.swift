import Commands
@testable import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport

/// Issue 37.8: a second machine (its own record) sending the week's key the server already
/// applied gets the server's idempotent answer; it says nothing moved, never "saved".
@Suite(.timeLimit(.minutes(1))) struct ReplayedSaveTests {
    @Test func aSecondMachineIsToldNothingMoved() async throws {
        try await withDemoServer(backend: DemoBackend(now: fixedNow)) { server, api in
            let identity = SaveIdentity.forSaving(sourceName: "qapital", baseURL: (await server.baseURL).absoluteString, account: nil)
            func balloons() async throws -> Money { try #require(try await api.goals().first { $0.name == "Balloons" }).balance }
            let before = try await balloons()

            let first = RoundUpSaver(identity: identity, record: MemoryRoundUpRecord())
            let (one, oneOut) = commandContext(api, format: .table, kind: "qapital", saver: first)
            try await RoundUpsCommands.save(one, week: try one.week("last"), goal: "Balloons", dryRun: false, yes: true) { _ in nil }
            #expect(oneOut.value.hasPrefix("saved "), "\(oneOut.value)")
            let after = try await balloons()
            #expect(after > before)

            // Another machine: no record, the same key and amount; the server answers as before.
            let second = RoundUpSaver(identity: identity, record: MemoryRoundUpRecord())
            let (two, twoOut) = commandContext(api, format: .json, kind: "qapital", saver: second)
            try await RoundUpsCommands.save(two, week: try two.week("last"), goal: "Balloons", dryRun: false, yes: true) { _ in nil }
            #expect(twoOut.value.contains("already saved by another run or machine; nothing moved"), "\(twoOut.value)")
            #expect(twoOut.value.contains("\"moved\":false"), "\(twoOut.value)")
            #expect(try await balloons() == after)
            #expect(second.record.parts(week: try two.week("last").isoLabel).first?.state == .savedElsewhere)
        }
    }
}
