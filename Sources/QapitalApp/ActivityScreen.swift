import FeedModel
import Foundation
import TermImage
import TermUI

/// Tab 2: the whole feed, newest first, grouped by day, with a loading, error or end row last.
@MainActor
final class ActivityScreen: TabScreen, ListModelScreen {
    nonisolated static let title = "Activity"
    /// Its own keys: after a year of empty windows, `m` walks another year back.
    enum Action: String, ScreenAction {
        case lookFurtherBack = "look-further-back"
    }

    nonisolated static let keyMap: KeyMap<AppAction> = {
        var map = KeyMap<AppAction>()
        map.bind([.char("m")], to: Action.lookFurtherBack, help: "after a year without activity: look a year further back", section: "Activity")
        return map
    }()
    /// Its `newAbove` counts activities a refresh or a save put above the selection.
    var model = ListModel()
    /// The activities the filter lets through under their days' headings, kept up to date
    /// incrementally (a long history is not filtered again at each key).
    var rows = ActivityRows()
    /// Row count including the footer row, as last brought up to date.
    var rowCount: Int { rows.count + 1 }

    init() {}

    func start(_ data: ScreenData) -> [Command] {
        rows.reset()
        return [.startActivity]
    }

    func handle(_ key: Key, action: AppAction?, _ data: ScreenData) -> Outcome {
        guard let action else { return .ignored }
        if Action(action) == .lookFurtherBack { return .run(.fetchOlderActivity) }
        sync(data)
        if action == .open { return open(data) }
        let before = list.selected
        guard model.navigate(action, count: rowCount) else { return .ignored }
        defer { if (rows.ordinal(ofRow: list.selected) ?? Int.max) <= model.newAbove { model.newAbove = 0 } }
        // Day headers are not stops: step over one in the direction of travel.
        if list.selected < rows.count, case .day = rows.rows[list.selected] {
            let direction = list.selected >= before ? 1 : -1
            let next = list.selected + direction
            if next >= 0 && next < rowCount { list.moveBy(direction, count: rowCount) }
        }
        return .consumed
    }

    /// Enter: the activity in a card, its message whole (Enter again opens the goal it names);
    /// on the error row a retry.
    private func open(_ data: ScreenData) -> Outcome {
        guard list.selected < rows.count, case .activity(let index) = rows.rows[list.selected], index < data.feed.activities.count else {
            if list.selected >= rows.count, case .failed = data.feed.phase { return .run(.retryActivity) }
            return .consumed
        }
        return .present(Self.card(data.feed.activities[index], data))
    }

    /// An activity in full: when, what, how much, who, and the goal it names (which Enter opens).
    static func card(_ activity: Activity, _ data: ScreenData) -> DetailCard {
        let when = data.format.shortDate(activity.timestamp) + " " + data.format.time(activity.timestamp)
        var fields = [
            DetailCard.field("When", [Span(when)]),
            DetailCard.field("What", DisplayFormat.spans(activity.message)),
            DetailCard.field("Amount", [Span(activity.amount.formatted, DisplayFormat.moneyStyle)]),
            DetailCard.field("Who", [Span(data.users.name(for: activity.userId, holder: PeopleRoster.holder(of: data.goals.goals)))]),
        ]
        if activity.isVoid { fields.append(DetailCard.field("", [Span("declined or reversed: nothing moved", Style(fg: .role(.muted)))])) }
        guard let goal = GoalDetailScreen.goal(namedIn: activity.message, data.goals.goals) else {
            return DetailCard(title: "Activity", fields: fields)
        }
        fields.append(DetailCard.field("Goal", [Span(goal.name, .bold)]))
        let id = goal.id
        return DetailCard(title: "Activity", fields: fields, opens: (goal.name, { GoalDetailScreen.open(id, $0) }))
    }

