import FeedModel
import Foundation
import TermImage
import TermUI

/// The app without a terminal: routing between the screens and overlays, the tab bar and the
/// status bar. Screens own their state (`Screen`); overlays stack above them (`Overlay`); the
/// stores are `AppStores`.
///
/// Everything runs on the main actor. Keys and the stores' typed events arrive as `Event`s
/// through one queue, which `AppRunner` reads; `update` reacts per event.
@MainActor
public final class AppCore {
    /// The tabs, in order; a tab's number is its place. A new tab is one line here.
    static let tabs: [any TabScreen.Type] = [GoalListScreen.self, ActivityScreen.self, RoundUpsScreen.self, AchievementsScreen.self,
                                           PeopleScreen.self]

    /// What the event loop reads, in order.
    public enum Event: Sendable {
        case terminal(TerminalEvent)
        case store(StoreEvent)
        case picture(URL)
        case tick
    }

    /// Smallest size that gets the full layout.
    static let minimumWidth = 20
    static let minimumHeight = 6

    let configuration: Configuration
    let stores: AppStores
    private let connectivity: Connectivity?
    private let skippedRecords: SkippedRecords?
    private var signIn: SignInOffer
    private var reconnect = ReconnectPolicy()
    private var data: ScreenData
    private let commands: CommandRunner
    let queue: EventQueue
    private let sink: EventSink<StoreEvent>

    /// Each tab's screens, the tab's own first (Enter on a goal pushes its detail).
    private(set) var stacks: [[any Screen]]
    public private(set) var tabIndex = 0
    /// Above the screens, the top one last; it takes keys first.
    private(set) var overlays: [any Overlay] = []
    public private(set) var shouldQuit = false
    /// Ctrl-L: the next frame is drawn whole (the runner asks the terminal).
    public var wantsFullRedraw = false
    /// The signal that ended the app, if one did (the exit status is then 128 + signal).
    public private(set) var quitSignal: Int32?
    private var status: StatusLine
    private let keys: ScreenKeys

    public init(api: any SavingsAPI, configuration: Configuration, capabilities: Capabilities = Capabilities(),
                achievements: AchievementsFile = AchievementsFile(title: "", achievements: []),
                now: @escaping @Sendable () -> Date = { Date() }, events queue: EventQueue = EventQueue()) {
        sink = queue.sink.map { .store($0) }
        self.queue = queue
        self.configuration = configuration
        connectivity = capabilities.connectivity
        skippedRecords = capabilities.skippedRecords
        signIn = SignInOffer(capabilities.signIn)
        stores = AppStores(api: api, configuration: configuration, cache: capabilities.cache, events: sink,
                           pictureArrived: { queue.post(.picture($0)) }, now: now)
        data = ScreenData(stores, achievements: achievements, configuration: configuration,
                          format: DisplayFormat(timeZone: configuration.timeZone, now: now))
        commands = CommandRunner(stores: stores, refreshCache: capabilities.refreshCache)
        stacks = AppCore.tabs.map { [$0.init()] }
        keys = ScreenKeys(configuration.keys)
        status = StatusLine(sourceName: configuration.sourceName, lifetime: configuration.errorLifetime, now: now)
        status.errorLog = capabilities.errorLog
    }

    public var feed: ActivityFeed { stores.feed }
    var goals: GoalStore { stores.goals }
    var roundUps: RoundUpStore { stores.roundUps }
    var screen: any Screen { stacks[tabIndex].last! }
    /// What the screens read (for tests).
    var screenData: ScreenData { data }

    /// Posts an event into the queue (the loop posts the terminal's).
    public func post(_ event: Event) { queue.post(event) }

    /// Starts loading what the screens show (the activity feed too, so tab 2 has its first
    /// page before anyone switches to it).
    public func start() {
        for stack in stacks { run(stack[0].start(data)) }
        run([.loadAccount])
        run(screen.appear(data))
        if let note = AchievementsLoader.skippedNote(data.achievements) { status.error = (note, status.now()) }
    }

    /// Nothing in flight: used to wait for the app to settle.
    public var isIdle: Bool { !stores.isBusy && !overlays.contains { ($0 as? SignInOverlay)?.isChecking == true } }
    /// Events posted and not handled yet.
    public var pendingEvents: Int { queue.pending }
    /// Nothing in flight and every posted event handled.
    public var isSettled: Bool { isIdle && queue.pending == 0 }

    /// Whether ticks are needed now (a spinner turns or an error waits to expire).
    public var wantsTicks: Bool {
        !isIdle || status.error != nil || status.notice != nil || connectivity?.isOffline == true || connectivity?.hasCacheNote == true
    }

    /// A one-line note in the status bar that goes away by itself (e.g. about the cache).
    public func showNotice(_ text: String) { status.notice = (text, status.now()) }

    // MARK: - Events

    /// One event taken from the queue.
    public func update(_ event: Event) {
        switch event {
        case .terminal(let terminalEvent): handle(terminalEvent)
        case .store(let storeEvent): receive(storeEvent)
        case .picture: break  // drawn by the next frame
        case .tick: tick()
        }
    }

    public func handle(_ event: TerminalEvent) {
        switch event {
        case .key(let key): handle(key)
        case .resize: break  // the next frame is drawn at the new size
        case .quitSignal(let signal):
            quitSignal = signal
            shouldQuit = true
        }
    }

    /// Periodic: expires the status line's messages; offline, tries the server again now and then.
    public func tick() {
        status.expire()
        if let note = connectivity?.takeCacheNote() { showNotice(note) }
        if reconnect.shouldTry(offline: connectivity?.isOffline == true, busy: goals.isBusy, now: status.now()) { run([.loadGoals]) }
    }

