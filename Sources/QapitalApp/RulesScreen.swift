import FeedModel
import Foundation
import TermUI

/// Tab 6: the savings rules (RULES.md): each rule in words, its goal, the week's figure and where
/// it stands, last week beside it, and the week's total under the limit. `[` `]` move the week;
/// Enter opens a rule (the payments it counted); `s` settles the week's due rules after a
/// confirmation that lists them; `p` pauses or resumes, `x` deletes (asking first), `b` shows
/// what the rule would have moved in each of the last twelve weeks. Every figure is the
/// `RulesBook`'s, the same as `rules` and `rules --save`.
@MainActor
final class RulesScreen: TabScreen, ListScreen {
    nonisolated static let title = "Rules"

    enum Action: String, ScreenAction {
        case previousWeek = "previous-week", nextWeek = "next-week"
        /// (named `save` for the config file, as Round-ups' `s`)
        case settle = "save"
        case pause, delete, backtest
        case add, edit
    }

    nonisolated static let keyMap: KeyMap<AppAction> = {
        var map = KeyMap<AppAction>()
        let section = "Rules"
        map.bind([.left, .char("[")], to: Action.previousWeek, help: "previous week", section: section)
        map.bind([.right, .char("]")], to: Action.nextWeek, help: "next week (up to this week)", section: section)
        map.bind([.char("s")], to: Action.settle, help: "move the week's due rules, once each (asks first)", section: section)
        map.bind([.char("p")], to: Action.pause, help: "pause or resume the selected rule", section: section)
        map.bind([.char("x")], to: Action.delete, help: "delete the selected rule (asks first; its record stays)", section: section)
        map.bind([.char("a")], to: Action.add, help: "add a rule (a form; its last 12 weeks shown before it is kept)", section: section)
        map.bind([.char("e")], to: Action.edit, help: "edit the selected rule (the same form)", section: section)
        map.bind([.char("b")], to: Action.backtest, help: "what the selected rule would have moved in each of the last 12 weeks",
                 section: section)
        return map
    }()

    var model = ListModel()
    private var started = false
    /// Saves already followed by loading what they changed.
    private var savesSeen = 0

    init() {}

    func rows(_ data: ScreenData) -> [RuleLine] { data.rules?.lines ?? [] }
    func identity(_ line: RuleLine) -> AnyHashable { line.rule.name.lowercased() }
    func matches(_ line: RuleLine, filter: String, _ data: ScreenData) -> Bool {
        [line.rule.name, line.words, line.goalName, line.rule.kind.name].contains { $0.localizedCaseInsensitiveContains(filter) }
    }

    func start(_ data: ScreenData) -> [Command] { data.rules == nil ? [] : [.loadRuleTransfers] }

    func appear(_ data: ScreenData) -> [Command] {
        guard !started, data.rules != nil else { return [] }
        started = true
        return [.loadRules]
    }

    func refresh(_ data: ScreenData) -> [Command] { data.rules == nil ? [] : [.loadRules] }

    /// A save finished: the goals, the account, the feeds shown and the Round-ups week (whose
    /// round-up rule shares its key) are loaded again, so every figure agrees.
    func receive(_ event: StoreEvent, _ data: ScreenData) -> [Command] {
        guard event == .rules, let rules = data.rules, rules.saves > savesSeen else { return [] }
        savesSeen = rules.saves
        let feeds = data.goals.goals.filter { data.goals.feed(for: $0.id).status != .idle }.map { Command.loadGoalFeed($0.id) }
        return [.loadGoals, .loadAccount, .loadWeek] + feeds + (data.feed.phase != .idle ? [.refreshActivity] : [])
    }

