import FeedModel
import Foundation
import TermImage
import TermUI

/// Who the app knows, from what is loaded: goal owners, the people goals are shared with, and
/// everyone in the activity and the goals' feeds (`PeopleRoster`).
@MainActor
enum PeopleData {
    static func people(_ data: ScreenData) -> [Person] { data.derived.people(data) }

    /// A goal's feed as far as it is in, and whether it is known: loaded (or failed with what the
    /// cache kept), still loading, or failed with nothing to show (offline, not cached).
    static func feed(_ goalId: GoalID, _ data: ScreenData) -> (items: [FeedItem], state: Availability) {
        let feed = data.goals.feed(for: goalId)
        let state: Availability = switch feed.status {
        case .loaded: .known
        case .failed: feed.entries.isEmpty ? .unavailable : .known
        case .idle, .loading: .loading
        }
        return (feed.entries.map(\.item), state)
    }

    /// "Mikael", and " (you)" for the holder of every goal.
    static func name(_ person: Person, _ users: any UsersReading) -> String {
        users.displayName(for: person.id)
    }

    /// Goals a person is part of, in the list's order.
    static func goals(of person: Person, _ data: ScreenData) -> [Goal] {
        person.goalIds.compactMap { data.goals.goal(id: $0) }
    }

    /// The saved column: the amount once every feed of their goals is in; "…" while any is
    /// loading, "—" while any is not available (offline, not cached): never a partial sum.
    static func saved(_ person: Person) -> String {
        switch person.savedState {
        case .known: person.saved.formatted
        case .loading: "…"
        case .unavailable: "—"
        }
    }

    /// Only one person and nothing shared: a source without other people (a bank account).
    static func isAlone(_ people: [Person], goals: [Goal]) -> Bool {
        people.count <= 1 && !goals.contains { $0.isShared }
    }

    static let aloneNote = "Only you here: no goal is shared and no one else saves (a bank account has no other people)."

    /// The feeds of every goal that has none yet (`again`: every goal's; `retryFailed`: and those
    /// that failed, once the server answers again), so "saved" can be counted.
    static func loadFeeds(_ data: ScreenData, again: Bool = false, retryFailed: Bool = false) -> [Command] {
        data.goals.goals.filter { goal in
            let status = data.goals.feed(for: goal.id).status
            let failed = if case .failed = status { true } else { false }
            return again || status == .idle || (retryFailed && failed)
        }.map { .loadGoalFeed($0.id) }
    }

    /// `r` on People or a person: users that failed, the goals, and every goal's feed again.
    static func refresh(_ data: ScreenData) -> [Command] {
        [.retryUsers, .loadGoals] + loadFeeds(data, again: true)
    }

    /// The avatar at (x, y), `columns × rows` cells, or the person's monogram; one-line rows get a monogram span.
    static func drawAvatar(_ id: Int, users: any UsersReading, colors: Bool, images: (any PicturesReading)?, columns: Int, rows: Int,
                           into buffer: inout CellBuffer, x: Int, y: Int, clip: Rect) {
        let name = users.displayName(for: id)
        let avatar: URL? = if case .found(let user) = users.lookup(id) { user.avatarURL } else { nil }
        if Pictures.draw(avatar, images: images, columns: columns, rows: rows, into: &buffer, x: x, y: y, clip: clip) { return }
        if rows == 1 {
            buffer.write([Pictures.monogramSpan(initials: users.initials(for: id), name: name, width: columns, colors: colors)],
                         x: x, y: y, maxWidth: columns)
        } else {
            Pictures.monogramBlock(name, colors: colors, rect: Rect(x: x, y: y, width: columns, height: rows).intersection(clip),
                                   into: &buffer)
        }
    }
}

/// Tab 5: everyone the app knows, with their avatar, how many goals they share with you and
/// what they saved in the last 30 days. `/` searches names, ids and their goals' names; Enter
/// opens the person.
@MainActor
final class PeopleScreen: TabScreen, ListScreen {
    nonisolated static let title = "People"
    var model = ListModel()
    /// Set once the tab was shown: from then on every goal's feed is wanted (for "saved").
    private var wantsFeeds = false

    init() {}

    func rows(_ data: ScreenData) -> [Person] { PeopleData.people(data) }
    func identity(_ person: Person) -> AnyHashable { person.id }

    /// The name, "#id" or "User #id", and the names of their goals.
    func matches(_ person: Person, filter: String, _ data: ScreenData) -> Bool {
        data.users.displayName(for: person.id).localizedCaseInsensitiveContains(filter)
            || "User #\(person.id)".localizedCaseInsensitiveContains(filter)
            || PeopleData.goals(of: person, data).contains { $0.name.localizedCaseInsensitiveContains(filter) }
    }

    func appear(_ data: ScreenData) -> [Command] {
        wantsFeeds = true
        return PeopleData.loadFeeds(data)
    }

    func receive(_ event: StoreEvent, _ data: ScreenData) -> [Command] {
        // Goals from the server (after being offline, too): feeds that failed are asked for again.
        guard case .goals = event, wantsFeeds else { return [] }
        return PeopleData.loadFeeds(data, retryFailed: data.goals.status == .loaded)
    }

    func handle(_ key: Key, action: AppAction?, _ data: ScreenData) -> Outcome {
        guard let action else { return .ignored }
        if navigate(action, data) { return .consumed }
        switch action {
        case .open:
            guard let person = selectedRow(data) else { return .consumed }
            return .push(PersonScreen(userId: person.id))
        default:
            return .ignored
        }
    }

    func refresh(_ data: ScreenData) -> [Command] { PeopleData.refresh(data) }

