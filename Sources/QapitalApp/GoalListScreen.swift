import FeedModel
import TermImage
import TermUI

/// Tab 1: the active goals, and beside them on a wide terminal the selected goal's summary.
@MainActor
final class GoalListScreen: TabScreen, ListScreen {
    nonisolated static let title = "Goals"
    /// Columns from which the summary stands beside the list.
    static let splitWidth = 100

    var model = ListModel()

    init() {}

    /// The goals in server order; the filter finds a goal by its name.
    func rows(_ data: ScreenData) -> [Goal] { data.goals.goals }
    func matches(_ goal: Goal, filter: String, _ data: ScreenData) -> Bool { goal.name.localizedCaseInsensitiveContains(filter) }
    func identity(_ goal: Goal) -> AnyHashable { goal.id }

    func start(_ data: ScreenData) -> [Command] { [.loadGoals] }

    func handle(_ key: Key, action: AppAction?, _ data: ScreenData) -> Outcome {
        guard let action else { return .ignored }
        if navigate(action, data) { return .consumed }
        switch action {
        case .open:
            guard let goal = selectedRow(data) else { return .consumed }
            return .run([.loadGoalFeed(goal.id)], then: .push(GoalDetailScreen(goalId: goal.id)))
        case .newGoal:
            return NewGoalForm.open(data)
        default:
            return .ignored
        }
    }

    func refresh(_ data: ScreenData) -> [Command] { [.loadGoals] }

    func people(_ data: ScreenData) -> UserPopup? {
        guard let goal = selectedRow(data) else { return nil }
        return UserPopup(people: [goal.ownerId] + goal.connectedUserIds, startingAt: goal.connectedUserIds.first)
    }

    func receive(_ event: StoreEvent, _ data: ScreenData) -> [Command] {
        // A goal the user just created is selected.
        if case .goalCreated(let goal) = event { select(goal.id, data) }
        return []
    }

    func shown(_ data: ScreenData) -> Shown {
        let goals = visible(data)
        var shown = Shown()
        for index in list.visibleRange(count: goals.count) {
            let goal = goals[index]
            for id in [goal.ownerId] + goal.connectedUserIds { shown.add(user: id, data.users, avatar: false) }
            shown.add(picture: goal.imageURL)
        }
        return shown
    }

    func draw(into buffer: inout CellBuffer, area: Rect, _ data: ScreenData) -> Layout {
        var list = self.list
        let goals = visible(data)
        Self.render(goals: goals, filter: filter, list: &list, store: data.goals, users: data.users, colors: data.colors, images: data.images,
                    noGoalCreation: data.noGoalCreation,
                    keys: data.keys, into: &buffer, area: area)
        return Layout(area: area, list: list, failureShown: goals.isEmpty ? data.goals.status.failureMessage : nil)
    }

    func laidOut(_ layout: Layout, _ data: ScreenData) { list = layout.list ?? list }

    @MainActor
    static func render(goals: [Goal], filter: String, list: inout ListState, store: any GoalsReading, users: any UsersReading, colors: Bool,
                       images: (any PicturesReading)? = nil, noGoalCreation: String? = nil, keys: KeyLabels = .defaults,
                       into buffer: inout CellBuffer, area: Rect) {
        list.clamp(count: goals.count)
        if goals.isEmpty {
            drawEmpty(store: store, filter: filter, keys: keys, noGoalCreation: noGoalCreation, into: &buffer, area: area)
            return
        }
        var listArea = area
        if area.width >= splitWidth {
            let split = area.splitHorizontally(leftWidth: max(62, area.width * 3 / 5), gap: 1)
            listArea = split.left
            let goal = goals[min(list.selected, goals.count - 1)]
            drawSummary(goal, users: users, colors: colors, images: images, keys: keys, into: &buffer, area: split.right)
        }
        let columns = AmountColumns(goals)
        let view = ListView()
        let drawn = view.draw(into: &buffer, rect: listArea, count: goals.count, state: &list) { buffer, index, row, _ in
            drawRow(goals[index], users: users, colors: colors, filter: filter, images: images, columns: columns,
                    into: &buffer, row: row)
        }
        // The selection overlay recolours the row; the selected thumbnail is drawn again on top.
        if images != nil, drawn.contains(list.selected) {
            let y = listArea.y + list.selected - drawn.lowerBound
            Pictures.draw(goals[list.selected].imageURL, images: images, columns: Pictures.rowSize.columns,
                          rows: Pictures.rowSize.rows, into: &buffer, x: listArea.x, y: y, clip: listArea)
        }
    }