    func handle(_ key: Key, action: AppAction?, _ data: ScreenData) -> Outcome {
        guard let action else { return .ignored }
        if navigate(action, data) { return .consumed }
        guard let rules = data.rules else { return .ignored }
        switch Action(action) {
        case .previousWeek:
            list.top()
            return .run(.showPreviousRulesWeek)
        case .nextWeek:
            guard rules.canShowNextWeek else { return .consumed }
            list.top()
            return .run(.showNextRulesWeek)
        case .settle:
            return settle(rules, data)
        case .pause:
            guard let line = selectedRow(data) else { return .consumed }
            if let readOnly = rules.readOnlyFile { return .notice("Not changed: \(readOnly).") }
            var file = rules.file
            guard let index = file.rules.firstIndex(where: { $0.name == line.rule.name }) else { return .consumed }
            file.rules[index].paused.toggle()
            return .run(.writeRules(file))
        case .delete:
            guard let line = selectedRow(data) else { return .consumed }
            if let readOnly = rules.readOnlyFile { return .notice("Not deleted: \(readOnly).") }
            var file = rules.file
            file.rules.removeAll { $0.name == line.rule.name }
            return .present(Question(title: "Delete a rule", lines: [
                [Span("Delete "), Span(line.rule.name, .bold), Span(": \(line.words), into \(line.goalName)?")],
                [Span("What it moved stays moved, and its record stays.", Style(fg: .role(.muted)))],
            ], verb: "delete", yes: [.writeRules(file)]))
        case .add, .edit:
            if let readOnly = rules.readOnlyFile { return .notice("Not changed: \(readOnly).") }
            if rules.status == .loading || rules.status == .idle { return .hold("Waiting for the rules… (Esc cancels)") }
            var editing: Rule?
            if Action(action) == .edit {
                guard let line = selectedRow(data) else { return .consumed }
                editing = line.rule
            }
            let calendar = Week.calendar(in: data.timeZone)
            return .present(RuleForm(file: rules.file, editing: editing, goals: data.goals.goals, currency: data.currency,
                                     weekUnderWay: Week(containing: data.format.now(), calendar: calendar).start, calendar: calendar,
                                     preview: { .backtestRule($0, rule: $1) }, keep: { .writeRules($0) }))
        case .backtest:
            guard let line = selectedRow(data) else { return .consumed }
            return .run([.backtestRule(rules.file, rule: line.rule.name)], then: .present(RuleBacktestCard(rule: line.rule.name)))
        case nil: break
        }
        switch action {
        case .open:
            guard let line = selectedRow(data) else { return .consumed }
            let before = rules.lastWeek.first { $0.rule.name == line.rule.name }
            return .present(Self.card(line, lastWeek: before, week: rules.week))
        default:
            return .ignored
        }
    }

    /// `s`: the week shown must be over; the confirmation lists what is due in it (earlier weeks
    /// not yet moved go with it, as `rules --save` catches up).
    private func settle(_ rules: any RulesReading, _ data: ScreenData) -> Outcome {
        if let reason = data.noRuleMoves { return .notice("Nothing is sent from here: \(reason).") }
        guard rules.week <= rules.lastWeekOver else {
            return .notice("The week is under way: rules settle a week once it is over. [ shows last week.")
        }
        // The week is still on its way: `s` and the keys typed after it wait for it (as Round-ups' `s`).
        if rules.status == .loading || rules.status == .idle { return .hold("Waiting for the week's rules… (Esc cancels)") }
        if let failure = rules.status.failureMessage { return .notice("Not saved: \(failure)") }
        let due = rules.lines.filter { $0.status == .due }
        guard !due.isEmpty else { return .notice("Nothing is due in the week of \(RoundUpsScreen.weekLabel(rules.week)).") }
        var lines: [[Span]] = [[Span("Move, once each, in the week of \(RoundUpsScreen.weekLabel(rules.week)):")]]
        let nameWidth = due.map { TextWidth.of($0.rule.name) }.max() ?? 0
        let amountWidth = due.map { TextWidth.of($0.amount?.formatted ?? "") }.max() ?? 0
        for line in due {
            lines.append([Span("  " + TextWidth.pad(line.rule.name, to: nameWidth) + "  ", .bold),
                          Span(DisplayFormat.amountColumn(line.amount?.formatted ?? "", to: amountWidth), DisplayFormat.moneyStyle),
                          Span("  into " + line.goalName)])
        }
        let total = Money.sum(due.compactMap(\.amount?.minorUnits))
        lines.append([Span("In all "), Span(Money(minorUnits: total, currency: data.currency).formatted, DisplayFormat.moneyStyle.adding(.bold)),
                      Span(", under the limit and above the floor; what does not fit waits.")])
        lines.append([Span("Earlier weeks not yet moved are caught up first.", Style(fg: .role(.muted)))])
        return .present(Question(title: "Save the rules' week", lines: lines, verb: "save", yes: [.saveRules(through: rules.week)]))
    }

