import Foundation
import FeedModel
import TermImage
import TermUI

/// A goal opened with Enter: its header, then its feed newest first. Pushed on the Goals tab.
@MainActor
final class GoalDetailScreen: ListScreen {
    nonisolated static let title = "Goal"
    /// Its own keys: the chart shown or hidden, the selected saving in a card.
    enum Action: String, ScreenAction {
        case toggleChart = "toggle-chart"
        case details
    }

    nonisolated static let keyMap: KeyMap<AppAction> = {
        var map = KeyMap<AppAction>()
        map.bind([.char("c")], to: Action.toggleChart, help: "show or hide the balance chart (shown when the height allows)", section: "Goal")
        map.bind([.char("i")], to: Action.details, help: "the selected saving in full, its message whole", section: "Goal")
        return map
    }()
    let goalId: GoalID
    /// The feed; its `newAbove` counts savings a reload put above the selection.
    var model = ListModel()
    /// The balance chart above the feed, where the height allows (`c` hides and shows it).
    var showsChart = true
    /// The saving the cursor is on, to find it again when the feed is loaded anew.
    private var selectedEntry: FeedEntry?

    init(goalId: GoalID) {
        self.goalId = goalId
    }

    /// The goal's savings, newest first; the filter finds the message, the saver and the rule.
    func rows(_ data: ScreenData) -> [FeedEntry] { data.goals.feed(for: goalId).entries }
    func identity(_ entry: FeedEntry) -> AnyHashable { entry }
    func matches(_ entry: FeedEntry, filter: String, _ data: ScreenData) -> Bool {
        entry.item.message.plainText.localizedCaseInsensitiveContains(filter)
            || data.users.displayName(for: entry.item.userId).localizedCaseInsensitiveContains(filter)
            || (entry.rule?.kind.label.localizedCaseInsensitiveContains(filter) ?? false)
    }

    private func entries(_ data: ScreenData) -> [FeedEntry] { visible(data) }

    func handle(_ key: Key, action: AppAction?, _ data: ScreenData) -> Outcome {
        guard let action else { return .ignored }
        let entries = entries(data)
        if navigate(action, data) {
            selectedEntry = selectedRow(data)
            return .consumed
        }
        switch Action(action) {
        case .toggleChart:
            showsChart.toggle()
            return .consumed
        case .details:
            guard list.selected < entries.count else { return .consumed }
            return .present(Self.card(entries[list.selected], data))
        case nil: break
        }
        switch action {
        // Enter shows the selected saving whole, as on every list (`u` shows its people).
        case .open:
            guard list.selected < entries.count else { return .consumed }
            return .present(Self.card(entries[list.selected], data))
        case .back, .quit: return .pop
        case .newGoal: return NewGoalForm.open(data)
        default: return .ignored
        }
    }

    func select(_ selection: AnyHashable, _ data: ScreenData) {
        let entries = entries(data)
        list.select(entries.firstIndex { AnyHashable($0) == selection }, count: entries.count)
        selectedEntry = selectedRow(data)
    }

    /// A saving in full: when, what (the message whole), how much, who, by which rule.
    static func card(_ entry: FeedEntry, _ data: ScreenData) -> DetailCard {
        let item = entry.item
        var fields = [
            DetailCard.field("When", [Span(data.format.shortDate(item.timestamp) + " " + data.format.time(item.timestamp))]),
            DetailCard.field("What", DisplayFormat.spans(item.message)),
            DetailCard.field("Amount", [Span(item.amount.formatted, DisplayFormat.moneyStyle)]),
            DetailCard.field("Who", [Span(data.users.name(for: item.userId, holder: PeopleRoster.holder(of: data.goals.goals)))]),
        ]
        if let rule = entry.rule { fields.append(DetailCard.field("Rule", [Span(rule.kind.label)])) }
        return DetailCard(title: "Saving", fields: fields)
    }

    func refresh(_ data: ScreenData) -> [Command] { [.loadGoalFeed(goalId)] }