    /// `noGoalCreation`: a source that cannot create goals says where its goals come from instead.
    private static func drawEmpty(store: any GoalsReading, filter: String, keys: KeyLabels, noGoalCreation: String? = nil,
                                  into buffer: inout CellBuffer, area: Rect) {
        let message: (String, Style)
        switch store.status {
        case .idle, .loading:
            message = ("Loading goals…", Style(fg: .role(.muted)))
        case .failed(let error):
            message = ("✗ \(error) — press \(keys[.refresh]) to retry", Style(fg: .role(.error)))
        case .loaded:
            message = filter.isEmpty ? (noGoalCreation.map { "No goals. " + $0 } ?? "No active goals yet.", Style(fg: .role(.muted)))
                : ("No goal matches “\(filter)”. Esc clears the filter.", Style(fg: .role(.muted)))
        }
        // Wrapped, so a long one (a source saying where its goals come from) is read whole.
        for (index, line) in SpanWrap.wrap([Span(message.0, message.1)], width: max(1, area.width - 2)).prefix(max(0, area.height - 1)).enumerated() {
            buffer.write(line, x: area.x + 1, y: area.y + 1 + index, maxWidth: area.width - 2)
        }
    }

    /// A coloured block with the goal's initials (or reverse video without colour).
    static func monogramSpan(_ goal: Goal, width: Int, colors: Bool) -> Span {
        Pictures.monogramSpan(initials: DisplayFormat.monogram(goal.name), name: goal.name, tint: goal.tint, width: width, colors: colors)
    }

    /// The widths of the amount columns, from every goal listed, so amounts line up and none is cut.
    struct AmountColumns {
        var saved = 11
        var target = 15
        /// The longest name, up to `preferredNameWidth`: the room a name keeps before the bar takes it.
        var name = 0

        init() {}

        init(_ goals: [Goal]) {
            for goal in goals { self = AmountColumns(goal: goal, atLeast: self) }
        }

        /// `columns`, widened where this goal's amounts need more.
        init(goal: Goal, atLeast columns: AmountColumns) {
            saved = max(columns.saved, TextWidth.of(goal.balance.formatted))
            target = max(columns.target, TextWidth.of(GoalListScreen.targetText(goal)))
            name = max(columns.name, min(GoalListScreen.preferredNameWidth, TextWidth.of(goal.name)))
        }
    }

    nonisolated static func targetText(_ goal: Goal) -> String { goal.target.map { " of \($0.formatted)" } ?? " no target" }

    /// The fewest cells the name keeps while the columns beside it are drawn.
    nonisolated static let minimumNameWidth = 6
    /// The cells a name keeps, where it is that long, before the bar takes room (the demo's
    /// names are whole at 80 columns, and so in the list beside the summary at 100).
    nonisolated static let preferredNameWidth = 16

    /// The bar column's widths, the two cells before it included: the full bar, a short one, the
    /// percentage alone.
    nonisolated static let barWidths = (full: 16, short: 12, percentage: 7)