    /// Enter: the rule in full, the payments it counted in the week shown, the week before.
    static func card(_ line: RuleLine, lastWeek: RuleLine?, week: Week) -> DetailCard {
        var fields = [
            DetailCard.field("Rule", [Span(line.rule.name, .bold)]),
            DetailCard.field("Saves", [Span(line.words)]),
            DetailCard.field("Into", [Span(line.goalName)]),
            DetailCard.field("Week", [Span(RoundUpsScreen.weekLabel(week))]),
            DetailCard.field("Figure", [Span(line.amount?.formatted ?? "nothing", DisplayFormat.moneyStyle)]),
            DetailCard.field("Status", [Span(statusWords(line) + (line.reason.map { " — \($0)" } ?? ""))]),
        ]
        if let lastWeek { fields.append(DetailCard.field("Week before", [Span(statusWords(lastWeek))])) }
        if line.counted.isEmpty {
            fields.append(DetailCard.field("Payments", [Span("none counted", Style(fg: .role(.muted)))]))
        }
        for (index, payment) in line.counted.enumerated() {
            fields.append(DetailCard.field(index == 0 ? "Payments" : "", [Span(payment)]))
        }
        if line.leftOut > 0 {
            fields.append(DetailCard.field("", [Span("\(line.leftOut) in another currency left out", Style(fg: .role(.muted)))]))
        }
        return DetailCard(title: "Rule", fields: fields)
    }

    /// "so far £6.00", "due £6.00", "✓ saved £6.00", "held", "paused", "would save £6.00"; "nothing"
    /// for a zero figure, "—" for a week the rule does not owe (before it started, no month ends).
    static func statusWords(_ line: RuleLine) -> String {
        let amount = line.amount?.formatted ?? ""
        return switch line.status {
        case .underWay, .due, .saved, .readOnly: line.status.word + " " + amount
        case .held, .paused: line.status.word
        case .nothing: line.reason == nil && line.amount?.isZero == true ? line.status.word : "—"
        }
    }

    func draw(into buffer: inout CellBuffer, area: Rect, _ data: ScreenData) -> Layout {
        var list = self.list
        guard let rules = data.rules else {
            buffer.write("No rules here: the command line gave none (docs/rules.md).", x: area.x + 1, y: area.y + 1,
                         maxWidth: area.width - 2, style: Style(fg: .role(.muted)))
            return Layout(area: area, list: list)
        }
        let lines = visible(data)
        let footer = Self.footer(rules, data)
        let parts = area.rows([.length(1), .length(1), .fill(1), .length(footer.isEmpty ? 0 : footer.count + 1)])
        Self.drawHeading(rules, into: &buffer, row: parts[0])
        var failure: String?
        if lines.isEmpty {
            let message: (String, Style)
            switch rules.status {
            case .idle, .loading: message = ("Loading the rules…", Style(fg: .role(.muted)))
            case .failed(let error):
                message = ("✗ \(error) — press \(data.keys[.refresh]) to retry", Style(fg: .role(.error)))
                failure = error
            case .loaded:
                let add = rules.readOnlyFile == nil ? "press \(data.keys[Action.add]) to add one, or " : ""
                message = filter.isEmpty ? ("No rules yet: \(add)write a rules.toml (docs/rules.md) beside the config file.", Style(fg: .role(.muted)))
                    : ("No rule matches “\(filter)”. Esc clears the filter.", Style(fg: .role(.muted)))
            }
            buffer.write(message.0, x: parts[2].x + 1, y: parts[2].y, maxWidth: parts[2].width - 2, style: message.1)
        } else {
            let columns = Columns(width: parts[1].width - 1)
            Self.drawTitles(columns, into: &buffer, row: parts[1])
            model.view.draw(into: &buffer, rect: parts[2], count: lines.count, state: &list) { buffer, index, row, _ in
                let before = rules.lastWeek.first { $0.rule.name == lines[index].rule.name }
                Self.drawRow(lines[index], lastWeek: before, columns: columns, filter: filter, into: &buffer, row: row)
            }
        }
        for (index, line) in footer.enumerated() {
            buffer.write(line, x: parts[3].x + 1, y: parts[3].y + 1 + index, maxWidth: parts[3].width - 2)
        }
        return Layout(area: area, list: list, failureShown: failure)
    }