    /// The feed loaded anew (r, a save into the goal): at the top the cursor stays at the top, on
    /// the newest; lower down it stays on its saving, and the savings that came above it are
    /// counted ("N new ↑"), as on the Activity tab.
    func receive(_ event: StoreEvent, _ data: ScreenData) -> [Command] {
        guard case .goalFeed(let id) = event, id == goalId else { return [] }
        let entries = entries(data)
        if list.selected > 0, let before = selectedEntry, let index = entries.firstIndex(where: { Self.same($0, before) }),
           index != list.selected {
            let moved = index - list.selected
            list.offset = max(0, list.offset + moved)
            list.selected = index
            if moved > 0 { model.newAbove += moved }
        }
        selectedEntry = list.selected < entries.count ? entries[list.selected] : nil
        return []
    }

    /// One saving in two answers: the same but for the id, which a server may make anew each time.
    static func same(_ a: FeedEntry, _ b: FeedEntry) -> Bool {
        a.item.timestamp == b.item.timestamp && a.item.amount == b.item.amount && a.item.userId == b.item.userId
            && a.item.message == b.item.message
    }

    func people(_ data: ScreenData) -> UserPopup? {
        guard let goal = data.goals.goal(id: goalId) else { return nil }
        let entries = entries(data)
        let saver = list.selected < entries.count ? entries[list.selected].item.userId : nil
        // The goal's people in their order (owner first), opened at the saver; one who saved into
        // it and is no longer among them comes last.
        return UserPopup(people: [goal.ownerId] + goal.connectedUserIds + (saver.map { [$0] } ?? []), startingAt: saver)
    }

    func shown(_ data: ScreenData) -> Shown {
        var shown = Shown()
        guard let goal = data.goals.goal(id: goalId) else { return shown }
        for id in [goal.ownerId] + goal.connectedUserIds { shown.add(user: id, data.users, avatar: false) }
        shown.add(picture: goal.imageURL)
        let entries = entries(data)
        for index in list.visibleRange(count: entries.count) { shown.add(user: entries[index].item.userId, data.users, avatar: false) }
        return shown
    }

    func draw(into buffer: inout CellBuffer, area: Rect, _ data: ScreenData) -> Layout {
        var list = self.list
        Self.render(state: self, entries: entries(data), ruleLabels: data.derived.ruleLabels(goal: goalId, data), list: &list, store: data.goals, users: data.users, format: data.format, colors: data.colors,
                    images: data.images, calendar: Week.calendar(in: data.timeZone), keys: data.keys,
                    into: &buffer, area: area)
        let failure = data.goals.goal(id: goalId) != nil && entries(data).isEmpty ? data.goals.feed(for: goalId).status.failureMessage : nil
        return Layout(area: area, list: list, failureShown: failure)
    }

    func laidOut(_ layout: Layout, _ data: ScreenData) {
        list = layout.list ?? list
        let entries = entries(data)
        selectedEntry = list.selected < entries.count ? entries[list.selected] : nil
        if list.offset == 0 { model.newAbove = 0 }  // the new savings are in sight
    }

    /// The goal an activity or saving names: one of its bold words is a goal's name.
    static func goal(namedIn message: MarkupText, _ goals: [Goal]) -> Goal? {
        let bold = Set(message.runs.filter(\.isBold).map(\.text))
        return goals.first { bold.contains($0.name) }
    }

    /// Opens a goal (its feed loaded if it never was), at `item` when given; pushed on the tab shown.
    static func open(_ goalId: GoalID, _ data: ScreenData, at item: FeedItem? = nil) -> Outcome {
        guard data.goals.goal(id: goalId) != nil else { return .notice("That goal is no longer there.") }
        let detail = GoalDetailScreen(goalId: goalId)
        if let item, let index = data.goals.feed(for: goalId).entries.firstIndex(where: { $0.item == item }) {
            detail.list.selected = index
        }
        let load: [Command] = data.goals.feed(for: goalId).status == .idle ? [.loadGoalFeed(goalId)] : []
        return .run(load, then: .push(detail))
    }