    /// A click selects an activity (on a day's header: its first activity).
    func click(x: Int, y: Int, _ data: ScreenData) -> Outcome {
        let outcome = model.click(x: x, y: y, count: rowCount)
        if outcome == .selected { return handle(.enter, action: .open, data) }
        guard case .moved = outcome else { return .ignored }
        sync(data)
        return .consumed
    }

    func refresh(_ data: ScreenData) -> [Command] {
        if case .failed = data.feed.phase { return [.retryActivity] }
        return [.retryUsers, .refreshCache, .refreshActivity]
    }

    func people(_ data: ScreenData) -> UserPopup? {
        sync(data)
        guard let index = rows.activityIndex(atOrAfter: list.selected), index < data.feed.activities.count else { return nil }
        return UserPopup(people: [data.feed.activities[index].userId])
    }

    func receive(_ event: StoreEvent, _ data: ScreenData) -> [Command] {
        // A name arrived: a filter that matches names must look at the rows again.
        if case .user = event, !filter.isEmpty { rows.reset() }
        keepUpToDate(data, totals: weekly != nil)
        return []
    }

    /// The people on screen, and where the cursor stands for the pager.
    func shown(_ data: ScreenData) -> Shown {
        var shown = Shown()
        let activities = data.feed.activities
        for index in list.visibleRange(count: rowCount) where index < rows.count {
            if case .activity(let activity) = rows.rows[index], activity < activities.count {
                shown.add(user: activities[activity].userId, data.users, avatar: data.images != nil)
            }
        }
        shown.feedViewport = Self.viewport(state: self, feed: data.feed)
        return shown
    }

    /// Money saved per week over the loaded history, and whether more than one person saved it,
    /// worked out again only when it grew or changed.
    private var weekly: (identity: Int, count: Int, totals: [WeekTotal], everyone: Bool)?

    /// The header with the weekly sparkline needs this much room (the list keeps small screens).
    static let headerMinimum = (width: 60, height: 16)

    /// The weekly totals as kept, or (when the feed changed since) worked out afresh, and whether
    /// they are more than one person's savings; only reads.
    func weeklyTotals(_ data: ScreenData) -> (totals: [WeekTotal], everyone: Bool) {
        let feed = data.feed
        if let weekly, weekly.identity == feed.listIdentity, weekly.count == feed.activities.count { return (weekly.totals, weekly.everyone) }
        let totals = WeekTotal.saved(feed.activities, currency: data.currency, calendar: Week.calendar(in: data.timeZone),
                                     now: data.format.now())
        let first = feed.activities.first { $0.saved != nil }?.userId
        let everyone = feed.activities.contains { $0.saved != nil && $0.userId != first }
        return (totals, everyone)
    }

    func draw(into buffer: inout CellBuffer, area: Rect, _ data: ScreenData) -> Layout {
        // Drawn from copies brought up to date with the feed (nothing to do when `laidOut` or an
        // event already did): drawing changes nothing.
        var (rows, model) = (self.rows, self.model)
        Self.sync(rows: &rows, model: &model, feed: data.feed, users: data.users, timeZone: data.timeZone)
        var list = model.list
        var area = area
        if area.width >= Self.headerMinimum.width, area.height >= Self.headerMinimum.height, !data.feed.activities.isEmpty {
            let weekly = weeklyTotals(data)
            Self.drawWeeks(weekly.totals, everyone: weekly.everyone, into: &buffer, row: area.top(1))
            area = area.rows([.length(1), .fill(1)])[1]
        }
        Self.render(state: self, rows: rows, list: &list, feed: data.feed, users: data.users, format: data.format,
                    spinnerFrame: data.spinnerFrame, images: data.images, keys: data.keys, holder: PeopleRoster.holder(of: data.goals.goals),
                    view: model.view, historyBeginning: data.historyBeginning, into: &buffer, area: area)
        // The footer row (the last) says a failure to load when it is on screen.
        var failure: String?
        if case .failed(let message) = data.feed.phase, list.visibleRange(count: rows.count + 1).contains(rows.count) { failure = message }
        return Layout(area: area, list: list, failureShown: failure)
    }

