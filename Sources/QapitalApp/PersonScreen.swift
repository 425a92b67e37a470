import FeedModel
import Foundation
import TermImage
import TermUI

/// A person opened from tab 5: their avatar large, the goals they are part of, and their recent
/// savings and activity; Enter on a goal or a saving opens the goal.
@MainActor
final class PersonScreen: ListModelScreen {
    nonisolated static let title = "Person"
    let userId: Int
    var model = ListModel()

    enum Row {
        case heading(String)
        case note(String)
        case goal(Goal)
        case event(PersonEvent)

        var isStop: Bool {
            switch self {
            case .goal, .event: true
            case .heading, .note: false
            }
        }
    }

    init(userId: Int) {
        self.userId = userId
    }

    func rows(_ data: ScreenData) -> [Row] {
        let person = PeopleData.people(data).first { $0.id == userId }
        let goals = person.map { PeopleData.goals(of: $0, data) } ?? []
        var events = PeopleRoster.events(of: userId, goals: data.goals.goals, feeds: { PeopleData.feed($0, data).items },
                                         activities: data.feed.activities)
        var rows: [Row] = [.heading("Goals (\(goals.count))")]
        let shownGoals = filter.isEmpty ? goals : goals.filter { $0.name.localizedCaseInsensitiveContains(filter) }
        rows += shownGoals.isEmpty ? [.note(goals.isEmpty ? "No goal shared with you." : "No goal matches.")] : shownGoals.map { .goal($0) }
        if !filter.isEmpty { events = events.filter { Self.text(of: $0, data).localizedCaseInsensitiveContains(filter) } }
        rows.append(.heading("Recent savings and activity"))
        rows += events.isEmpty ? [.note("Nothing of theirs is loaded yet.")] : events.map { .event($0) }
        return rows
    }

    static func text(of event: PersonEvent, _ data: ScreenData) -> String {
        switch event {
        case .saving(let goalId, let item): item.message.plainText + " " + (data.goals.goal(id: goalId)?.name ?? "")
        case .activity(let activity): activity.message.plainText
        }
    }

    /// Keeps the cursor on a goal or an event (headings and notes are not stops).
    private static func settle(_ list: inout ListState, _ rows: [Row], direction: Int) {
        list.clamp(count: rows.count)
        guard !rows.isEmpty, !rows[list.selected].isStop else { return }
        for step in [direction, -direction] {
            var index = list.selected
            while index >= 0 && index < rows.count {
                if rows[index].isStop {
                    list.selected = index
                    return
                }
                index += step
            }
        }
    }

    func handle(_ key: Key, action: AppAction?, _ data: ScreenData) -> Outcome {
        guard let action else { return .ignored }
        let rows = rows(data)
        let before = list.selected
        if model.navigate(action, count: rows.count) {
            Self.settle(&list, rows, direction: list.selected >= before ? 1 : -1)
            return .consumed
        }
        switch action {
        case .open:
            Self.settle(&list, rows, direction: 1)
            guard list.selected < rows.count else { return .consumed }
            return open(rows[list.selected], data)
        case .back, .quit:
            return .pop
        default:
            return .ignored
        }
    }

    /// A goal opens its detail; a saving opens its goal at that saving; an activity shows its
    /// card, the message whole (as on the Activity tab: Enter there opens the goal it names).
    private func open(_ row: Row, _ data: ScreenData) -> Outcome {
        switch row {
        case .goal(let goal):
            return GoalDetailScreen.open(goal.id, data)
        case .event(.saving(let goalId, let item)):
            return GoalDetailScreen.open(goalId, data, at: item)
        case .event(.activity(let activity)):
            return .present(ActivityScreen.card(activity, data))
        case .heading, .note:
            return .consumed
        }
    }

    /// A goal or an event is selected; the selected one opens, as Enter does.
    func click(x: Int, y: Int, _ data: ScreenData) -> Outcome {
        let rows = rows(data)
        switch model.click(x: x, y: y, count: rows.count) {
        case .outside: return .ignored
        case .moved:
            Self.settle(&list, rows, direction: 1)  // a heading's click selects what is under it
            return .consumed
        case .selected: return handle(.enter, action: .open, data)
        }
    }

