import Commands
import DemoData
import FeedModel
import Foundation
import QapitalApp

extension AppOptions {
    /// The Rules tab's book on the app's own API and round-up saver (so the tab, the Round-ups
    /// tab and the commands share one record and one key): the user's rules.toml, written back
    /// by the tab; on the demo without one, the demo's own rules, changed for this run only; a
    /// file that does not read is said by the tab, which then has no rules.
    func rulesBook(_ settings: Settings, api: any SavingsAPI, saver: RoundUpSaver, account: String?, timeZone: TimeZone,
                   environment: [String: String]) -> any RulesBook {
        let calendar = Week.calendar(in: timeZone)
        let currency = settings.currency
        var context = CommandContext(api: api, sourceKind: settings.source.description.name, currency: currency, format: .table,
                                     output: OutputSink { _ in }, calendar: calendar, saver: saver)
        context.rules = roundUpSaver(settings.source, account: account, environment: environment, kind: "rules").record as? any RuleRecord
        context.noMoneyMoves = settings.source.description.noMoneyMoves
        context.noRuleMoves = settings.source.description.noRuleMoves
        context.roundUpStep = settings.roundUpStep
        context.skipped = settings.skippedRecords
        let url = RulesFileTOML.defaultURL(environment: environment)
        var writer: (@Sendable (RulesFile) throws -> Void)?
        if let url {
            writer = { @Sendable file in try RulesFileTOML.write(file, to: url, currency: currency, calendar: calendar) }
        }
        do {
            if let file = try RulesFileTOML.load(path: nil, environment: environment, currency: currency, calendar: calendar) {
                return CommandRulesBook(context: context, file: file, writer: writer)
            }
        } catch {
            return CommandRulesBook(context: context, file: RulesFile(rules: []), writer: nil, readOnlyFile: "the rules file has a problem",
                                    problem: error.message)
        }
        if settings.source.baseURL == nil {
            // The demo's rules, one of each kind: never written to the user's file.
            let demo = DemoRules.file(currency: currency, calendar: calendar, now: Date())
            return CommandRulesBook(context: context, file: demo, writer: { _ in })
        }
        return CommandRulesBook(context: context, file: RulesFile(rules: []), writer: writer,
                                readOnlyFile: "no place for a rules file (no HOME or XDG_CONFIG_HOME)")
    }
}
