import FeedModel
import Foundation

/// `qapital-tui goals`: name, saved, target, progress and id of every goal.
public enum GoalsListing {
    public static func run(_ context: CommandContext) async throws {
        let goals = try await context.api.goals()
        if goals.isEmpty, let reason = context.noGoalCreation { context.note("no goals: " + reason) }
        let output = context.output
        defer { output.flush() }
        switch context.format {
        case .table:
            let rows = goals.map { goal in
                [goal.name, goal.balance.formatted, goal.target?.formatted ?? "—", progress(goal).map { "\($0)%" } ?? "—",
                 goal.status == .active ? goal.id.rawValue : "\(goal.id.rawValue) (\(goal.status.rawValue))"]
            }
            let layout = TableLayout.fitting([("NAME", false), ("SAVED", true), ("TARGET", true), ("PROGRESS", true), ("ID", false)],
                                             rows: rows)
            layout.header(output)
            for row in rows { output.line(layout.row(row)) }
        case .json:
            output.line("{\"schema\":\"qapital-tui.goals\",\"version\":\(jsonSchemaVersion),\"source\":\(Cell.json(context.sourceKind)),\"goals\":[")
            for (index, goal) in goals.enumerated() {
                let target = goal.target.map(CommandContext.jsonMoney) ?? "null"
                let fields = [
                    "\"id\":\(Cell.json(goal.id.rawValue))",
                    "\"name\":\(Cell.json(goal.name))",
                    "\"status\":\(Cell.json(goal.status.rawValue))",
                    "\"saved\":\(CommandContext.jsonMoney(goal.balance))",
                    "\"target\":\(target)",
                    "\"progressPercent\":\(progress(goal).map(String.init) ?? "null")",
                    "\"ownerId\":\(goal.ownerId)",
                    "\"connectedUserIds\":[\(goal.connectedUserIds.map(String.init).joined(separator: ","))]",
                ]
                output.line("{" + fields.joined(separator: ",") + "}" + (index < goals.count - 1 ? "," : ""))
            }
            output.line("]}")
        case .csv:
            output.line("id,name,status,saved,target,currency,progress_percent")
            for goal in goals {
                output.line([Cell.csv(goal.id.rawValue), Cell.csv(goal.name), Cell.csv(goal.status.rawValue),
                             Cell.decimal(goal.balance), goal.target.map(Cell.decimal) ?? "", goal.balance.currency.code,
                             progress(goal).map(String.init) ?? ""].joined(separator: ","))
            }
        case .ledger:
            throw CommandFailure(.usage, "--output ledger is for activity and export (goals: table, json or csv)")
        }
    }

    /// Whole percent saved of the target, rounded down; nil without a target.
    static func progress(_ goal: Goal) -> Int? {
        guard let target = goal.target, target.minorUnits > 0, target.currency == goal.balance.currency else { return nil }
        let (product, overflow) = goal.balance.minorUnits.multipliedReportingOverflow(by: 100)
        if overflow { return goal.balance.minorUnits > 0 ? Int(Int64.max / target.minorUnits) : 0 }
        return Int(product / target.minorUnits)
    }
}
