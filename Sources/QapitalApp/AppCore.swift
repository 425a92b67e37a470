import FeedModel
import Foundation
import TermImage
import TermUI

/// The whole app without a terminal: state, `handle(event)` and `render(into:)`.
///
/// Everything runs on the main actor; network results arrive through the stores' callbacks on
/// the same actor, so state changes in one place only. Tests drive it with keys and read the
/// frames from a `CellBuffer`.
@MainActor
public final class AppCore {
    public enum Tab: Int, CaseIterable {
        case goals
        case activity
        case roundUps
        case achievements

        /// The number its key and title carry; fixed, whatever tabs come before it.
        public var number: Int {
            switch self {
            case .goals: 1
            case .activity: 2
            case .roundUps: 3
            case .achievements: 4
            }
        }

        public var title: String {
            switch self {
            case .goals: "1 Goals"
            case .activity: "2 Activity"
            case .roundUps: "3 Round-ups"
            case .achievements: "4 Achievements"
            }
        }
    }

    public struct Configuration {
        public var sourceName: String
        public var colors: Bool
        public var timeZone: TimeZone = .current
        /// The account's currency: goals are in it, and only round-ups in it can be saved.
        public var currency: Currency = .usd
        /// How long an error stays in the status bar.
        public var errorLifetime: TimeInterval = 6
        /// Goal images and avatars (off with `--no-images`; never without colours).
        public var images: Bool = true
        /// The URL schemes whose pictures are fetched (the demo adds its own in-process one).
        public var pictureSchemes: Set<String> = ["http", "https"]

        public init(sourceName: String, colors: Bool, timeZone: TimeZone = .current, currency: Currency = .usd,
                    errorLifetime: TimeInterval = 6, images: Bool = true, pictureSchemes: Set<String> = ["http", "https"]) {
            self.sourceName = sourceName
            self.colors = colors
            self.timeZone = timeZone
            self.currency = currency
            self.errorLifetime = errorLifetime
            self.images = images
            self.pictureSchemes = pictureSchemes
        }
    }

    /// Smallest size that gets the full layout.
    static let minimumWidth = 20
    static let minimumHeight = 6

    let configuration: Configuration
    let goals: GoalStore
    public let feed: ActivityFeed
    let users: UserDirectory
    let format: DisplayFormat
    let roundUps: RoundUpStore
    let goalCreator: GoalCreator
    /// Pictures, when shown at all (with colours and without `--no-images`).
    let images: ImageStore?
    /// Called when something changed that should be drawn.
    public var onChange: (@MainActor () -> Void)?

    public private(set) var tab: Tab = .goals
    private(set) var goalList = GoalListScreen.State()
    private(set) var detail: GoalDetailScreen.State?
    private(set) var activity = ActivityScreen.State()
    let achievements: AchievementsFile
    private(set) var achievementsState = AchievementsScreen.State()
    private(set) var popup: UserPopup?
    private(set) var filterInput: TextInput?
    private(set) var helpScroll: Int?
    public private(set) var shouldQuit = false
    /// The signal that ended the app, if one did (the exit status is then 128 + signal).
    public private(set) var quitSignal: Int32?
    private(set) var statusError: (message: String, at: Date)?
    private var reportedFailures: Set<String> = []
    private var busySince: Date?
    /// TermUI's spinner: its delay and frames; the time comes from the app's own clock.
    private let spinner = Spinner(startedAt: .now)
    private let now: @Sendable () -> Date
    private let api: any SavingsAPI
    /// Set when the API has an offline cache behind it.
    private let connectivity: Connectivity?
    private var lastReconnectAttempt = Date.distantPast
    private var activityStarted = false
    private(set) var roundUpsScreen = RoundUpsScreen.State()
    private(set) var newGoalForm: NewGoalForm?
    /// A passing message in the status bar ("Created goal …"), expiring like errors.
    private(set) var statusNotice: (message: String, at: Date)?
    private var roundUpsStarted = false