    private func receive(_ event: StoreEvent) {
        status.collectFailures(goals: goals, feed: feed, roundUps: roundUps)
        switch event {
        case .account: if let summary = stores.account.account?.summary { status.sourceName = summary }
        // Money moved into a goal: the balance in the header changed.
        case .transfer: if case .succeeded? = roundUps.transfer?.phase { run([.loadAccount]) }
        case .signIn: if signIn.checked() { signedInAgain() }
        default: break
        }
        // Records an answer held but could not read: named in the status bar, the rest shown.
        if let note = skippedRecords?.drain().last { status.error = (note, status.now()) }
        if let form = signIn.form(over: overlays, events: sink) { overlays.append(form) }
        for screen in stacks.joined() { run(screen.receive(event, data)) }
        for overlay in overlays { apply(overlay.receive(event, data), from: overlay) }
    }

    /// A new token was accepted: everything shown loads again with it.
    private func signedInAgain() {
        status.error = nil
        for stack in stacks { run(stack[0].refresh(data)) }
        run([.loadAccount])
    }

    /// The event pump: the top overlay, then the screen, then the keys every screen shares.
    private func handle(_ key: Key) {
        if let top = overlays.last, !apply(top.handle(key, data), from: top).isIgnored { return }
        if key == .resize { return }
        if case .click(let x, let y) = key {
            if y == 0 {
                tabBar.index(atX: x).map(switchTab)
            } else {
                apply(screen.click(x: x, y: y, data), from: nil)
            }
            return
        }
        let screen = self.screen
        var action = keys.action(for: key, on: screen)
        if !screen.filter.isEmpty {
            // With a filter set, n and N jump between matches (as in less); Esc clears it first.
            if action == .newGoal { action = .nextMatch }
            if action == .back {
                screen.filter = ""
                return
            }
        } else if action == .previousMatch {
            return
        }
        guard apply(screen.handle(key, action: action, data), from: nil).isIgnored, let action else { return }
        switch action {
        case .nextTab: switchTab(to: (tabIndex + 1) % stacks.count)
        case .previousTab: switchTab(to: (tabIndex + stacks.count - 1) % stacks.count)
        case .showTab(let number): if number >= 1 && number <= stacks.count { switchTab(to: number - 1) }
        case .people: if let popup = screen.people(data) { overlays.append(popup) }
        case .filter: overlays.append(FilterLine(screen: screen))
        case .refresh: run(screen.refresh(data))
        case .redraw: wantsFullRedraw = true
        case .help: overlays.append(KeysHelp(entries: KeysHelp.entries(configuration.keys)))
        case .quit: shouldQuit = true
        default: break
        }
    }

    /// Carries out what a screen or the overlay `from` asked for; returns the outcome.
    @discardableResult
    private func apply(_ outcome: Outcome, from overlay: (any Overlay)?) -> Outcome {
        switch outcome {
        case .ignored, .consumed: break
        case .push(let next): stacks[tabIndex].append(next)
        case .pop: if stacks[tabIndex].count > 1 { stacks[tabIndex].removeLast() }
        case .present(let next): overlays.append(next)
        case .notice(let text): showNotice(text)
        case .close(let notice):
            signIn.closed(overlay)
            overlays.removeAll { $0 === overlay }
            if let notice { showNotice(notice) }
        case .replace(let next):
            overlays.removeAll { $0 === overlay }
            overlays.append(next)
        case .run(let work, let then):
            run(work)
            return apply(then, from: overlay)
        }
        return outcome
    }

    /// Carries out commands for the stores; what could not be done is noted in the status bar.
    private func run(_ work: [Command]) {
        for command in work { if let note = commands.run(command) { showNotice(note) } }
    }

    /// The tab bar: "1 Goals", … as drawn, the current tab highlighted.
    private var tabBar: TabBar { TabBar(titles: AppCore.tabs.enumerated().map { "\($0.offset + 1) \($0.element.title)" }, selected: tabIndex) }

    private func switchTab(to index: Int) {
        tabIndex = index
        run(screen.appear(data))
    }

    // MARK: - Drawing

    /// Draws the frame, then asks for what it showed (users, pictures, older activity).
    public func render(into buffer: inout CellBuffer) {
        let shown = draw(into: &buffer)
        stores.users.request(shown.users)
        stores.images?.want(shown.pictures)
        if let viewport = shown.feedViewport { feed.viewportChanged(cursor: viewport.cursor, screenHeight: viewport.screenHeight) }
    }

    /// Only reads: tab bar, the screen, the status bar, the overlays.
    private func draw(into buffer: inout CellBuffer) -> Shown {
        buffer.clear()
        let area = buffer.area
        guard area.width >= AppCore.minimumWidth, area.height >= AppCore.minimumHeight else {
            buffer.write("Terminal too small (\(area.width)×\(area.height)); need \(AppCore.minimumWidth)×\(AppCore.minimumHeight)",
                         x: 0, y: 0, maxWidth: area.width)
            return Shown()
        }
        data.spinnerFrame = status.spinnerFrame(idle: isIdle)
        tabBar.draw(into: &buffer, rect: area.top(1))
        let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 2)
        let screen = self.screen
        screen.draw(into: &buffer, area: body, data)
        var shown = screen.shown(data)
        let hints = stacks[tabIndex].count > 1 ? "Esc back  ? help  q back " : "? help  q quit "
        status.draw(into: &buffer, rect: area.bottom(1), filter: screen.filter, hints: hints, spinnerFrame: data.spinnerFrame,
                    offline: connectivity?.isOffline == true,
                    showsCachedData: connectivity?.showsCachedData == true, cachedAt: goals.cachedAt)
        for overlay in overlays {
            overlay.draw(into: &buffer, area: body, statusBar: area.bottom(1), data)
            shown.merge(overlay.shown(data))
        }
        return shown
    }
}
