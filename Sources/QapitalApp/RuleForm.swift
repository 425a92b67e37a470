import FeedModel
import Foundation
import TermUI

/// The Rules tab's form (`a` adds a rule, `e` edits the selected one): a name, a kind and a goal
/// chosen with ← →, and the kind's own fields. Every field is checked as the file is (the
/// candidate file is read by `RulesFile.read`, so a problem is the file's one line). **Before a
/// rule is kept** the form shows what it would have moved in each of the last twelve weeks (the
/// `RulesBook`'s backtest, the weeks the limit would hold); Enter again keeps it.
@MainActor
final class RuleForm: Overlay {
    enum Action: Sendable { case nextField, previousField, keep, cancel }

    nonisolated static let keyMap: KeyMap<Action> = {
        var map = KeyMap<Action>()
        let section = "Rule form (Rules a, e; ← → choose; other keys type)"
        map.bind([.tab, .down], to: .nextField, help: "next field", section: section)
        map.bind([.backTab, .up], to: .previousField, help: "previous field", section: section)
        map.bind([.enter], to: .keep, help: "check it and show its last 12 weeks; Enter again keeps it", section: section)
        map.bind([.escape], to: .cancel, help: "cancel, close it", section: section)
        return map
    }()
    nonisolated static var help: [HelpEntry] { keyMap.helpEntries }

    /// A field: text typed, or one of a few choices (← →).
    struct Field {
        let key: String
        let label: String
        var input = TextInput()
        var choices: [String] = []
        var choice = 0
        /// Shown muted after it ("optional", "words, comma between").
        var hint = ""

        var value: String { choices.isEmpty ? input.text.trimmingCharacters(in: .whitespaces) : choices[choice] }
    }

    /// The file as it was, and the rule being edited (nil: a new one).
    let file: RulesFile
    let editing: String?
    let currency: Currency
    /// The Monday of the week under way: a new rule (or a renamed one) owes from it on.
    let weekUnderWay: Date
    private(set) var fields: [Field]
    private(set) var focus = 0
    /// The candidate's problem, in the file's words.
    private(set) var problem: String?
    /// The candidate that was checked and whose twelve weeks are shown; Enter again keeps it.
    private(set) var checked: RulesFile?
    /// What the tab does with a checked file: shows the rule's twelve weeks, keeps the file.
    let preview: (RulesFile, String) -> Command
    let keep: (RulesFile) -> Command

    static let kinds = Rule.Kind.names

    init(file: RulesFile, editing rule: Rule?, goals: [Goal], currency: Currency, weekUnderWay: Date, calendar: Calendar,
         preview: @escaping (RulesFile, String) -> Command, keep: @escaping (RulesFile) -> Command) {
        self.file = file
        self.preview = preview
        self.keep = keep
        editing = rule?.name
        self.currency = currency
        self.weekUnderWay = weekUnderWay
        var name = Field(key: "name", label: "Name", input: TextInput(rule?.name ?? ""))
        name.hint = "unique; renaming makes a new rule"
        var kind = Field(key: "kind", label: "Kind", choices: Self.kinds)
        kind.choice = rule.flatMap { Self.kinds.firstIndex(of: $0.kind.name) } ?? 1
        var goal = Field(key: "goal", label: "Goal", choices: goals.map(\.name))
        if let rule { goal.choice = goals.firstIndex { $0.name.caseInsensitiveCompare(rule.goal) == .orderedSame || $0.id.rawValue == rule.goal } ?? 0 }
        fields = [name, kind, goal]
        layOutKind()
        if let rule { fill(from: rule, calendar: calendar) }
    }

    private var kindName: String { fields[1].value }