    func refresh(_ data: ScreenData) -> [Command] { PeopleData.refresh(data) }

    func people(_ data: ScreenData) -> UserPopup? { UserPopup(people: [userId]) }

    func shown(_ data: ScreenData) -> Shown {
        var shown = Shown()
        shown.add(user: userId, data.users, avatar: data.images != nil)
        let rows = rows(data)
        for index in list.visibleRange(count: rows.count) {
            if case .goal(let goal) = rows[index] { shown.add(picture: goal.imageURL) }
        }
        return shown
    }

    /// The avatar's size: 16×8 cells (16×16 pixels) where the screen has room, 8×4 where less, else one line.
    static func avatarSize(_ area: Rect) -> (columns: Int, rows: Int) {
        if area.height >= 20 && area.width >= 60 { return (16, 8) }
        if area.height >= 12 && area.width >= 40 { return (8, 4) }
        return (4, 1)
    }

    func draw(into buffer: inout CellBuffer, area: Rect, _ data: ScreenData) -> Layout {
        guard area.height > 0 else { return Layout(area: area) }
        let person = PeopleData.people(data).first { $0.id == userId }
        let size = Self.avatarSize(area)
        let headerHeight = size.rows == 1 ? 2 : size.rows + 1
        PeopleData.drawAvatar(userId, users: data.users, colors: data.colors, images: data.images, columns: size.columns,
                              rows: size.rows, into: &buffer, x: area.x, y: area.y, clip: area)
        // The avatar, two columns, the text; above the header's rule.
        let text = area.rows([.length(headerHeight - 1), .fill(1)])[0].columns([.length(size.columns + 2), .fill(1)])[1]
        drawHeaderText(person, data, into: &buffer, area: text)
        if area.height > headerHeight - 1 {
            buffer.write(String(repeating: "─", count: area.width), x: area.x, y: area.y + headerHeight - 1,
                         style: Style(fg: .role(.border)))
        }
        let body = area.rows([.length(headerHeight), .fill(1)])[1]
        guard body.height > 0 else { return Layout(area: area) }
        let rows = rows(data)
        var list = self.list
        Self.settle(&list, rows, direction: 1)
        // "N of M" counts goals and events, not the headings and notes between them.
        let stops = rows.prefix(list.selected + 1).filter(\.isStop).count
        let onStop = list.selected < rows.count && rows[list.selected].isStop
        let position = ListPosition.item(onStop ? stops : nil, of: rows.count(where: \.isStop))
        model.view.draw(into: &buffer, rect: body, count: rows.count, state: &list, position: position) { buffer, index, row, _ in
            Self.drawRow(rows[index], userId: userId, data, filter: filter, into: &buffer, row: row)
        }
        return Layout(area: area, list: list)
    }

    func laidOut(_ layout: Layout, _ data: ScreenData) { list = layout.list ?? list }

    private func drawHeaderText(_ person: Person?, _ data: ScreenData, into buffer: inout CellBuffer, area: Rect) {
        guard area.width > 0 else { return }
        let muted = Style(fg: .role(.muted))
        var lines: [[Span]] = []
        var name = [Span(data.users.displayName(for: userId), Style(fg: .role(.title), attributes: .bold))]
        if person?.isHolder == true { name.append(Span(" (you)", muted)) }
        lines.append(name)
        switch data.users.lookup(userId) {
        case .loading: lines.append([Span("User #\(userId) · loading…", muted)])
        case .unknown: lines.append([Span("User #\(userId) · the server does not know this user", muted)])
        case .failed(let message): lines.append([Span("✗ " + message, Style(fg: .role(.error)))])
        case .found: break  // named once: the id line would read as the unknown-user fallback
        }
        if let person {
            let count = switch person.savedState {
            case .known: " (\(person.savingsCount) saving\(person.savingsCount == 1 ? "" : "s"))"
            case .loading: " (their goals' savings are loading)"
            case .unavailable: " (not available offline)"
            }
            lines.append([Span("Part of ", muted), Span("\(person.goalIds.count) goal\(person.goalIds.count == 1 ? "" : "s")"),
                          Span(" · saved ", muted), Span(PeopleData.saved(person), DisplayFormat.moneyStyle.adding(.bold)),
                          Span(" in the last 30 days" + count, muted)])
        } else {
            lines.append([Span("Nothing of theirs is loaded now.", muted)])
        }
        if area.height > lines.count + 1 { lines.append([]) }
        lines.append([Span("Enter opens a goal or a saving · Esc back", muted)])
        for (index, line) in lines.prefix(area.height).enumerated() {
            buffer.write(line, x: area.x, y: area.y + index, maxWidth: area.width)
        }
    }