    /// After the frame: the list as drawn, the rows and weekly totals up to date.
    func laidOut(_ layout: Layout, _ data: ScreenData) {
        keepUpToDate(data, totals: layout.area.height > 0)
        list = layout.list ?? list
        if list.offset == 0 { model.newAbove = 0 }  // the new activities are in sight
    }

    /// The rows, and the weekly totals once a frame wanted them, brought up to date with the
    /// feed (after each event, before the frame draws from them; nothing to do when nothing changed).
    private func keepUpToDate(_ data: ScreenData, totals: Bool) {
        sync(data)
        let feed = data.feed
        if totals, weekly?.identity != feed.listIdentity || weekly?.count != feed.activities.count {
            let (weeks, everyone) = weeklyTotals(data)
            weekly = (feed.listIdentity, feed.activities.count, weeks, everyone)
        }
    }

    func selection(_ data: ScreenData) -> AnyHashable? {
        sync(data)
        return rows.activity(atRow: list.selected)
    }

    func select(_ selection: AnyHashable, _ data: ScreenData) {
        // The rows again under the new filter, then the activity's row among them.
        sync(data)
        guard let activity = selection.base as? Activity else { return }
        list.select(rows.row(of: activity), count: rowCount)
    }

    /// Brings the rows up to date with the feed (after events, keys and frames).
    func sync(_ data: ScreenData) {
        Self.sync(rows: &rows, model: &model, feed: data.feed, users: data.users, timeZone: data.timeZone)
    }

    /// "Saved into goals per week ▁▂▅█▃  this week $12.34": the newest weeks that fit. When
    /// more than one person saved (shared goals), the label says the sums are everyone's.
    static func drawWeeks(_ weeks: [WeekTotal], everyone: Bool = false, into buffer: inout CellBuffer, row: Rect) {
        guard let last = weeks.last else { return }
        let muted = Style(fg: .role(.muted))
        let label = everyone ? " Everyone's savings per week " : " Saved into goals per week "
        let tail = [Span("  this week ", muted), Span(last.total.formatted, DisplayFormat.moneyStyle)]
        let tailWidth = tail.reduce(0) { $0 + $1.width }
        let room = row.width - TextWidth.of(label) - tailWidth - 1
        let shown = min(weeks.count, room)
        guard shown >= Sparkline.minimumWidth else { return }
        let parts = row.columns([.length(TextWidth.of(label)), .length(shown), .fill(1)])
        buffer.write(label, x: parts[0].x, y: row.y, style: muted)
        Sparkline(values: weeks.suffix(shown).map(\.total.minorUnits)).draw(into: &buffer, rect: parts[1])
        buffer.write(tail, x: parts[2].x, y: row.y, maxWidth: parts[2].width)
    }

    @MainActor
    static func matches(_ activity: Activity, filter: String, users: any UsersReading) -> Bool {
        activity.message.plainText.localizedCaseInsensitiveContains(filter)
            || users.displayName(for: activity.userId).localizedCaseInsensitiveContains(filter)
    }

