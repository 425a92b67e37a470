import FeedModel
import Foundation
import TermImage
import TermUI

/// The app without a terminal: routing between the screens and overlays, the tab bar and the
/// status bar. Screens own their state (`Screen`); overlays stack above them (`Overlay`).
///
/// Everything runs on the main actor. Keys and the stores' typed events arrive as `Event`s
/// through one stream (`events`), which `AppRunner` reads; `update` reacts per event.
@MainActor
public final class AppCore {
    /// The tabs, in order; a tab's number is its place. A new tab is one line here.
    static let tabs: [any TabScreen.Type] = [GoalListScreen.self, ActivityScreen.self, RoundUpsScreen.self, AchievementsScreen.self,
                                           PeopleScreen.self]
    /// Every overlay, for the help.
    static let overlayTypes: [any Overlay.Type] = [FilterLine.self, UserPopup.self, GoalPicker.self, SaveConfirmation.self,
                                                   NewGoalForm.self, SignInOverlay.self, KeysHelp.self]
    /// Screens opened from a tab (not tabs themselves), for the help.
    static let pushedScreens: [any Screen.Type] = [GoalDetailScreen.self]
    /// The help with the default keys: the shared keys, each tab's own, each pushed screen's, each overlay's.
    static var helpEntries: [HelpEntry] { helpEntries(KeyOverrides()) }

    /// The help with the keys `overrides` rebinds (what `?` shows).
    static func helpEntries(_ overrides: KeyOverrides) -> [HelpEntry] {
        AppAction.keyMap.rebinding(overrides.actions).helpEntries
            + tabs.flatMap { $0.keyMap.rebinding(overrides.actions).helpEntries }
            + pushedScreens.flatMap { $0.keyMap.rebinding(overrides.actions).helpEntries }
            + overlayTypes.flatMap { $0.help }
    }

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
    let goals: GoalStore
    public let feed: ActivityFeed
    let users: UserDirectory
    let roundUps: RoundUpStore
    let goalCreator: GoalCreator
    /// The bank account behind the source, for the status bar (nil for sources without one).
    let account: AccountStore
    /// Pictures, when shown at all (with colours and without `--no-images`).
    let images: ImageStore?
    private let connectivity: Connectivity?
    private let skippedRecords: SkippedRecords?
    private let signIn: SignInCapability?
    /// Closed by the user: not shown again for the same refusal.
    private var signInDismissed = false
    private var data: ScreenData
    private let queue: EventQueue
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
    /// The shared keys, as the config file rebinds them.
    private let keyMap: KeyMap<AppAction>
    /// Each screen type's own keys, rebound likewise (made on first use).
    private var screenKeyMaps: [ObjectIdentifier: KeyMap<AppAction>] = [:]

    public init(api: any SavingsAPI, configuration: Configuration, capabilities: Capabilities = Capabilities(),
                achievements: AchievementsFile = AchievementsFile(title: "", achievements: []),
                now: @escaping @Sendable () -> Date = { Date() }) {
        let queue = EventQueue()
        let sink: EventSink<StoreEvent> = queue.sink.map { .store($0) }
        self.queue = queue
        self.sink = sink
        self.configuration = configuration
        connectivity = capabilities.connectivity
        skippedRecords = capabilities.skippedRecords
        signIn = capabilities.signIn
        users = UserDirectory(api: api, now: now, events: sink)
        goals = GoalStore(api: api, users: users, cache: capabilities.cache, events: sink)
        feed = ActivityFeed(api: api, cache: capabilities.cache, now: now, events: sink)
        roundUps = RoundUpStore(api: api, goals: goals, accountCurrency: configuration.currency,
                                calendar: Week.calendar(in: configuration.timeZone), now: now, events: sink,
                                saver: capabilities.roundUpSaver)
        goalCreator = GoalCreator(api: api, goals: goals, events: sink)
        account = AccountStore(api: api, events: sink)
        if configuration.images && configuration.colors {
            // The demo's own pictures come from the API in process; everything else over HTTP(S).
            images = ImageStore(schemes: configuration.pictureSchemes, arrived: { queue.post(.picture($0)) }) { url in
                try await api.imageData(at: url)
            }
        } else {
            images = nil
        }
        data = ScreenData(goals: goals, feed: feed, users: users, roundUps: roundUps, goalCreator: goalCreator,
                          achievements: achievements, format: DisplayFormat(timeZone: configuration.timeZone, now: now),
                          images: images, colors: configuration.colors, currency: configuration.currency,
                          timeZone: configuration.timeZone, refreshCache: capabilities.refreshCache)
        stacks = AppCore.tabs.map { [$0.init()] }
        keyMap = AppAction.keyMap.rebinding(configuration.keys.actions)
        status = StatusLine(sourceName: configuration.sourceName, lifetime: configuration.errorLifetime, now: now)
        status.errorLog = capabilities.errorLog
    }

    /// The events the loop reads: keys it posts itself, the stores' arrivals.
    public var events: AsyncStream<Event> { queue.stream }

    /// Posts an event into the stream (the loop posts the terminal's).
    public func post(_ event: Event) { queue.post(event) }

    var screen: any Screen { stacks[tabIndex].last! }

    /// What the screens read (for tests).
    var screenData: ScreenData { data }

    /// Starts loading what the screens show (the activity feed too, so tab 2 has its first
    /// page before anyone switches to it).
    public func start() {
        for stack in stacks { stack[0].start(data) }
        account.load()
        screen.appear(data)
        if let note = AchievementsLoader.skippedNote(data.achievements) { status.error = (note, status.now()) }
    }

