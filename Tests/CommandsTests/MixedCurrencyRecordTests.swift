import Commands
@testable import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport

/// Issue 37.4: a week whose record holds transfers in more than one currency (`--currency USD`,
/// then `GBP`, then `USD` again) is a refusal in one line, never a trap, also with `--dry-run`.
@Suite(.timeLimit(.minutes(1))) struct MixedCurrencyRecordTests {
    static func mixedRecord(week: Week) -> MemoryRoundUpRecord {
        let record = MemoryRoundUpRecord()
        for (index, currency) in [Currency.usd, .gbp].enumerated() {
            try? record.keep(SavedRoundUp(key: UUID(), week: week.isoLabel, goalId: 1,
                                          goalName: "Balloons", amount: Money(minorUnits: 100 + Int64(index), currency: currency),
                                          payments: ["p\(index)"], startedAt: fixedNow, state: .saved, savedAt: fixedNow))
        }
        return record
    }

    @Test func aSaveOfAWeekSavedInTwoCurrenciesIsRefusedInOneLine() async throws {
        let api = DemoSavingsAPI(backend: DemoBackend(now: fixedNow))
        for dryRun in [true, false] {
            for currency in [Currency.usd, .gbp, .jpy] {
                let (probe, _) = commandContext(api, format: .table, currency: currency)
                let week = try probe.week("last")
                let saver = RoundUpSaver(identity: SaveIdentity(source: "test", account: "1"), record: Self.mixedRecord(week: week))
                let (context, output) = commandContext(api, format: .table, currency: currency, saver: saver)
                do {
                    try await RoundUpsCommands.save(context, week: week, goal: "Balloons", dryRun: dryRun, yes: true) { _ in nil }
                    Issue.record("saved a week recorded in two currencies: \(output.value)")
                } catch let failure as CommandFailure {
                    #expect(failure.message.contains("USD") && failure.message.contains("GBP"), "\(failure.message)")
                    #expect(!failure.message.contains("\n"))
                }
                // The listing shows the week without trapping either.
                let (list, listOut) = commandContext(api, format: .table, currency: currency, saver: saver)
                try await RoundUpsCommands.list(list, week: week)
                #expect(listOut.value.contains("Round-ups:"))
            }
        }
    }

    @Test func theProgressOfAMixedWeekSaysSoAndHasNoTotal() throws {
        let week = Week(containing: fixedNow, calendar: Week.calendar(in: .gmt)).previous
        let saver = RoundUpSaver(identity: SaveIdentity(source: "test", account: "1"), record: Self.mixedRecord(week: week))
        let summary = RoundUp.Summary(transactions: [], accountCurrency: .usd)
        let progress = saver.progress(week: week, summary: summary, now: fixedNow)
        #expect(progress.savedTotal == nil)
        let problem = try #require(progress.currencyProblem)
        #expect(problem.contains("USD") && problem.contains("GBP"))
    }
}