    /// Brings the rows up to date with the feed (incremental: only new activities are looked at).
    @MainActor
    static func sync(rows: inout ActivityRows, model: inout ListModel, feed: any FeedReading, users: any UsersReading, timeZone: TimeZone) {
        let filter = model.filter
        // A refresh replaced the model.list. At the top, the cursor stays at the top, on the newest
        // activity (as in tig and lazygit); elsewhere it stays on its activity, at the same place
        // on screen, and the activities that came above it are counted ("N new ↑").
        let replaced = rows.identity != feed.listIdentity
        let before = replaced ? rows.activity(atRow: model.list.selected) : nil
        let ordinalBefore = replaced ? rows.ordinal(ofRow: model.list.selected) : nil
        let atTop = replaced && (ordinalBefore == 1 || rows.count == 0)
        rows.update(with: feed.activities, identity: feed.listIdentity, filter: filter, timeZone: timeZone) { matches($0, filter: filter, users: users) }
        if atTop {
            model.list.offset = 0
            model.list.selected = 0
            model.newAbove = 0
        } else if let before, let row = rows.row(of: before) {
            model.list.offset += row - model.list.selected
            model.list.selected = row
            if let ordinalBefore, let ordinal = rows.ordinal(ofRow: row), ordinal > ordinalBefore { model.newAbove += ordinal - ordinalBefore }
        }
        model.list.clamp(count: rows.count + 1)
        // The cursor never rests on a day header: it stands on that day's first activity.
        if model.list.selected < rows.count, case .day = rows.rows[model.list.selected] {
            model.list.moveBy(1, count: rows.count + 1)
        }
    }

    /// How close the cursor is to the end of what is loaded, for the pager.
    @MainActor
    static func viewport(state: ActivityScreen, feed: any FeedReading) -> (cursor: Int, screenHeight: Int) {
        let rows = state.rows
        let height = max(1, state.list.visibleRows)
        // In activities: the cursor's activity, or (past the last row) the last one loaded.
        let cursor = rows.activityIndex(atOrAfter: min(state.list.selected, rows.count - 1)) ?? feed.activities.count
        let effective: Int
        if state.filter.isEmpty {
            effective = state.list.selected < rows.count ? cursor : feed.activities.count
        } else {
            // With a filter, rows are sparser than activities: ask for more only while fewer than
            // a screen of matching rows lie below the cursor, not for the whole history at once.
            let rowsBelow = rows.count - state.list.selected
            effective = rowsBelow <= height ? feed.activities.count : max(0, feed.activities.count - height - 1)
        }
        return (effective, height)
    }

    @MainActor
    static func render(state: ActivityScreen, rows: ActivityRows, list: inout ListState, feed: any FeedReading, users: any UsersReading,
                       format: DisplayFormat, spinnerFrame: String?, images: (any PicturesReading)? = nil, keys: KeyLabels = .defaults,
                       holder: Int? = nil, view: ListView = ListView(), historyBeginning: String? = nil, into buffer: inout CellBuffer,
                       area: Rect) {
        let rowCount = rows.count + 1
        let activities = feed.activities
        var view = view
        // The selected activity is marked by a block over its time, not the whole row: a step of
        // `j` then rewrites a few cells, as `less` would (docs/performance.md, bytes per j).
        view.selectionColumns = 9
        // When the selection is a day's first activity at the top, show the day's header above it.
        list.update(visibleRows: view.rowsArea(in: area).height, count: rowCount)
        let selected = list.selected
        if selected > 0, selected == list.offset, selected - 1 < rows.count, case .day = rows.rows[selected - 1] {
            list.offset -= 1
        }
        // "N of M" counts activities: not the day headers, not the loading, error or end row.
        let position = ListPosition.item(rows.ordinal(ofRow: list.selected), of: rows.activityCount)
        let drawn = view.draw(into: &buffer, rect: area, count: rowCount, state: &list, position: position) { buffer, index, row, _ in
            if index == rows.count {
                drawFooter(feed: feed, spinnerFrame: spinnerFrame, format: format, keys: keys, historyBeginning: historyBeginning,
                           into: &buffer, row: row)
                return
            }
            switch rows.rows[index] {
            case .day(let first):
                let label = format.dayHeader(activities[first].timestamp)
                buffer.write(label, x: row.x, y: row.y, maxWidth: row.width, style: Style(fg: .role(.title), attributes: [.bold, .underline]))
            case .activity(let activityIndex):
                drawActivity(activities[activityIndex], users: users, format: format, filter: state.filter, images: images, holder: holder,
                             into: &buffer, row: row)
            }
        }
        // The selection overlay recolours the row; the selected avatar is drawn again on top.
        let selectedRow = list.selected
        if images != nil, drawn.contains(selectedRow), selectedRow < rows.count, case .activity(let activityIndex) = rows.rows[selectedRow] {
            let user = activities[activityIndex].userId
            if case .found(let person) = users.lookup(user) {
                Pictures.draw(person.avatarURL, images: images, columns: Pictures.avatarSize.columns, rows: Pictures.avatarSize.rows,
                              into: &buffer, x: area.x, y: area.y + selectedRow - drawn.lowerBound, clip: area)
            }
        }
    }