    public init(api: any SavingsAPI, configuration: Configuration,
                achievements: AchievementsFile = AchievementsFile(title: "", achievements: []),
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        self.achievements = achievements
        self.now = now
        let users = UserDirectory(api: api, now: now)
        self.users = users
        self.api = api
        self.connectivity = (api as? CachingSavingsAPI)?.connectivity
        self.goals = GoalStore(api: api, users: users)
        self.feed = ActivityFeed(api: api, now: now)
        self.format = DisplayFormat(timeZone: configuration.timeZone, now: now)
        self.roundUps = RoundUpStore(api: api, goals: goals, accountCurrency: configuration.currency,
                                     calendar: Week.calendar(in: configuration.timeZone), now: now)
        self.goalCreator = GoalCreator(api: api, goals: goals)
        if configuration.images && configuration.colors {
            // The demo's own pictures come from the API in process; everything else over HTTP(S).
            self.images = ImageStore(schemes: configuration.pictureSchemes) { url in try await api.imageData(at: url) }
        } else {
            self.images = nil
        }
        roundUps.onChange = { [weak self] in self?.dataChanged() }
        goalCreator.onChange = { [weak self] in self?.goalCreatorChanged() }
        users.onChange = { [weak self] _ in self?.userArrived() }
        goals.onChange = { [weak self] in self?.dataChanged() }
        feed.onChange = { [weak self] in self?.dataChanged() }
        images?.onChange = { [weak self] _ in self?.dataChanged() }
    }

    /// Starts loading what the first screens show. The activity feed starts at once too, so the
    /// Activity tab has its first page before anyone switches to it.
    public func start() {
        goals.load()
        startActivity()
        if let note = AchievementsLoader.skippedNote(achievements) {
            statusError = (note, now())
        }
    }

    private func startActivity() {
        activityStarted = true
        activity.rows.reset()
        feed.start()
    }

    /// Nothing in flight: used by tests to wait for the app to settle.
    public var isIdle: Bool {
        !goals.isBusy && !feed.isBusy && !users.isBusy && !roundUps.isBusy && !goalCreator.isBusy && !(images?.isBusy ?? false)
    }

    // MARK: - Events

    public func handle(_ event: TerminalEvent) {
        switch event {
        case .key(let key):
            handle(key)
        case .resize:
            break  // the next frame is drawn at the new size
        case .quitSignal(let signal):
            quitSignal = signal
            shouldQuit = true
        }
    }

    /// Periodic: expires the status error; the spinner advances because the frame is redrawn.
    public func tick() {
        if let error = statusError, now().timeIntervalSince(error.at) >= configuration.errorLifetime {
            statusError = nil
        }
        if let notice = statusNotice, now().timeIntervalSince(notice.at) >= configuration.errorLifetime {
            statusNotice = nil
        }
        if let note = connectivity?.takeCacheNote() { showNotice(note) }
        // Offline: try the server again now and then, so the app recovers by itself.
        if connectivity?.isOffline == true, !goals.isBusy, now().timeIntervalSince(lastReconnectAttempt) >= 10 {
            lastReconnectAttempt = now()
            goals.load()
        }
    }

    /// Whether ticks are needed now (a spinner turns or an error waits to expire).
    public var wantsTicks: Bool {
        !isIdle || statusError != nil || statusNotice != nil || connectivity?.isOffline == true || connectivity?.hasCacheNote == true
    }

    /// A name arrived: a filter that matches names must look at the rows again.
    private func userArrived() {
        if !activity.filter.isEmpty { activity.rows.reset() }
        dataChanged()
    }

    private func dataChanged() {
        collectFailures()
        if tab == .activity || activityStarted {
            ActivityScreen.sync(state: &activity, feed: feed, users: users, timeZone: configuration.timeZone)
            ActivityScreen.reportViewport(state: activity, feed: feed)
        }
        onChange?()
    }

    /// New failures go to the status bar; a failure that went away clears it.
    private func collectFailures() {
        var current: Set<String> = []
        if let message = goals.status.failureMessage { current.insert(message) }
        for state in goals.feeds.values { if let message = state.status.failureMessage { current.insert(message) } }
        if case .failed(let message) = feed.phase { current.insert(message) }
        if let message = roundUps.status.failureMessage { current.insert(message) }
        if let message = roundUps.status.failureMessage { current.insert(message) }
        if let message = roundUps.transfer?.failureMessage { current.insert(message) }
        if let newest = current.subtracting(reportedFailures).sorted().first {
            statusError = (newest, now())
        } else if let shown = statusError, !current.contains(shown.message), reportedFailures.contains(shown.message) {
            statusError = nil
        }
        reportedFailures = current
    }

