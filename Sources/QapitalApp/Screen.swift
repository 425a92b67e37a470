import FeedModel
import Foundation
import TermImage
import TermUI

/// What every screen reads: the stores and how to show things. Screens read, never fetch; what
/// they show goes back to the core as `Shown`, and the core asks for it.
@MainActor
struct ScreenData {
    let goals: any GoalsReading
    let feed: any FeedReading
    let users: any UsersReading
    let roundUps: any RoundUpsReading
    let goalCreator: any GoalCreatorReading
    /// The savings rules (nil: the command line gave none).
    let rules: (any RulesReading)?
    /// The sign-in form's token check (sources whose token can be refused mid-session).
    let tokenCheck: (any TokenCheckReading)?
    let achievements: AchievementsFile
    let format: DisplayFormat
    /// Pictures, when shown at all (with colours and without `--no-images`).
    let images: (any PicturesReading)?
    let colors: Bool
    let currency: Currency
    let timeZone: TimeZone
    /// The spinner's frame this frame, nil while nothing has waited long enough.
    var spinnerFrame: String?
    /// The keys as bound, for hints ("press r to retry").
    let keys: KeyLabels
    /// Why the source cannot create goals (nil: it can).
    let noGoalCreation: String?
    /// Why the source cannot move money (nil: it can).
    let noMoneyMoves: String?
    /// Why the Rules tab sends nothing, in the rules' words.
    let noRuleMoves: String?
    /// What Activity's last row says before the oldest date (nil: "Beginning of history").
    let historyBeginning: String?
    /// What screens work out from the stores, once per change (`DerivedData`).
    let derived = DerivedData()

    init(_ stores: AppStores, achievements: AchievementsFile, configuration: AppCore.Configuration, format: DisplayFormat) {
        goals = stores.goals
        feed = stores.feed
        users = stores.users
        roundUps = stores.roundUps
        goalCreator = stores.goalCreator
        rules = stores.rules
        tokenCheck = stores.tokenCheck
        images = stores.images
        self.achievements = achievements
        self.format = format
        colors = configuration.colors
        currency = configuration.currency
        timeZone = configuration.timeZone
        keys = KeyLabels(configuration.keys)
        noGoalCreation = configuration.noGoalCreation
        noMoneyMoves = configuration.noMoneyMoves
        noRuleMoves = configuration.noRuleMoves ?? configuration.noMoneyMoves
        historyBeginning = configuration.historyBeginning
    }
}

/// What a frame shows that may need fetching: the core asks for it after drawing.
@MainActor
struct Shown {
    var users: Set<Int> = []
    var pictures: Set<URL> = []
    /// The activity feed's cursor and screen height, when the feed is on screen (the pager
    /// decides from it whether to fetch further back).
    var feedViewport: (cursor: Int, screenHeight: Int)?

    /// A person: their name, and once known their avatar.
    mutating func add(user id: Int, _ users: any UsersReading, avatar: Bool = true) {
        self.users.insert(id)
        if avatar, case .found(let user) = users.lookup(id), let url = user.avatarURL { pictures.insert(url) }
    }

    mutating func add(picture url: URL?) {
        if let url { pictures.insert(url) }
    }

    mutating func merge(_ other: Shown) {
        users.formUnion(other.users)
        pictures.formUnion(other.pictures)
        feedViewport = other.feedViewport ?? feedViewport
    }
}