    func laidOut(_ layout: Layout, _ data: ScreenData) { list = layout.list ?? list }

    /// The columns' widths: the name, the words (what gives way first), the goal, this week, last week.
    struct Columns {
        let name, words, goal, week, last: Int

        init(width: Int) {
            (name, goal, week, last) = width >= 100 ? (14, 14, 18, 18) : width >= 70 ? (12, 10, 16, 14) : (10, 0, 14, 0)
            words = max(0, width - name - goal - week - last - 4)
        }
    }

    private static func drawHeading(_ rules: any RulesReading, into buffer: inout CellBuffer, row: Rect) {
        let muted = Style(fg: .role(.muted))
        let when = rules.isCurrentWeek ? " · this week" : rules.week == rules.lastWeekOver ? " · last week" : ""
        let heading = "Week of " + RoundUpsScreen.weekLabel(rules.week) + when
        // The week keeps its room first: the keys shrink, then go (as on Round-ups).
        let forms = rules.canShowNextWeek ? ["← [ previous · next ] →", "[ ]", ""] : ["← [ previous", "[", ""]
        let room = row.width - 3 - TextWidth.of(heading)
        let keys = forms.first { TextWidth.of($0) <= room } ?? ""
        let keysX = keys.isEmpty ? row.maxX : buffer.writeRightAligned(keys, maxX: row.maxX - 1, y: row.y, style: muted)
        buffer.write(heading, x: row.x + 1, y: row.y, maxWidth: max(0, keysX - row.x - 2), style: Style(fg: .role(.title), attributes: .bold))
    }

    private static func drawTitles(_ columns: Columns, into buffer: inout CellBuffer, row: Rect) {
        var text = " " + TextWidth.pad("RULE", to: columns.name) + " " + TextWidth.pad("SAVES", to: columns.words)
        if columns.goal > 0 { text += " " + TextWidth.pad("GOAL", to: columns.goal) }
        text += " " + TextWidth.pad("THIS WEEK", to: columns.week)
        if columns.last > 0 { text += " " + TextWidth.pad("WEEK BEFORE", to: columns.last) }
        buffer.write(text, x: row.x, y: row.y, maxWidth: row.width, style: Style(fg: .role(.muted), attributes: .bold))
    }

    static func drawRow(_ line: RuleLine, lastWeek: RuleLine?, columns: Columns, filter: String, into buffer: inout CellBuffer, row: Rect) {
        let paused = line.status == .paused
        let base: Style = paused ? Style(fg: .role(.muted)) : .plain
        var x = row.x + 1
        func cell(_ text: String, _ width: Int, _ style: Style) {
            guard width > 0 else { return }
            buffer.write(DisplayFormat.highlighting([Span(TextWidth.truncate(text, to: width), style)], filter), x: x, y: row.y,
                         maxWidth: width)
            x += width + 1
        }
        cell(line.rule.name, columns.name, base.adding(.bold))
        cell(line.words, columns.words, base)
        cell(line.goalName, columns.goal, base)
        let weekStyle: Style = switch line.status {
        case .due: Style(fg: .role(.warning), attributes: .bold)
        case .saved: Style(fg: .role(.moneyIn))
        case .held: Style(fg: .role(.error))
        default: base
        }
        cell(statusWords(line), columns.week, weekStyle)
        cell(lastWeek.map(statusWords) ?? "", columns.last, Style(fg: .role(.muted)))
    }