    /// Which columns a row of `width` cells shows (`bar`: the bar column's cells, 0 for none): the
    /// saved amount always; as the row narrows the people go first, then the bar shortens to a
    /// short one, then to the percentage alone, then goes while names would be cut (the summary
    /// beside the list shows the selected goal's), then the target while that keeps names whole,
    /// then the name gives way down to `minimumNameWidth`, then the target, then the bar.
    nonisolated static func layout(width: Int, columns: AmountColumns) -> (target: Bool, bar: Int, people: Bool) {
        let (bar, people) = (barWidths.full, 15)
        func needed(_ choice: (target: Bool, bar: Int, people: Bool)) -> Int {
            columns.saved + (choice.target ? columns.target : 0) + choice.bar + (choice.people ? people : 0)
        }
        // Names whole: the people, then the bar give way first (shortened before it goes; below 60 columns never short).
        let whole: [(target: Bool, bar: Int, people: Bool)] = [
            (true, bar, true), (true, bar, false), (true, barWidths.short, false), (true, barWidths.percentage, false), (true, 0, false),
            // Then the target: a name the user chose matters more than "of $1,500.00" (issue 50, item 12).
            (false, 0, false),
        ]
        for choice in whole {
            if choice.people && width < 80 || choice.bar > 0 && choice.bar < bar && width < 60 { continue }
            if needed(choice) <= width - 5 - 1 - max(minimumNameWidth, columns.name) { return choice }
        }
        let room = width - 5 - 1 - minimumNameWidth
        let choices: [(target: Bool, bar: Int, people: Bool)] = [
            (true, bar, true), (true, bar, false), (false, bar, false),
            // Below 60 columns there is never a bar: the target stays while it fits.
            (true, 0, false), (false, 0, false),
        ]
        for choice in choices {
            if choice.bar > 0 && width < 60 || choice.bar == 0 && choice.target && width >= 60 { continue }
            if choice.people && width < 80 { continue }
            if needed(choice) <= room { return choice }
        }
        return (false, 0, false)
    }

    /// The bar column's runs, `width` cells after its two-cell gap: a bar with the percentage, or
    /// where the bar would be too short to read, the percentage alone; blank without a target.
    nonisolated static func progressSpans(_ goal: Goal, width: Int) -> [Span] {
        guard let fraction = goal.progress else { return [Span(String(repeating: " ", count: width))] }
        let bar = ProgressBar(fraction: fraction)
        if width >= 10 { return bar.spans(width: width) }
        return [Span(TextWidth.pad("\(bar.percent)%", to: width, alignRight: true), bar.isOver ? bar.overStyle : .plain)]
    }

    @MainActor
    static func drawRow(_ goal: Goal, users: any UsersReading, colors: Bool, filter: String = "", images: (any PicturesReading)? = nil,
                        columns: AmountColumns = AmountColumns(), into buffer: inout CellBuffer, row: Rect) {
        var x = row.x
        x += buffer.write([monogramSpan(goal, width: 4, colors: colors)], x: x, y: row.y, maxWidth: row.width)
        Pictures.draw(goal.imageURL, images: images, columns: Pictures.rowSize.columns, rows: Pictures.rowSize.rows,
                      into: &buffer, x: row.x, y: row.y, clip: row)
        x += 1
        let columns = AmountColumns(goal: goal, atLeast: columns)
        let shown = layout(width: row.width, columns: columns)
        // Right-hand columns, from the right edge inwards; an amount is never cut.
        var right = [Span(DisplayFormat.amountColumn(goal.balance.formatted, to: columns.saved), DisplayFormat.moneyStyle)]
        if shown.target {
            right.append(Span(DisplayFormat.amountColumn(targetText(goal), to: columns.target, alignRight: false),
                              goal.target == nil ? Style(fg: .role(.muted)) : .plain))
        }
        if shown.bar > 0 {
            right += [Span("  ")] + progressSpans(goal, width: shown.bar - 2)
        }
        if shown.people {
            let people = goal.connectedUserIds.prefix(3).map { users.initials(for: $0) }.joined(separator: " ")
            let more = goal.connectedUserIds.count > 3 ? " +\(goal.connectedUserIds.count - 3)" : ""
            right.append(Span("  " + TextWidth.pad(people.isEmpty ? "" : "👥 " + people + more, to: 13), Style(fg: .role(.highlight))))
        }
        let rightWidth = right.reduce(0) { $0 + $1.width }
        let nameWidth = row.maxX - x - rightWidth - 1
        if nameWidth >= minimumNameWidth {
            buffer.write(DisplayFormat.highlighting([Span(DisplayFormat.fitted(goal.name, to: nameWidth), .bold)], filter), x: x, y: row.y,
                         maxWidth: nameWidth)
            buffer.write(right, x: row.maxX - rightWidth, y: row.y)
        } else {
            // Too narrow for columns: name and saved amount only.
            let amount = goal.balance.formatted
            let amountWidth = TextWidth.of(amount)
            let room = max(0, row.maxX - x - amountWidth - 1)
            buffer.write(DisplayFormat.fitted(goal.name, to: room), x: x, y: row.y, maxWidth: room, style: .bold)
            buffer.writeRightAligned(amount, maxX: row.maxX, y: row.y, style: DisplayFormat.moneyStyle)
        }
    }