    private func handle(_ key: Key) {
        if helpScroll != nil {
            handleHelp(key)
            return
        }
        if popup != nil {
            handlePopup(key)
            return
        }
        if filterInput != nil {
            handleFilter(key)
            return
        }
        if newGoalForm != nil {
            handleNewGoalForm(key)
            return
        }
        if tab == .roundUps, roundUpsScreen.overlay != nil {
            handleRoundUpsOverlay(key)
            return
        }
        if key == .resize { return }
        guard let action = AppAction.keyMap.action(for: key) else { return }
        perform(action)
    }

    private func handleHelp(_ key: Key) {
        switch AppAction.keyMap.action(for: key) {
        case .moveDown, .scrollDown: helpScroll = min((helpScroll ?? 0) + 1, HelpOverlay.lines(for: AppAction.keyMap).count - 1)
        case .moveUp, .scrollUp: helpScroll = max(0, (helpScroll ?? 0) - 1)
        default: helpScroll = nil
        }
    }

    private func handlePopup(_ key: Key) {
        switch key {
        case .right, .tab, .char("l"): popup?.step(1)
        case .left, .backTab: popup?.step(-1)
        case .resize: break
        default: popup = nil
        }
    }

    private func handleFilter(_ key: Key) {
        guard var input = filterInput else { return }
        switch input.handle(key) {
        case .edited:
            filterInput = input
            setFilter(input.text)
        case .moved, .ignored:
            filterInput = input
        case .submitted:
            filterInput = nil
        case .cancelled:
            filterInput = nil
            setFilter("")
        }
    }

    private var currentFilter: String {
        switch tab {
        case .goals: detail?.filter ?? goalList.filter
        case .activity: activity.filter
        case .roundUps: roundUpsScreen.filter
        case .achievements: achievementsState.filter
        }
    }

    private func setFilter(_ text: String) {
        switch tab {
        case .goals:
            if detail != nil {
                detail?.filter = text
                detail?.list.top()
            } else {
                goalList.filter = text
                goalList.list.top()
            }
        case .activity:
            activity.filter = text
            activity.list.top()
            ActivityScreen.sync(state: &activity, feed: feed, users: users, timeZone: configuration.timeZone)
            ActivityScreen.reportViewport(state: activity, feed: feed)
        case .roundUps:
            roundUpsScreen.filter = text
            roundUpsScreen.list.top()
        case .achievements:
            achievementsState.filter = text
            achievementsState.list.top()
        }
    }

    private func perform(_ action: AppAction) {
        switch action {
        case .moveDown: moveSelection { $0.moveBy(1, count: $1) }
        case .moveUp: moveSelection { $0.moveBy(-1, count: $1) }
        case .pageDown: moveSelection { $0.page(1, count: $1) }
        case .pageUp: moveSelection { $0.page(-1, count: $1) }
        case .scrollDown: moveSelection { $0.moveBy(3, count: $1) }
        case .scrollUp: moveSelection { $0.moveBy(-3, count: $1) }
        case .top: moveSelection { state, _ in state.top() }
        case .bottom: moveSelection { $0.bottom(count: $1) }
        case .open: open()
        case .back: back()
        case .nextTab: switchTab(to: Tab(rawValue: (tab.rawValue + 1) % Tab.allCases.count)!)
        case .previousTab: switchTab(to: Tab(rawValue: (tab.rawValue + Tab.allCases.count - 1) % Tab.allCases.count)!)
        case .showTab(let number): if let target = Tab.allCases.first(where: { $0.number == number }) { switchTab(to: target) }
        case .people: openPeople()
        case .filter: filterInput = TextInput(currentFilter)
        case .refresh: refresh()
        case .help: helpScroll = 0
        case .quit:
            if tab == .goals && detail != nil { back() } else { shouldQuit = true }
        case .previousWeek: if tab == .roundUps { roundUps.showPreviousWeek(); roundUpsScreen.list.top() }
        case .nextWeek: if tab == .roundUps, roundUps.showNextWeek() { roundUpsScreen.list.top() }
        case .save: if tab == .roundUps { startSave() }
        case .newGoal:
            // With a filter set, n jumps to the next match (as in less); otherwise it makes a goal.
            if !currentFilter.isEmpty {
                jumpToMatch(1)
            } else if tab == .goals || tab == .roundUps {
                openNewGoalForm()
            }
        case .previousMatch: if !currentFilter.isEmpty { jumpToMatch(-1) }
        }
    }

