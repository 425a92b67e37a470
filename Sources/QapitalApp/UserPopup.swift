import FeedModel
import TermImage
import TermUI

/// Who is behind a goal or a saving: display name, id, monogram, and the goals shared with them.
/// ← → (or Tab) step through the people it was opened with; Esc closes it.
@MainActor
final class UserPopup: Overlay {
    enum Action: Sendable { case next, previous, close }

    nonisolated static let keyMap: KeyMap<Action> = {
        var map = KeyMap<Action>()
        let section = "Person card (u)"
        map.bind([.right, .tab, .char("l")], to: .next, help: "the next person", section: section)
        map.bind([.left, .backTab], to: .previous, help: "the previous person", section: section)
        map.bind([.escape, .char("q")], to: .close, help: "close (any other key too)", section: section)
        return map
    }()
    nonisolated static var help: [HelpEntry] { keyMap.helpEntries }

    private(set) var people: [Int]
    private(set) var index = 0

    init?(people: [Int], startingAt start: Int? = nil) {
        var unique: [Int] = []
        for id in people where !unique.contains(id) { unique.append(id) }
        guard !unique.isEmpty else { return nil }
        self.people = unique
        self.index = start.flatMap { unique.firstIndex(of: $0) } ?? 0
    }

    var userId: Int { people[index] }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        switch Self.keyMap.action(for: key) {
        case .next: step(1)
        case .previous: step(-1)
        case .close: return .close()
        case nil: return key == .resize ? .consumed : .close()
        }
        return .consumed
    }

    func shown(_ data: ScreenData) -> Shown {
        var shown = Shown()
        shown.add(user: userId, data.users, avatar: data.images != nil)
        return shown
    }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        render(users: data.users, goals: data.goals.goals, colors: data.colors, images: data.images, into: &buffer, area: area)
    }

    func step(_ delta: Int) {
        index = (index + delta + people.count) % people.count
    }

    /// Goals this person owns or shares.
    static func goals(of userId: Int, in goals: [Goal]) -> [Goal] {
        goals.filter { $0.ownerId == userId || $0.connectedUserIds.contains(userId) }
    }

    func render(users: any UsersReading, goals: [Goal], colors: Bool, images: (any PicturesReading)? = nil,
                into buffer: inout CellBuffer, area: Rect) {
        let id = userId
        let lookup = users.lookup(id)
        let name = users.displayName(for: id)
        var lines: [[Span]] = []
        let monogram = Pictures.monogramSpan(initials: users.initials(for: id), name: name, width: 8, colors: colors)
        // The name once (no id line: "User #2" is how an unknown person is named), and "(you)" for the holder.
        let you = PeopleRoster.holder(of: goals) == id ? [Span(" (you)", Style(fg: .role(.muted)))] : []
        lines.append([monogram, Span("  "), Span(name, Style(attributes: .bold))] + you)
        lines.append([Pictures.monogramSpan(initials: "", name: name, width: 8, colors: colors)])  // the block's second line, no letters again
        switch lookup {
        case .loading: lines.append([Span("Loading…", Style(fg: .role(.muted)))])
        case .unknown: lines.append([Span("The server does not know this user.", Style(fg: .role(.muted)))])
        case .failed(let message): lines.append([Span("✗ " + message, Style(fg: .role(.error)))])
        case .found: lines.append([])
        }
        let shared = UserPopup.goals(of: id, in: goals)
        lines.append([Span(shared.isEmpty ? "No goals shared with \(name)." : "Goals with \(name):", Style(fg: .role(.muted)))])
        for goal in shared {
            let role = goal.ownerId == id ? " (owner)" : ""
            lines.append([Span("  • "), Span(goal.name + role), Span("  "), Span(goal.balance.formatted, DisplayFormat.moneyStyle)])
        }
        let footer = people.count > 1 ? "← → \(index + 1) of \(people.count) · Esc closes" : "Esc closes"
        var modal = Modal(title: "Person", lines: lines, footer: footer)
        modal.shortFooter = people.count > 1 ? "← → \(index + 1)/\(people.count) · Esc" : "Esc"
        let box = modal.draw(into: &buffer, in: area)
        // The avatar over the monogram's two lines: 4×2 cells (4×4 pixels) in the middle of its 8.
        if images != nil, case .found(let user) = lookup, box.width >= 12, box.height >= 4 {
            let spot = box.rows([.length(1), .length(2)])[1].columns([.length(2), .length(8)])[1]
            if let picture = images?.image(for: user.avatarURL, columns: 4, rows: 2) {
                buffer.fill(spot)
                picture.draw(into: &buffer, x: spot.x + 2, y: spot.y, clip: spot)
            }
        }
    }

}