    /// The kind's own fields after name, kind and goal (RULES.md's table), keeping what was typed.
    private func layOutKind() {
        var typed: [String: Field] = [:]
        for field in fields.dropFirst(3) { typed[field.key] = field }
        func text(_ key: String, _ label: String, _ hint: String) -> Field {
            var field = typed[key] ?? Field(key: key, label: label)
            field.hint = hint
            return field
        }
        let amount = currency.minorDigits > 0 ? "e.g. 2.00" : "e.g. 300"
        let words = "words, a comma between"
        let category = "or the bank's categories, e.g. eating_out"
        var own: [Field]
        switch kindName {
        case "roundup": own = [text("step", "Step", "optional: whole \(currency.code), e.g. 1 or 5")]
        case "guilty-pleasure": own = [text("amount", "Each", amount + " each matching payment"), text("match", "Match", words),
                                       text("category", "Category", category)]
        case "set-and-forget":
            var every = typed["every"] ?? Field(key: "every", label: "Every", choices: ["week", "month"])
            every.hint = "← →"
            own = [text("amount", "Amount", amount), every]
        case "52-week":
            var reverse = typed["reverse"] ?? Field(key: "reverse", label: "Reverse", choices: ["no", "yes"])
            reverse.hint = "yes: week n saves (53 − n) ×"
            own = [text("amount", "Unit", amount + ": week n saves n ×"), text("start", "Start", "a Monday, YYYY-MM-DD"), reverse]
        case "spend-less": own = [text("target", "Target", amount + " a week"), text("match", "Match", words),
                                  text("category", "Category", category)]
        default: own = [text("percent", "Percent", "1 to 100, e.g. 10 or 12.5"), text("match", "Payer", words + " (or a minimum)"),
                        text("minimum", "Minimum", "optional: pay of at least this")]
        }
        fields = Array(fields.prefix(3)) + own
        focus = min(focus, fields.count - 1)
    }

    private func fill(from rule: Rule, calendar: Calendar) {
        func set(_ key: String, _ text: String) {
            guard let index = fields.firstIndex(where: { $0.key == key }) else { return }
            if fields[index].choices.isEmpty { fields[index].input = TextInput(text) } else { fields[index].choice = fields[index].choices.firstIndex(of: text) ?? 0 }
        }
        for (key, value) in RulesFile(rules: [rule]).tree(currency: currency, calendar: calendar)["rule"].flatMap(Self.firstTable) ?? [:] {
            switch value {
            case .string(let text): set(key, text)
            case .integer(let number): set(key, String(number))
            case .bool(let flag): set(key, flag ? "yes" : "no")
            case .date(let year, let month, let day): set(key, String(format: "%04d-%02d-%02d", year, month, day))
            case .array(let items): set(key, items.compactMap { if case .string(let word) = $0 { word } else { nil } }.joined(separator: ", "))
            default: break
            }
        }
    }

    private static func firstTable(_ value: RulesFile.Value) -> [String: RulesFile.Value]? {
        guard case .array(let items) = value, case .table(let fields)? = items.first else { return nil }
        return fields
    }