    /// Nothing in flight: used to wait for the app to settle.
    public var isIdle: Bool {
        !goals.isBusy && !feed.isBusy && !users.isBusy && !roundUps.isBusy && !goalCreator.isBusy && !account.isBusy
            && !(images?.isBusy ?? false) && !overlays.contains { ($0 as? SignInOverlay)?.isChecking == true }
    }

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

    /// One event read from the stream.
    public func update(_ event: Event) {
        queue.pending = max(0, queue.pending - 1)
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
        if connectivity?.isOffline == true, !goals.isBusy, status.now().timeIntervalSince(status.lastReconnect) >= 10 {
            status.lastReconnect = status.now()
            goals.load()
        }
    }

    private func receive(_ event: StoreEvent) {
        status.collectFailures(goals: goals, feed: feed, roundUps: roundUps)
        switch event {
        case .account:
            if let summary = account.account?.summary { status.sourceName = summary }
        case .transfer:
            // Money moved into a goal: the balance in the header changed.
            if case .succeeded? = roundUps.transfer?.phase { account.load() }
        case .signIn:
            if let signIn, !signIn.isRefused() { signedInAgain() }
        default:
            break
        }
        // Records an answer held but could not read: named in the status bar, the rest shown.
        if let note = skippedRecords?.drain().last { status.error = (note, status.now()) }
        offerSignInIfRefused()
        for screen in stacks.joined() { screen.receive(event, data) }
        for overlay in overlays { apply(overlay.receive(event, data), from: overlay) }
    }

    /// The server refused the token in use: the sign-in form, once (until a sign-in succeeds).
    private func offerSignInIfRefused() {
        guard let signIn, signIn.isRefused(), !signInDismissed, !overlays.contains(where: { $0 is SignInOverlay }) else { return }
        overlays.append(SignInOverlay(signIn, refusal: "The server refused the token in use: paste a new one.", events: sink))
    }

    /// A new token was accepted: everything shown loads again with it.
    private func signedInAgain() {
        signInDismissed = false
        status.error = nil
        for stack in stacks { stack[0].refresh(data) }
        account.load()
    }

    /// The event pump: the top overlay, then the screen, then the keys every screen shares.
    private func handle(_ key: Key) {
        if let top = overlays.last, !isIgnored(apply(top.handle(key, data), from: top)) { return }
        if key == .resize { return }
        if case .click(let x, let y) = key {
            click(x: x, y: y)
            return
        }
        let screen = self.screen
        var action = keyMap(for: type(of: screen)).action(for: key) ?? keyMap.action(for: key)
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
        guard isIgnored(apply(screen.handle(key, action: action, data), from: nil)), let action else { return }
        switch action {
        case .nextTab: switchTab(to: (tabIndex + 1) % stacks.count)
        case .previousTab: switchTab(to: (tabIndex + stacks.count - 1) % stacks.count)
        case .showTab(let number): if number >= 1 && number <= stacks.count { switchTab(to: number - 1) }
        case .people: if let popup = screen.people(data) { overlays.append(popup) }
        case .filter: overlays.append(FilterLine(screen: screen))
        case .refresh: screen.refresh(data)
        case .redraw: wantsFullRedraw = true
        case .help: overlays.append(KeysHelp(entries: AppCore.helpEntries(configuration.keys)))
        case .quit: shouldQuit = true
        default: break
        }
    }

    /// A screen's own keys, rebound as the config file says.
    private func keyMap(for type: any Screen.Type) -> KeyMap<AppAction> {
        if let map = screenKeyMaps[ObjectIdentifier(type)] { return map }
        let map = type.keyMap.rebinding(configuration.keys.actions)
        screenKeyMaps[ObjectIdentifier(type)] = map
        return map
    }

    private func isIgnored(_ outcome: Outcome) -> Bool {
        if case .ignored = outcome { return true }
        return false
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
            if overlay is SignInOverlay, signIn?.isRefused() == true { signInDismissed = true }
            overlays.removeAll { $0 === overlay }
            if let notice { showNotice(notice) }
        case .replace(let next):
            overlays.removeAll { $0 === overlay }
            overlays.append(next)
        }
        return outcome
    }

    /// A click: on the tab bar it switches tabs, in the screen the screen decides (a row).
    private func click(x: Int, y: Int) {
        if y == 0 {
            var left = 0
            for (index, title) in tabTitles.enumerated() {
                let width = TextWidth.of(title) + 2
                if x >= left && x < left + width {
                    switchTab(to: index)
                    return
                }
                left += width + 1
            }
            return
        }
        apply(screen.click(x: x, y: y, data), from: nil)
    }

    /// The tab bar's titles ("1 Goals"), as drawn.
    private var tabTitles: [String] { AppCore.tabs.enumerated().map { "\($0.offset + 1) \($0.element.title)" } }

    private func switchTab(to index: Int) {
        tabIndex = index
        screen.appear(data)
    }

    // MARK: - Drawing

    /// Draws the frame, then asks for what it showed (users, pictures, older activity).
    public func render(into buffer: inout CellBuffer) {
        let shown = draw(into: &buffer)
        users.request(shown.users)
        images?.want(shown.pictures)
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
        TabBar(titles: tabTitles, selected: tabIndex).draw(into: &buffer, rect: area.top(1))
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