/// What handling a key led to; the core carries it out. Work for the stores is a value too
/// (`.run`), so a screen's keys are tested by what they return.
indirect enum Outcome {
    var isIgnored: Bool {
        if case .ignored = self { return true }
        return false
    }

    /// Not for this layer: the next one (screen, then global keys) may take it.
    case ignored
    case consumed
    /// Opens a screen over this one in the same tab (Enter on a goal).
    case push(any Screen)
    /// Goes back to the screen below in the tab.
    case pop
    /// Opens an overlay (a card, a picker, a form) above everything.
    case present(any Overlay)
    /// A passing note in the status bar ("Nothing to save…").
    case notice(String)
    /// For overlays: closes it, optionally with a note.
    case close(notice: String? = nil)
    /// For overlays: closes it and opens another (the picker's choice opens the confirmation).
    case replace(with: any Overlay)
    /// Commands for the stores (load, save, fetch older…), then what else the key led to.
    case run([Command], then: Outcome)
    /// The key needs data still on its way: the core keeps it, and every key typed after it, in
    /// order, and gives them again once a store answers (`HeldKeys`); Esc drops them. The text
    /// says what is waited for.
    case hold(String)

    /// Commands, and the key is consumed.
    static func run(_ commands: Command...) -> Outcome { .run(commands, then: .consumed) }

    /// The commands it carries (for tests and the core), outermost first.
    var commands: [Command] {
        if case .run(let commands, let then) = self { return commands + then.commands }
        return []
    }
}

/// A screen: owns its state and answers the same few questions. Tab screens are listed once,
/// in `AppCore.tabs`; a screen opened from another (the goal detail) is pushed on its tab.
@MainActor
protocol Screen: AnyObject {
    /// The tab's name ("Goals"); the tab bar shows it after the tab's number.
    nonisolated static var title: String { get }
    /// Keys only this screen takes (listed in the help under their own section); they are
    /// looked up before the global `AppAction.keyMap`.
    nonisolated static var keyMap: KeyMap<AppAction> { get }

    /// The list filter (`/`); setting it starts the list at its top again.
    var filter: String { get set }
    /// Called once when the app starts: what to load before anyone looks.
    func start(_ data: ScreenData) -> [Command]
    /// Called when its tab is shown (the first time may load what it shows).
    func appear(_ data: ScreenData) -> [Command]
    /// A key, and the action it is bound to if any. `.ignored` passes it on to the global keys.
    func handle(_ key: Key, action: AppAction?, _ data: ScreenData) -> Outcome
    /// Draws into `area`, reading only (the screen and `data`); returns what the frame laid
    /// out, which the core hands to `laidOut` once the frame is drawn.
    func draw(into buffer: inout CellBuffer, area: Rect, _ data: ScreenData) -> Layout
    /// The frame is drawn: keep what it laid out (paging and clicks follow what is on screen).
    func laidOut(_ layout: Layout, _ data: ScreenData)
    /// The users, pictures and feed position the last frame showed.
    func shown(_ data: ScreenData) -> Shown
    /// `r`: load again, or retry what failed.
    func refresh(_ data: ScreenData) -> [Command]
    /// `u`: the card of the people behind the selection, if any.
    func people(_ data: ScreenData) -> UserPopup?
    /// A store changed (called for every event, before the frame is drawn); what to load now.
    func receive(_ event: StoreEvent, _ data: ScreenData) -> [Command]
    /// A left click at a cell of the screen's area: a list row selects it, the selected row
    /// opens (as Enter). `.ignored` where nothing is clickable.
    func click(x: Int, y: Int, _ data: ScreenData) -> Outcome
    /// What the selected row is (a goal's id, an activity), so that clearing the filter keeps it
    /// selected (`clearFilter`); nil where nothing is selected.
    func selection(_ data: ScreenData) -> AnyHashable?
    /// Selects the row `selection` names, if the list shows it, scrolled into view.
    func select(_ selection: AnyHashable, _ data: ScreenData)
}

/// A screen that is a tab of its own (listed in `AppCore.tabs`), made when the app starts. Its
/// type is shared across tasks (a test adds a tab for its task), which only reads its
/// `nonisolated` title and key map.
@MainActor
protocol TabScreen: Screen, SendableMetatype {
    init()
}

/// Tabs added for the length of a task, after `AppCore`'s: how a test shows that a new tab is one
/// entry (`ArchitectureTests.aFakeTabIsOneEntry`).
enum AddedTabs {
    @TaskLocal static var screens: [any TabScreen.Type] = []
}