    /// The rule's fields as the file would hold them.
    func tree(weekUnderWay since: Date, calendar: Calendar, old: Rule?) -> [String: RulesFile.Value] {
        var tree: [String: RulesFile.Value] = [:]
        for field in fields {
            let value = field.value
            switch field.key {
            case "reverse": if value == "yes" { tree["reverse"] = .bool(true) }
            case "match", "category":
                if !value.isEmpty {
                    tree[field.key] = .array(value.split(separator: ",").map { .string($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 != .string("") })
                }
            case "step", "percent": if !value.isEmpty { tree[field.key] = Int64(value).map(RulesFile.Value.integer) ?? .string(value) }
            default: if !value.isEmpty || ["name", "goal"].contains(field.key) { tree[field.key] = .string(value) }
            }
        }
        // A new rule, or a renamed one, owes from the week under way; an edit keeps its start and pause.
        let parts = calendar.dateComponents([.year, .month, .day], from: old?.name == fields[0].value ? old?.since ?? since : since)
        tree["since"] = .date(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
        if old?.name == fields[0].value, old?.paused == true { tree["paused"] = .bool(true) }
        return tree
    }

    /// The whole file with this rule in it (in the edited rule's place, else last), read as the
    /// file is: the file's one line when it does not read.
    func candidate(calendar: Calendar) -> Result<RulesFile, RulesFile.Problem> {
        let old = editing.flatMap { name in file.rules.first { $0.name == name } }
        var top = file.tree(currency: currency, calendar: calendar)
        var rules: [RulesFile.Value] = file.rules.filter { $0.name != editing }.map { rule in
            .table(RulesFile(rules: [rule]).tree(currency: currency, calendar: calendar)["rule"].flatMap(Self.firstTable) ?? [:])
        }
        let mine = RulesFile.Value.table(tree(weekUnderWay: weekUnderWay, calendar: calendar, old: old))
        if let editing, let index = file.rules.firstIndex(where: { $0.name == editing }) { rules.insert(mine, at: index) } else { rules.append(mine) }
        top["rule"] = .array(rules)
        do {
            return .success(try RulesFile.read(top, file: "rules.toml", currency: currency, calendar: calendar))
        } catch {
            return .failure(error)
        }
    }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        switch Self.keyMap.action(for: key) {
        case .cancel:
            return .close()
        case .nextField:
            focus = (focus + 1) % fields.count
        case .previousField:
            focus = (focus + fields.count - 1) % fields.count
        case .keep:
            let calendar = Week.calendar(in: data.timeZone)
            switch candidate(calendar: calendar) {
            case .failure(let found):
                problem = found.message
                checked = nil
            case .success(let file):
                problem = nil
                if let checked, checked == file {
                    return .run([keep(file)], then: .close(notice: editing == nil ? "Added the rule “\(fields[0].value)”."
                                                                     : "Changed the rule “\(fields[0].value)”."))
                }
                checked = file
                return .run(preview(file, fields[0].value))
            }
        case nil:
            edit(key)
        }
        return .consumed
    }

    /// A key for the focused field: ← → choose, the rest types. Any change asks for a new check.
    private func edit(_ key: Key) {
        if fields[focus].choices.isEmpty {
            guard fields[focus].input.handle(key) == .edited else { return }
        } else {
            let count = fields[focus].choices.count
            guard count > 0 else { return }
            switch key {
            case .left: fields[focus].choice = (fields[focus].choice + count - 1) % count
            case .right, .char(" "): fields[focus].choice = (fields[focus].choice + 1) % count
            default: return
            }
            if focus == 1 { layOutKind() }
        }
        (problem, checked) = (nil, nil)
    }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        let muted = Style(fg: .role(.muted))
        let labelWidth = 9, fieldWidth = 26
        var lines: [[Span]] = []
        for field in fields {
            let shown = field.choices.isEmpty ? String(repeating: " ", count: fieldWidth)
                : TextWidth.pad("‹ " + TextWidth.truncate(field.value, to: fieldWidth - 4) + " ›", to: fieldWidth)
            lines.append([Span(TextWidth.pad(field.label, to: labelWidth) + shown + "  "), Span(field.hint, muted)])
        }
        lines.append([])
        if let problem {
            lines.append([Span("✗ " + problem, Style(fg: .role(.error), attributes: .bold))])
        } else if checked != nil {
            lines += RuleBacktestCard.lines(fields[0].value, data)
            lines.append([Span("Enter again keeps it (writes rules.toml, the last one kept as .bak)", Style(attributes: .bold))])
        } else {
            lines.append([Span("Enter: check it and show what it would have moved in the last 12 weeks", muted)])
        }
        lines.append([Span("Tab: next field   ← →: choose   Esc: cancel", muted)])
        let box = area.centered(width: min(area.width, 84), height: min(area.height, lines.count + 2))
        let body = box.inset(dx: 2, dy: 1)
        buffer.fill(box)
        Box.draw(into: &buffer, rect: box, style: Style(fg: .role(.border)), title: editing == nil ? "New rule" : "Edit rule “\(editing ?? "")”")
        for (row, line) in lines.prefix(body.height).enumerated() {
            buffer.write(line, x: body.x, y: body.y + row, maxWidth: body.width)
        }
        let style = Style(attributes: .underline)
        for (row, field) in fields.enumerated() where row < body.height && field.choices.isEmpty {
            field.input.draw(into: &buffer, x: body.x + labelWidth, y: body.y + row, width: fieldWidth, style: style,
                             cursorStyle: row == focus ? Style(attributes: .reverse) : style, focused: row == focus)
        }
        if focus < body.height, !fields[focus].choices.isEmpty {
            let chosen = body.row(focus).columns([.length(labelWidth), .length(fieldWidth)])[1]
            buffer.patch(chosen, with: Style(attributes: .reverse))
            buffer.placeCursor(onTextOf: chosen)
        }
    }
}
