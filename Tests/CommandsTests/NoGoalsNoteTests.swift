import Commands
import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport

/// `goals` on a source that cannot create goals and lists none says where its goals come from
/// (SimpleFIN: the config file's setting), once, on stderr; a source with goals says nothing.
@Suite struct NoGoalsNoteTests {
    @Test(arguments: [true, false]) func theNoteNamesTheSetting(empty: Bool) async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)))
        if empty { api.script { $0.goals = { [] } } }
        let notes = Locked<[String]>([])
        var context = CommandContext(api: api, sourceKind: "fake", currency: .usd, format: .table, output: CapturedOutput().sink(),
                                     note: { line in notes.withLock { $0.append(line) } })
        context.noGoalCreation = "goals are the accounts named in the config file's [fake] goals"
        try await GoalsListing.run(context)
        let said = notes.withLock { $0 }
        #expect(said == (empty ? ["no goals: goals are the accounts named in the config file's [fake] goals"] : []))
    }
}