    private func moveSelection(_ move: (inout ListState, Int) -> Void) {
        switch tab {
        case .goals:
            if var state = detail {
                let count = GoalDetailScreen.visibleEntries(goals.feed(for: state.goalId).entries, filter: state.filter, users: users).count
                move(&state.list, count)
                detail = state
            } else {
                move(&goalList.list, GoalListScreen.visibleGoals(goals.goals, filter: goalList.filter).count)
            }
        case .activity:
            let before = activity.list.selected
            move(&activity.list, activity.rowCount)
            // Day headers are not stops: step over one in the direction of travel.
            if activity.list.selected < activity.rows.count, case .day = activity.rows.rows[activity.list.selected] {
                let direction = activity.list.selected >= before ? 1 : -1
                let next = activity.list.selected + direction
                if next >= 0 && next < activity.rowCount { activity.list.moveBy(direction, count: activity.rowCount) }
            }
            ActivityScreen.sync(state: &activity, feed: feed, users: users, timeZone: configuration.timeZone)
            ActivityScreen.reportViewport(state: activity, feed: feed)
        case .roundUps:
            move(&roundUpsScreen.list, RoundUpsScreen.visibleLines(roundUps.summary, filter: roundUpsScreen.filter).count)
        case .achievements:
            move(&achievementsState.list, AchievementsScreen.visible(achievements, filter: achievementsState.filter).count)
        }
    }

    /// n and N with a filter set: every row shown matches, so the next match is the next row,
    /// wrapping at either end (day headers are stepped over like any move).
    private func jumpToMatch(_ direction: Int) {
        moveSelection { state, count in
            guard count > 0 else { return }
            if direction > 0 && state.selected >= count - 1 {
                state.top()
            } else if direction < 0 && state.selected == 0 {
                state.bottom(count: count)
            } else {
                state.moveBy(direction, count: count)
            }
        }
    }

    /// `u`: the people behind the selected goal, saving or activity.
    private func openPeople() {
        switch tab {
        case .goals:
            if let state = detail, let goal = goals.goal(id: state.goalId) {
                let entries = GoalDetailScreen.visibleEntries(goals.feed(for: goal.id).entries, filter: state.filter, users: users)
                let saver = state.list.selected < entries.count ? entries[state.list.selected].item.userId : nil
                popup = UserPopup(people: (saver.map { [$0] } ?? []) + [goal.ownerId] + goal.connectedUserIds, startingAt: saver)
            } else {
                let visible = GoalListScreen.visibleGoals(goals.goals, filter: goalList.filter)
                guard goalList.list.selected < visible.count else { return }
                let goal = visible[goalList.list.selected]
                popup = UserPopup(people: [goal.ownerId] + goal.connectedUserIds, startingAt: goal.connectedUserIds.first)
            }
        case .activity:
            guard let index = activity.rows.activityIndex(atOrAfter: activity.list.selected),
                  index < feed.activities.count else { return }
            popup = UserPopup(people: [feed.activities[index].userId])
        case .roundUps, .achievements:
            break
        }
    }

    private func open() {
        guard tab == .goals else { return }
        // In a goal, Enter shows who is behind the selected saving and the goal (as `u` does).
        if detail != nil {
            openPeople()
            return
        }
        let visible = GoalListScreen.visibleGoals(goals.goals, filter: goalList.filter)
        guard goalList.list.selected < visible.count else { return }
        let goal = visible[goalList.list.selected]
        detail = GoalDetailScreen.State(goalId: goal.id)
        goals.loadFeed(goalId: goal.id)
    }

    private func back() {
        if !currentFilter.isEmpty {
            setFilter("")
            return
        }
        if tab == .goals && detail != nil {
            detail = nil
        }
        if tab == .roundUps {
            roundUps.dismissTransfer()
        }
    }