    func people(_ data: ScreenData) -> UserPopup? {
        selectedRow(data).flatMap { UserPopup(people: [$0.id]) }
    }

    func shown(_ data: ScreenData) -> Shown {
        let people = visible(data)
        var shown = Shown()
        for index in list.visibleRange(count: people.count) {
            shown.add(user: people[index].id, data.users, avatar: data.images != nil)
        }
        return shown
    }

    func draw(into buffer: inout CellBuffer, area: Rect, _ data: ScreenData) -> Layout {
        guard area.height > 0 else { return Layout(area: area) }
        let all = rows(data)
        let people = model.filtered(all) { matches($0, filter: $1, data) }
        var list = self.list
        list.clamp(count: people.count)
        let muted = Style(fg: .role(.muted))
        if people.isEmpty {
            let message: (String, Style)
            switch (data.goals.status, all.isEmpty) {
            case (.idle, true), (.loading, true): message = ("Loading people…", muted)
            case (.failed(let error), true): message = ("✗ \(error) — press \(data.keys[.refresh]) to retry", Style(fg: .role(.error)))
            default:
                message = filter.isEmpty ? ("No people yet: nobody owns or shares a goal.", muted)
                    : ("No one matches “\(filter)”. Esc clears the filter.", muted)
            }
            buffer.write(message.0, x: area.x + 1, y: area.y + 1, maxWidth: area.width - 2, style: message.1)
            return Layout(area: area, list: list, failureShown: all.isEmpty ? data.goals.status.failureMessage : nil)
        }
        // The column titles, or (for a source with nobody else) the line saying so.
        if PeopleData.isAlone(all, goals: data.goals.goals) {
            buffer.write(PeopleData.aloneNote, x: area.x + 1, y: area.y, maxWidth: area.width - 2, style: muted)
        } else {
            drawTitles(into: &buffer, row: area.row(0))
        }
        let body = area.rows([.length(1), .fill(1)])[1]
        let drawn = model.view.draw(into: &buffer, rect: body, count: people.count, state: &list) { buffer, index, row, _ in
            Self.drawRow(people[index], data, filter: filter, into: &buffer, row: row)
        }
        // The selection recolours its row: the selected avatar is drawn again on top.
        if data.images != nil, drawn.contains(list.selected) {
            let y = body.y + list.selected - drawn.lowerBound
            let person = people[list.selected]
            if case .found(let user) = data.users.lookup(person.id) {
                Pictures.draw(user.avatarURL, images: data.images, columns: 4, rows: 1, into: &buffer, x: body.x, y: y, clip: body)
            }
        }
        return Layout(area: area, list: list)
    }

    func laidOut(_ layout: Layout, _ data: ScreenData) { list = layout.list ?? list }

    /// Right-hand columns: goals, saved (and from 100 columns the goals' names).
    static func columns(width: Int) -> (goals: Int, saved: Int, shares: Int) {
        (9, 14, width >= 100 ? 30 : 0)
    }

    private func drawTitles(into buffer: inout CellBuffer, row: Rect) {
        let columns = Self.columns(width: row.width)
        let muted = Style(fg: .role(.muted))
        var right = TextWidth.pad("goals", to: columns.goals, alignRight: true) + TextWidth.pad("saved 30 d", to: columns.saved, alignRight: true)
        if columns.shares > 0 { right += "  " + TextWidth.pad("shares", to: columns.shares - 2) }
        buffer.write("     Name", x: row.x, y: row.y, maxWidth: row.width, style: muted)
        let width = TextWidth.of(right)
        if row.width > width + 12 { buffer.write(right, x: row.maxX - width - 1, y: row.y, style: muted) }
    }

    static func drawRow(_ person: Person, _ data: ScreenData, filter: String, into buffer: inout CellBuffer, row: Rect) {
        PeopleData.drawAvatar(person.id, users: data.users, colors: data.colors, images: data.images, columns: 4, rows: 1,
                              into: &buffer, x: row.x, y: row.y, clip: row)
        let x = row.x + 5
        let columns = columns(width: row.width)
        var right: [Span] = [
            Span(TextWidth.pad("\(person.goalIds.count)", to: columns.goals, alignRight: true)),
            Span(DisplayFormat.amountColumn(PeopleData.saved(person), to: columns.saved), DisplayFormat.moneyStyle),
        ]
        if columns.shares > 0 {
            let names = PeopleData.goals(of: person, data).map(\.name).joined(separator: ", ")
            right.append(Span("  " + TextWidth.pad(TextWidth.truncate(names, to: columns.shares - 2), to: columns.shares - 2),
                              Style(fg: .role(.muted))))
        }
        let rightWidth = right.reduce(0) { $0 + $1.width }
        let nameWidth = row.maxX - x - rightWidth - 2
        var name: [Span] = DisplayFormat.highlighting([Span(PeopleData.name(person, data.users), .bold)], filter)
        if person.isHolder { name.append(Span(" (you)", Style(fg: .role(.muted)))) }
        if nameWidth >= 6 {
            buffer.write(name, x: x, y: row.y, maxWidth: nameWidth)
            buffer.write(right, x: row.maxX - rightWidth - 1, y: row.y, maxWidth: rightWidth)
        } else {
            // Narrow: the name and what they saved.
            let saved = PeopleData.saved(person)
            buffer.write(name, x: x, y: row.y, maxWidth: max(0, row.maxX - x - TextWidth.of(saved) - 2))
            buffer.writeRightAligned(saved, maxX: row.maxX - 1, y: row.y, style: DisplayFormat.moneyStyle)
        }
    }
}