    /// Under the list: the week's total with the limit, the floor, what the last save said, why
    /// the file cannot be changed, why money cannot move here.
    static func footer(_ rules: any RulesReading, _ data: ScreenData) -> [[Span]] {
        guard rules.status == .loaded else { return [] }
        var lines: [[Span]] = []
        let counted = rules.lines.filter { $0.status != .paused && $0.status != .nothing }.compactMap(\.amount?.minorUnits)
        let total = Money(minorUnits: Money.sum(counted), currency: data.currency)
        var limit = ""
        if let most = rules.file.weeklyLimit {
            limit = most.minorUnits < total.minorUnits ? ", over the \(most.formatted) a week limit: what does not fit waits"
                : " (at most \(most.formatted) a week)"
        }
        lines.append([Span("The week's rules come to "), Span(total.formatted, DisplayFormat.moneyStyle.adding(.bold)), Span(limit)])
        if let floor = rules.file.keepAtLeast { lines.append([Span("Never below \(floor.formatted) in the account.")]) }
        if rules.isSaving { lines.append([Span("Saving…", Style(fg: .role(.muted)))]) }
        if let report = rules.report {
            let style = report.failed ? Style(fg: .role(.error)) : Style(fg: .role(.moneyIn))
            lines += report.lines.suffix(3).map { [Span($0, style)] }
        }
        if let problem = rules.writeProblem { lines.append([Span("✗ " + problem, Style(fg: .role(.error)))]) }
        if let reason = data.noRuleMoves { lines.append([Span("Would save: \(reason)", Style(fg: .role(.muted)))]) }
        if let readOnly = rules.readOnlyFile { lines.append([Span("These rules: \(readOnly).", Style(fg: .role(.muted)))]) }
        return lines
    }
}

/// `b` on a rule: what it would have moved in each of the last twelve weeks, a bar a week, the
/// total, and the weeks the weekly limit would have held it. Any key closes it.
@MainActor
final class RuleBacktestCard: Overlay {
    nonisolated static var help: [HelpEntry] { [] }
    let rule: String

    init(rule: String) {
        self.rule = rule
    }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome { key == .resize ? .consumed : .close() }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        Modal(title: "\(rule): the last 12 weeks", lines: Self.lines(rule, data), footer: "any key closes").draw(into: &buffer, in: area)
    }

    static func lines(_ rule: String, _ data: ScreenData) -> [[Span]] {
        guard let backtest = data.rules?.backtest, backtest.rule == rule else { return [[Span("Working it out…", Style(fg: .role(.muted)))]] }
        switch backtest.weeks {
        case .failure(let problem):
            return [[Span("✗ " + problem.message, Style(fg: .role(.error)))]]
        case .success(let weeks):
            let largest = max(1, weeks.compactMap { $0.amount?.minorUnits }.max() ?? 1)
            var lines: [[Span]] = weeks.map { week in
                let amount = week.amount?.minorUnits ?? 0
                let bar = String(repeating: "█", count: amount == 0 ? 0 : max(1, Int(amount * 20 / largest)))
                return [Span(week.week.isoLabel + "  "), Span(DisplayFormat.amountColumn(week.amount?.formatted ?? "–", to: 10), DisplayFormat.moneyStyle),
                        Span("  " + TextWidth.pad(bar, to: 20), Style(fg: .role(.accent))),
                        Span(week.held ? "  held by the weekly limit" : "", Style(fg: .role(.warning)))]
            }
            let moved = Money.sum(weeks.filter { !$0.held }.compactMap(\.amount?.minorUnits))
            lines.append([])
            lines.append([Span("In all "), Span(Money(minorUnits: moved, currency: data.currency).formatted, DisplayFormat.moneyStyle.adding(.bold)),
                          Span(" in \(weeks.count) weeks" + (weeks.contains(where: \.held) ? "; the held weeks would have waited" : ""))])
            lines.append([Span("The floor is not replayed: no source gives past balances.", Style(fg: .role(.muted)))])
            return lines
        }
    }
}

/// The Rules tab's own effects.
extension Command {
    static let loadRules = Command("load-rules") { $0.stores.rules?.load() }
    /// The records' transfers alone, for a goal's feed's labels.
    static let loadRuleTransfers = Command("load-rule-transfers") { $0.stores.rules?.loadTransfers() }
    static let showPreviousRulesWeek = Command("show-previous-rules-week") { $0.stores.rules?.showPreviousWeek() }
    static let showNextRulesWeek = Command("show-next-rules-week") { $0.stores.rules?.showNextWeek() }
    /// Every due week up to `through`, once each (`rules --save --yes`).
    static func saveRules(through week: Week) -> Command {
        Command("save-rules", week.isoLabel) { $0.stores.rules?.save(through: week) }
    }
    /// The rules file as changed (a rule paused, resumed or deleted).
    static func writeRules(_ file: RulesFile) -> Command {
        Command("write-rules", file) { $0.stores.rules?.write(file) }
    }
    static func backtestRule(_ file: RulesFile, rule: String) -> Command {
        Command("backtest-rule", rule) { $0.stores.rules?.loadBacktest(file, rule: rule) }
    }
}