    @MainActor
    static func drawSummary(_ goal: Goal, users: any UsersReading, colors: Bool, images: (any PicturesReading)? = nil, keys: KeyLabels = .defaults,
                            into buffer: inout CellBuffer, area: Rect) {
        Box.draw(into: &buffer, rect: area, title: goal.name)
        let inner = area.inset(dx: 2, dy: 1)
        var y = inner.y
        let width = inner.width
        func line(_ spans: [Span]) {
            guard y < inner.maxY else { return }
            buffer.write(spans, x: inner.x, y: y, maxWidth: width)
            y += 1
        }
        if images != nil {
            // The picture, 16×8 cells (16×16 pixels) where there is room, else half that.
            let rows = inner.height >= 24 ? 8 : 4
            let rect = inner.rows([.length(rows)])[0].columns([.length(rows * 2)])[0]
            if !Pictures.draw(goal.imageURL, images: images, columns: rows * 2, rows: rows, into: &buffer,
                              x: rect.x, y: rect.y, clip: rect) {
                Pictures.monogramBlock(goal.name, tint: goal.tint, colors: colors, rect: rect, into: &buffer)
            }
            y += rows
        } else {
            // One block of two lines, its letters once.
            Pictures.monogramBlock(goal.name, tint: goal.tint, colors: colors, rect: inner.rows([.length(2)])[0].columns([.length(8)])[0],
                                   into: &buffer)
            y += 2
        }
        y += 1
        line([Span("Saved  ", Style(fg: .role(.muted))), Span(goal.balance.formatted, DisplayFormat.moneyStyle.adding(.bold))])
        if let target = goal.target {
            line([Span("Target ", Style(fg: .role(.muted))), Span(target.formatted)])
            line(ProgressBar(fraction: goal.progress ?? 0).spans(width: min(width, 30)))
            let left = target - goal.balance
            line([Span(left.minorUnits > 0 ? "\(left.formatted) to go" : "Target reached", Style(fg: .role(.muted)))])
        } else {
            line([Span("No target", Style(fg: .role(.muted)))])
        }
        y += 1
        line([Span("Owner  ", Style(fg: .role(.muted))), Span(users.displayName(for: goal.ownerId))])
        if goal.isShared {
            line([Span("Shared with", Style(fg: .role(.muted)))])
            for id in goal.connectedUserIds {
                line([Span("  • " + users.displayName(for: id), Style(fg: .role(.highlight)))])
            }
        }
        if y < inner.maxY - 1 {
            buffer.write("\(keys[.open]): open the goal's savings", x: inner.x, y: inner.maxY - 1, maxWidth: width, style: Style(fg: .role(.muted)))
        }
    }
}