extension Screen {
    nonisolated static var keyMap: KeyMap<AppAction> { KeyMap() }
    func start(_ data: ScreenData) -> [Command] { [] }
    func appear(_ data: ScreenData) -> [Command] { [] }
    func refresh(_ data: ScreenData) -> [Command] { [] }
    func people(_ data: ScreenData) -> UserPopup? { nil }
    func receive(_ event: StoreEvent, _ data: ScreenData) -> [Command] { [] }
    func shown(_ data: ScreenData) -> Shown { Shown() }
    func click(x: Int, y: Int, _ data: ScreenData) -> Outcome { .ignored }
    func laidOut(_ layout: Layout, _ data: ScreenData) {}
    func selection(_ data: ScreenData) -> AnyHashable? { nil }
    func select(_ selection: AnyHashable, _ data: ScreenData) {}

    /// Clears the filter and keeps the row that was selected selected (Esc, the filter line's
    /// Esc, deleting its last character), as less, tig and lazygit do; a list that cannot say
    /// starts at its top.
    func clearFilter(_ data: ScreenData) {
        let kept = selection(data)
        filter = ""
        if let kept { select(kept, data) }
    }
}

/// What a frame laid out for a screen: the area it had, and its list as drawn (clamped to the
/// rows there are, its height, its scroll, where its rows are). Drawing returns it and changes
/// nothing; the core hands it back to the screen (`laidOut`) after the frame.
struct Layout {
    var area: Rect
    var list: ListState?
    /// A failure the screen drew in its body ("✗ … — press r to retry"): the status bar does not
    /// say it a second time (issue 50, item 11).
    var failureShown: String?
}

/// Where a click fell in a list.
enum ListClick {
    case outside, moved, selected
}

/// Something over the screens that takes keys first: help, a person's card, the filter line,
/// the goal picker, a confirmation, the new-goal form. Each has its own key map, which the help lists.
@MainActor
protocol Overlay: AnyObject {
    /// Its lines in the help.
    nonisolated static var help: [HelpEntry] { get }
    /// Every key goes to the top overlay first; `.ignored` passes it on to the screen.
    func handle(_ key: Key, _ data: ScreenData) -> Outcome
    /// Before drawing: takes the room it will have (the picker's list height). Drawing then only reads.
    func layOut(area: Rect, _ data: ScreenData)
    /// Draws over the screen's `area` (`statusBar` is the bottom line, for the filter line); only reads.
    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData)
    func shown(_ data: ScreenData) -> Shown
    /// A store changed; `.close` closes it (the new-goal form once its goal arrived).
    func receive(_ event: StoreEvent, _ data: ScreenData) -> Outcome
}

extension Overlay {
    func layOut(area: Rect, _ data: ScreenData) {}
    func shown(_ data: ScreenData) -> Shown { Shown() }
    func receive(_ event: StoreEvent, _ data: ScreenData) -> Outcome { .ignored }
}

extension ListState {
    /// Selects row `index` (when there is one) and scrolls as little as shows it.
    mutating func select(_ index: Int?, count: Int) {
        guard let index else { return }
        selected = index
        clamp(count: count)
    }

    /// The one list navigation: moves, pages, ends and filter matches, for every list (the goal
    /// picker's too). Returns false for actions that are not list moves.
    mutating func navigate(_ action: AppAction, count: Int) -> Bool {
        switch action {
        case .moveDown: moveBy(1, count: count)
        case .moveUp: moveBy(-1, count: count)
        case .pageDown: page(1, count: count)
        case .pageUp: page(-1, count: count)
        case .scrollDown: moveBy(3, count: count)
        case .scrollUp: moveBy(-3, count: count)
        case .top: top()
        case .bottom: bottom(count: count)
        case .nextMatch, .previousMatch:
            // With a filter every row shown matches: the next match is the next row, wrapping.
            guard count > 0 else { return true }
            let direction = action == .nextMatch ? 1 : -1
            if direction > 0 && selected >= count - 1 {
                top()
            } else if direction < 0 && selected == 0 {
                bottom(count: count)
            } else {
                moveBy(direction, count: count)
            }
        default:
            return false
        }
        return true
    }
}