    /// Rows of the compact header above the feed (`GoalDetailHeader` has the large one).
    static let headerHeight = 5

    @MainActor
    static func render(state: GoalDetailScreen, entries: [FeedEntry], ruleLabels labels: [String: String] = [:], list: inout ListState, store: any GoalsReading, users: any UsersReading, format: DisplayFormat,
                       colors: Bool, images: (any PicturesReading)? = nil, calendar: Calendar = Week.calendar(in: .current), keys: KeyLabels = .defaults,
                       into buffer: inout CellBuffer, area: Rect) {
        guard let goal = store.goal(id: state.goalId) else {
            buffer.write("This goal is no longer there. Esc goes back.", x: area.x + 1, y: area.y + 1,
                         maxWidth: area.width - 2, style: Style(fg: .role(.muted)))
            return
        }
        let feed = store.feed(for: goal.id)
        var body: Rect
        switch GoalDetailHeader.layout(area: area, pictures: images != nil, chart: state.showsChart, cellPixels: images?.cellPixels,
                                       aspect: images?.aspectRatio(for: goal.imageURL)) {
        case .large(let photo, let text, let chart, let height):
            GoalDetailHeader.draw(goal, photo: photo, text: text, height: height, users: users, colors: colors, images: images,
                                  into: &buffer, area: area)
            // The chart beside the photo, under the text; its rule is the header's.
            GoalChart.draw(goal: goal, feed: feed.entries.map(\.item), now: format.now(), calendar: calendar, format: format,
                           into: &buffer, rect: chart)
            body = area.rows([.length(height), .fill(1)])[1]
        case .compact:
            let parts = area.rows([.length(headerHeight), .fill(1)])
            drawHeader(goal, users: users, colors: colors, images: images, into: &buffer, area: parts[0])
            body = parts[1]
            guard body.height > 0 else { return }
            // The chart, where the height allows: the whole feed's balance, whatever the filter.
            let chartHeight = state.showsChart ? GoalChart.height(bodyHeight: body.height) : 0
            if chartHeight > 0, GoalChart.draw(goal: goal, feed: feed.entries.map(\.item), now: format.now(), calendar: calendar, format: format,
                                               into: &buffer, rect: body.top(chartHeight)) {
                body = body.rows([.length(chartHeight), .fill(1)])[1]
            }
        }
        list.clamp(count: entries.count)
        if entries.isEmpty {
            let message: (String, Style)
            switch feed.status {
            case .idle, .loading: message = ("Loading savings…", Style(fg: .role(.muted)))
            case .failed(let error): message = ("✗ \(error) — press \(keys[.refresh]) to retry", Style(fg: .role(.error)))
            case .loaded:
                message = state.filter.isEmpty ? ("Nothing saved into this goal yet.", Style(fg: .role(.muted)))
                    : ("Nothing matches “\(state.filter)”. Esc clears the filter.", Style(fg: .role(.muted)))
            }
            buffer.write(message.0, x: body.x + 1, y: body.y, maxWidth: body.width - 2, style: message.1)
            return
        }
        // What a savings rule of the user's moved, named from the records (a bank says no rule).
        state.model.view.draw(into: &buffer, rect: body, count: entries.count, state: &list) { buffer, index, row, _ in
            drawEntry(entries[index], users: users, format: format, filter: state.filter, holder: PeopleRoster.holder(of: store.goals),
                      ruleLabel: labels[entries[index].item.id], into: &buffer, row: row)
        }
    }