    private func switchTab(to target: Tab) {
        tab = target
        if target == .activity {
            if !activityStarted { startActivity() }
            ActivityScreen.sync(state: &activity, feed: feed, users: users, timeZone: configuration.timeZone)
        }
        if target == .roundUps && !roundUpsStarted {
            roundUpsStarted = true
            roundUps.load()
        }
    }

    private func refresh() {
        switch tab {
        case .goals:
            if let detail {
                goals.loadFeed(goalId: detail.goalId)
            } else {
                goals.load()
            }
        case .activity:
            if case .failed = feed.phase {
                feed.retry()
            } else {
                users.retryFailed()
                (api as? CachingSavingsAPI)?.refresh()
                feed.refresh()
            }
        case .roundUps:
            if !roundUps.retryTransfer() { roundUps.load() }
        case .achievements:
            break
        }
    }

    // MARK: - Drawing

    public func render(into buffer: inout CellBuffer) {
        buffer.clear()
        // The screens ask for the pictures they show; fetches no frame asks for are cancelled.
        images?.beginFrame()
        defer { images?.endFrame() }
        let area = buffer.area
        guard area.width >= AppCore.minimumWidth, area.height >= AppCore.minimumHeight else {
            buffer.write("Terminal too small (\(area.width)×\(area.height)); need \(AppCore.minimumWidth)×\(AppCore.minimumHeight)",
                         x: 0, y: 0, maxWidth: area.width)
            return
        }
        let spinnerFrame = self.spinnerFrame()
        TabBar(titles: Tab.allCases.map(\.title), selected: tab.rawValue).draw(into: &buffer, rect: area.top(1))
        let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 2)
        switch tab {
        case .goals:
            if var state = detail {
                GoalDetailScreen.render(state: &state, store: goals, users: users, format: format, colors: configuration.colors,
                                        images: images, into: &buffer, area: body)
                detail = state
            } else {
                GoalListScreen.render(state: &goalList, store: goals, users: users, colors: configuration.colors,
                                      images: images, into: &buffer, area: body)
            }
        case .activity:
            ActivityScreen.sync(state: &activity, feed: feed, users: users, timeZone: configuration.timeZone)
            ActivityScreen.render(state: &activity, feed: feed, users: users, format: format, spinnerFrame: spinnerFrame,
                                  images: images, into: &buffer, area: body)
        case .roundUps:
            RoundUpsScreen.render(state: &roundUpsScreen, store: roundUps, goals: goals, format: format, into: &buffer, area: body)
        case .achievements:
            AchievementsScreen.render(state: &achievementsState, file: achievements, into: &buffer, area: body)
        }
        if let popup {
            popup.render(users: users, goals: goals.goals, colors: configuration.colors, images: images, into: &buffer, area: body)
        }
        if let form = newGoalForm {
            form.draw(phase: goalCreator.phase, currency: configuration.currency, into: &buffer, area: body)
        }
        drawStatusBar(into: &buffer, rect: area.bottom(1), spinnerFrame: spinnerFrame)
        if let scroll = helpScroll {
            HelpOverlay.draw(AppAction.keyMap, into: &buffer, in: body, title: "Keys", scroll: scroll)
        }
    }

    /// The spinner shows only after a second of waiting, so quick answers never flicker.
    /// Worked out once a frame: the feed's loading row and the status bar show the same one.
    private func spinnerFrame() -> String? {
        if isIdle {
            busySince = nil
            return nil
        }
        let since = busySince ?? now()
        busySince = since
        return spinner.frame(elapsed: .seconds(now().timeIntervalSince(since)))
    }

    /// A one-line note in the status bar that goes away by itself (e.g. about the cache).
    public func showNotice(_ text: String) {
        statusNotice = (text, now())
    }

    /// "just now", "5 min ago", "2 h ago", "3 d ago".
    static func age(since date: Date, now: Date) -> String {
        let seconds = max(0, now.timeIntervalSince(date))
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return "\(Int(seconds / 60)) min ago"
        case ..<(2 * 86_400): return "\(Int(seconds / 3600)) h ago"
        default: return "\(Int(seconds / 86_400)) d ago"
        }
    }

    private func drawStatusBar(into buffer: inout CellBuffer, rect: Rect, spinnerFrame: String?) {
        var left = [Span(" " + configuration.sourceName + " ")]
        if let connectivity, connectivity.isOffline {
            let text = connectivity.showsCachedData ? "offline — showing cached data " : "offline "
            left.append(Span(text, Style(fg: .role(.warning), attributes: .bold)))
        } else if let cachedAt = goals.cachedAt {
            left.append(Span("cached \(AppCore.age(since: cachedAt, now: now())) ", Style(fg: .role(.muted))))
        }
        if let frame = spinnerFrame { left.append(Span(frame + " ")) }
        var center: [Span] = []
        if let error = statusError {
            center = [Span("✗ " + error.message, Style(fg: .role(.error), attributes: [.bold, .reverse]))]
        } else if !currentFilter.isEmpty {
            center = [Span("filter: " + currentFilter + " (Esc clears)")]
        } else if let notice = statusNotice {
            center = [Span(notice.message, .bold)]
        }
        var hints = detail != nil && tab == .goals ? "Esc back  ? help  q back " : "? help  q quit "
        if rect.width < 40 { hints = "? help " }
        StatusBar(left: left, center: center, right: [Span(hints)]).draw(into: &buffer, rect: rect)
        if let input = filterInput {
            // The filter line takes the whole bar so the cursor is visible.
            buffer.fill(rect, style: .reverse)
            buffer.write("/", x: rect.x, y: rect.y, style: .reverse)
            input.draw(into: &buffer, x: rect.x + 1, y: rect.y, width: rect.width - 1, style: .reverse, cursorStyle: Style(attributes: .underline))
        }
    }
}