    static func drawRow(_ row: Row, userId: Int, _ data: ScreenData, filter: String, into buffer: inout CellBuffer, row rect: Rect) {
        let muted = Style(fg: .role(.muted))
        switch row {
        case .heading(let text):
            buffer.write(text, x: rect.x + 1, y: rect.y, maxWidth: rect.width - 2, style: Style(fg: .role(.title), attributes: .bold))
        case .note(let text):
            buffer.write(text, x: rect.x + 3, y: rect.y, maxWidth: rect.width - 4, style: muted)
        case .goal(let goal):
            var x = rect.x + 2
            x += buffer.write([GoalListScreen.monogramSpan(goal, width: 4, colors: data.colors)], x: x, y: rect.y, maxWidth: 4)
            Pictures.draw(goal.imageURL, images: data.images, columns: 4, rows: 1, into: &buffer, x: rect.x + 2, y: rect.y, clip: rect)
            x += 1
            let amount = Span(DisplayFormat.amountColumn(goal.balance.formatted, to: 12), DisplayFormat.moneyStyle)
            let target = goal.target.map { " of \($0.formatted)" } ?? " no target"
            let role = Span(TextWidth.pad(goal.ownerId == userId ? "owner" : "shared", to: 8), Style(fg: .role(.highlight)))
            let right = rect.width >= 60 ? [role, amount, Span(DisplayFormat.amountColumn(target, to: 16, alignRight: false), muted)] : [amount]
            let rightWidth = right.reduce(0) { $0 + $1.width }
            let nameWidth = rect.maxX - x - rightWidth - 1
            if nameWidth >= 6 {
                buffer.write(DisplayFormat.highlighting([Span(goal.name, .bold)], filter), x: x, y: rect.y, maxWidth: nameWidth)
                buffer.write(right, x: rect.maxX - rightWidth - 1, y: rect.y, maxWidth: rightWidth)
            } else {
                buffer.write(goal.name, x: x, y: rect.y, maxWidth: max(0, rect.maxX - x - 1), style: .bold)
            }
        case .event(let event):
            var x = rect.x + 2
            if rect.width >= 50 {
                x += buffer.write(TextWidth.pad(data.format.shortDate(event.timestamp), to: 12), x: x, y: rect.y, style: muted)
            }
            let amount: Money
            var spans: [Span]
            switch event {
            case .saving(let goalId, let item):
                amount = item.amount
                spans = DisplayFormat.spans(item.message)
                spans.append(Span(" → " + (data.goals.goal(id: goalId)?.name ?? "a goal"), Style(fg: .role(.highlight))))
            case .activity(let activity):
                amount = activity.amount
                spans = DisplayFormat.spans(activity.message)
                spans.append(Span(" · activity", muted))
            }
            let amountText = DisplayFormat.amountColumn(amount.formatted, to: 11)
            let messageWidth = rect.maxX - x - TextWidth.of(amountText) - 2
            if messageWidth > 0 {
                buffer.write(DisplayFormat.highlighting(spans, filter), x: x, y: rect.y, maxWidth: messageWidth)
            }
            buffer.write(amountText, x: rect.maxX - TextWidth.of(amountText) - 1, y: rect.y, style: DisplayFormat.moneyStyle)
        }
    }
}