    @MainActor
    static func drawHeader(_ goal: Goal, users: any UsersReading, colors: Bool, images: (any PicturesReading)? = nil,
                           into buffer: inout CellBuffer, area: Rect) {
        guard area.height > 0 else { return }
        if images != nil, area.height >= headerHeight, area.width >= 40 {
            // The picture, 8×4 cells (8×8 pixels), left of the text; the rule stays below both.
            // The picture, a column, the text; the rule under both.
            let columns = area.columns([.length(8), .length(1), .fill(1)])
            let picture = columns[0].rows([.length(headerHeight - 1)])[0]
            if !Pictures.draw(goal.imageURL, images: images, columns: picture.width, rows: picture.height,
                              into: &buffer, x: picture.x, y: picture.y, clip: picture) {
                Pictures.monogramBlock(goal.name, tint: goal.tint, colors: colors, rect: picture, into: &buffer)
            }
            let text = columns[2].rows([.length(headerHeight - 2)])[0]
            drawHeaderText(goal, users: users, into: &buffer, area: text, x: text.x)
            buffer.write(String(repeating: "─", count: area.width), x: area.x, y: area.y + headerHeight - 1, style: Style(fg: .role(.border)))
            return
        }
        var x = area.x
        x += buffer.write([GoalListScreen.monogramSpan(goal, width: 4, colors: colors)], x: x, y: area.y, maxWidth: area.width)
        drawHeaderText(goal, users: users, into: &buffer, area: area, x: x + 1)
        if area.height > 3 {
            buffer.write(String(repeating: "─", count: area.width), x: area.x, y: area.y + 3, style: Style(fg: .role(.border)))
        }
    }

    /// Name (from `x` on the first line), saved of target, and the people, one line each.
    @MainActor
    static func drawHeaderText(_ goal: Goal, users: any UsersReading, into buffer: inout CellBuffer, area: Rect, x: Int) {
        let muted = Style(fg: .role(.muted))
        buffer.write(goal.name, x: x, y: area.y, maxWidth: area.maxX - x, style: Style(fg: .role(.title), attributes: .bold))
        guard area.height > 1 else { return }
        var saved: [Span] = [Span("Saved ", muted), Span(goal.balance.formatted, DisplayFormat.moneyStyle.adding(.bold))]
        if let target = goal.target {
            saved += [Span(" of "), Span(target.formatted), Span("  ")]
            let used = saved.reduce(0) { $0 + $1.width }
            saved += ProgressBar(fraction: goal.progress ?? 0).spans(width: max(0, min(30, area.width - used)))
        } else {
            saved += [Span(" · no target", muted)]
        }
        buffer.write(saved, x: area.x, y: area.y + 1, maxWidth: area.width)
        guard area.height > 2 else { return }
        var people: [Span] = [Span("Owner ", muted), Span(users.displayName(for: goal.ownerId))]
        if goal.isShared {
            people += [Span(" · Shared with ", muted),
                       Span(goal.connectedUserIds.map { users.displayName(for: $0) }.joined(separator: ", "), Style(fg: .role(.highlight)))]
        }
        buffer.write(people, x: area.x, y: area.y + 2, maxWidth: area.width)
    }

    @MainActor
    static func drawEntry(_ entry: FeedEntry, users: any UsersReading, format: DisplayFormat, filter: String = "", holder: Int? = nil,
                          ruleLabel: String? = nil, into buffer: inout CellBuffer, row: Rect) {
        let item = entry.item
        let date = format.shortDate(item.timestamp)
        let who = users.who(for: item.userId, in: item.message, holder: holder)
        // Columns: date · message · who · rule · amount, the amount last so it stays in line
        // when a row leaves out its who; the message has the room first.
        let dateWidth = 12
        var x = row.x
        if row.width >= 50 {
            x += buffer.write(TextWidth.pad(date, to: dateWidth), x: x, y: row.y, style: Style(fg: .role(.muted)))
        }
        var columns: [Span] = []
        if row.width >= 90 {
            // One column short of its width, so the label never touches the scrollbar.
            columns.append(Span("  " + TextWidth.pad(TextWidth.truncate(ruleLabel ?? entry.rule?.kind.label ?? "", to: 15), to: 16),
                                Style(fg: .role(.muted))))
        }
        DisplayFormat.drawMessageRow(item.message, who: who, whoFrom: 60, amount: item.amount, amountWidth: 11, columns: columns,
                                     filter: filter, into: &buffer, x: x, row: row)
    }
}