// MARK: - Round-ups and new goals

extension AppCore {
    /// `s`: retries a failed transfer with its id; otherwise opens the goal picker, or says why
    /// the week cannot be saved.
    fileprivate func startSave() {
        if roundUps.retryTransfer() { return }
        if let problem = roundUps.saveProblem {
            showNotice(problem.message)
            return
        }
        roundUpsScreen.overlay = .picker(ListState())
    }

    fileprivate func handleRoundUpsOverlay(_ key: Key) {
        let action = AppAction.keyMap.action(for: key)
        switch roundUpsScreen.overlay {
        case .picker(var list)?:
            let count = goals.goals.count
            switch action {
            case .moveDown: list.moveBy(1, count: count)
            case .moveUp: list.moveBy(-1, count: count)
            case .pageDown: list.page(1, count: count)
            case .pageUp: list.page(-1, count: count)
            case .top: list.top()
            case .bottom: list.bottom(count: count)
            case .open:
                guard list.selected < count else { return }
                roundUpsScreen.overlay = .confirm(goalId: goals.goals[list.selected].id)
                return
            case .back, .quit:
                roundUpsScreen.overlay = nil
                return
            default:
                return
            }
            roundUpsScreen.overlay = .picker(list)
        case .confirm(let goalId)?:
            if key == .enter || key == .char("y") {
                roundUpsScreen.overlay = nil
                guard let goal = goals.goal(id: goalId) else { return }
                do {
                    try roundUps.save(into: goal)
                } catch {
                    showNotice(error.message)
                }
            } else if key == .escape || key == .char("n") || key == .char("q") || key == .backspace {
                roundUpsScreen.overlay = nil
            }
        case nil:
            break
        }
    }

    fileprivate func openNewGoalForm() {
        goalCreator.reset()
        newGoalForm = NewGoalForm()
    }

    fileprivate func handleNewGoalForm(_ key: Key) {
        guard var form = newGoalForm else { return }
        switch key {
        case .escape:
            newGoalForm = nil
            goalCreator.reset()
            return
        case .enter:
            guard !goalCreator.isBusy else { return }
            if let goal = form.validate(currency: configuration.currency) { goalCreator.create(goal) }
        default:
            form.edit(key)
        }
        newGoalForm = form
    }

    /// A created goal closes the form, is selected in the Goals list and named in the status bar.
    fileprivate func goalCreatorChanged() {
        if newGoalForm != nil, case .created(let goal) = goalCreator.phase {
            newGoalForm = nil
            goalCreator.reset()
            if let index = GoalListScreen.visibleGoals(goals.goals, filter: goalList.filter).firstIndex(where: { $0.id == goal.id }) {
                goalList.list.selected = index
            }
            showNotice("Created the goal “\(goal.name)”.")
        }
        onChange?()
    }
}