    @MainActor
    static func drawActivity(_ activity: Activity, users: any UsersReading, format: DisplayFormat, filter: String = "",
                             images: (any PicturesReading)? = nil, holder: Int? = nil,
                             into buffer: inout CellBuffer, row: Rect) {
        var x = row.x + 2
        if images != nil {
            // The avatar, 2 cells at the left (the person's initials until it comes, or without one).
            x = row.x + 3
            let lookup = users.lookup(activity.userId)
            let person: User? = if case .found(let user) = lookup { user } else { nil }
            if !Pictures.draw(person?.avatarURL, images: images, columns: Pictures.avatarSize.columns, rows: Pictures.avatarSize.rows,
                              into: &buffer, x: row.x, y: row.y, clip: row) {
                let name = users.displayName(for: activity.userId)
                buffer.write([Pictures.monogramSpan(initials: person?.initials ?? "", name: name, width: 2, colors: true)],
                             x: row.x, y: row.y, maxWidth: 2)
            }
        }
        if row.width >= 40 {
            x += buffer.write(format.time(activity.timestamp) + "  ", x: x, y: row.y, style: Style(fg: .role(.muted)))
        }
        DisplayFormat.drawMessageRow(activity.message, who: users.who(for: activity.userId, in: activity.message, holder: holder), whoFrom: 50,
                                     amount: activity.amount, amountWidth: 10, filter: filter, into: &buffer, x: x, row: row)
        // Declined or reversed: nothing moved, so the row is dimmed (and left out of every sum).
        if activity.isVoid { buffer.patch(row.columns([.length(x - row.x), .fill(1)])[1], with: voidStyle) }
    }

    static let voidStyle = Style(fg: .role(.muted), attributes: .dim)

    @MainActor
    static func drawFooter(feed: any FeedReading, spinnerFrame: String?, format: DisplayFormat, keys: KeyLabels = .defaults, historyBeginning: String? = nil,
                           into buffer: inout CellBuffer, row: Rect) {
        let text: String
        let style: Style
        switch feed.phase {
        case .idle, .ready, .loading:
            text = "\(spinnerFrame ?? "…") Loading \(feed.activities.isEmpty ? "activity" : "older activity")…"
            style = Style(fg: .role(.muted))
        case .failed(let message):
            text = "✗ \(message) — press \(keys[.refresh]) to retry"
            style = Style(fg: .role(.error), attributes: .bold)
        case .pausedAfterEmptyYear(let before):
            text = "— No activity in the year before \(format.shortDate(before)) — press \(keys[Action.lookFurtherBack]) to look further back —"
            style = Style(fg: .role(.muted))
        case .atEnd:
            if let oldest = feed.pager.oldest, !feed.activities.isEmpty {
                text = historyBeginning.map { "— \($0) \(format.shortDate(oldest)) —" } ?? "— Beginning of history (\(format.shortDate(oldest))) —"
            } else {
                text = "— No activity yet —"
            }
            style = Style(fg: .role(.muted))
        }
        buffer.write(text, x: row.x + 2, y: row.y, maxWidth: row.width - 2, style: style)
    }
}

/// What the Activity tab alone asks of the stores.
extension Command {
    /// `m`: after a year without activity, look a year further back.
    static let fetchOlderActivity = Command("fetch-older-activity") { $0.stores.feed.keepLooking() }
}
