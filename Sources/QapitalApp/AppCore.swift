import FeedModel
import Foundation
import TermUI

/// The app without a terminal: routing. Each event from the one `EventQueue` (which `AppRunner`
/// reads) goes to the overlays, the screens and the status bar (`StatusLine`); what they return
/// (screens to push, overlays to open, `Command`s for the stores in `AppStores`) is carried out
/// here. Screens own their state (`Screen`); overlays stack above them (`Overlay`). Main actor.
@MainActor
public final class AppCore {
    /// The tabs, in order; a tab's number is its place. A new tab is one line here.
    nonisolated static let builtInTabs: [any TabScreen.Type] = [GoalListScreen.self, ActivityScreen.self, RoundUpsScreen.self,
                                                                AchievementsScreen.self, PeopleScreen.self, RulesScreen.self]
    /// The tab bar, the number keys, the help and the config's key names follow this list.
    nonisolated static var tabs: [any TabScreen.Type] { builtInTabs + AddedTabs.screens }

    /// What the event loop reads, in order.
    public typealias Event = AppEvent

    let configuration: Configuration
    let stores: AppStores
    let queue: EventQueue
    private let sink: EventSink<StoreEvent>
    private(set) var data: ScreenData
    private let commands: CommandRunner
    private var signIn: SignInOffer
    /// Keys that wait for data (`Outcome.hold`), given again once a store answers.
    private var held = HeldKeys()
    private(set) var status: StatusLine
    private let keys: ScreenKeys
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

    /// `events`: the queue the loop reads (the sign-in's, when the app opens after it).
    public init(api: any SavingsAPI, configuration: Configuration, capabilities: Capabilities = Capabilities(),
                achievements: AchievementsFile = AchievementsFile(title: "", achievements: []),
                now: @escaping @Sendable () -> Date = { Date() }, events queue: EventQueue = EventQueue()) {
        sink = queue.sink.map { .store($0) }
        self.queue = queue
        self.configuration = configuration
        stores = AppStores(api: api, configuration: configuration, cache: capabilities.cache, saver: capabilities.roundUpSaver,
                           signIn: capabilities.signIn, rulesBook: capabilities.rulesBook, events: sink, pictureArrived: { queue.post(.picture($0)) }, now: now)
        data = ScreenData(stores, achievements: achievements, configuration: configuration,
                          format: DisplayFormat(timeZone: configuration.timeZone, now: now))
        commands = CommandRunner(stores: stores, refreshCache: capabilities.refreshCache, readQuestion: capabilities.readQuestion, readAnyway: capabilities.readAnyway)
        signIn = SignInOffer(capabilities.signIn, consent: capabilities.consentSignIn)
        status = StatusLine(configuration, capabilities, now: now)
        keys = ScreenKeys(configuration.keys)
        stacks = AppCore.tabs.map { [$0.init()] }
    }

    public var feed: ActivityFeed { stores.feed }
    var goals: GoalStore { stores.goals }; var roundUps: RoundUpStore { stores.roundUps }
    var screen: any Screen { stacks[tabIndex].last! }
    /// What the screens read (for tests).
    var screenData: ScreenData { data }

    /// Posts an event into the queue (the loop posts the terminal's).
    public func post(_ event: Event) { queue.post(event) }

    /// Starts loading what the screens show (the activity feed too, so tab 2 has its first page before anyone switches to it).
    public func start() {
        run(stacks.flatMap { $0[0].start(data) } + [.loadAccount] + screen.appear(data))
        if let note = AchievementsLoader.skippedNote(data.achievements) { status.error = (note, status.now()) }
    }

    /// Nothing in flight: used to wait for the app to settle.
    public var isIdle: Bool { !stores.isBusy }
    /// Events posted and not handled yet.
    public var pendingEvents: Int { queue.pending }
    /// Nothing in flight and every posted event handled.
    public var isSettled: Bool { isIdle && queue.pending == 0 }
    /// When the loop must wake without an event (nil: not until one; `StatusLine.nextTick`).
    public var nextTick: Date? { status.nextTick(busy: !isIdle, loading: goals.isBusy) }
    var clockNow: Date { status.now() }

    /// A one-line note in the status bar that goes away by itself (e.g. about the cache).
    public func showNotice(_ text: String) { status.show(notice: text) }

    /// One event taken from the queue; the spinner moves on after it (drawing only reads).
    /// Whether a frame is due (not after a tick that changed nothing).
    @discardableResult public func update(_ event: Event) -> Bool {
        var changed = true
        switch event {
        case .terminal(.key(let key)): if !held.isHolding { status.acted(key) }; handle(key)  // the wait stays said
        case .terminal(.quitSignal(let signal)): (quitSignal, shouldQuit) = (signal, true)
        case .terminal(.resize), .picture: break  // the next frame is drawn at the new size, with the picture
        case .store(let storeEvent): receive(storeEvent)
        case .tick: changed = tick()
        }
        status.track(busy: !isIdle)
        data.spinnerFrame = status.spinnerFrame
        return changed
    }

    /// A terminal event handled at once (tests and the bench, without the loop).
    public func handle(_ event: TerminalEvent) { update(.terminal(event)) }

    /// When `nextTick` came: messages expire; offline, the server may be tried again. Whether the frame changed.
    @discardableResult public func tick() -> Bool {
        let retry = status.shouldReconnect(loading: goals.isBusy)
        if retry { run([.loadGoals]) }
        return status.tick() || !isIdle || retry
    }

    private func receive(_ event: StoreEvent) {
        status.receive(event, stores)
        if status.cameBack { run(Command.afterReconnecting(stores)) }
        if event == .signIn && signIn.checked() || event == .consentSignIn && ConsentSignInOverlay.signedIn(overlays) {
            // A new token or consent: everything shown loads again (a consent's sign-in just read the bank).
            status.error = nil
            run((stacks.flatMap { $0[0].refresh(data) } + [.loadAccount]).filter { event == .signIn || $0 != .refreshCache })
        }
        if let form = signIn.form(over: overlays) { overlays.append(form) }
        for screen in stacks.joined() { run(screen.receive(event, data)) }
        for overlay in overlays { apply(overlay.receive(event, data), from: overlay) }
        for key in held.take() { handle(key) }  // what waited for data, in order (held again if still waiting)
    }

    /// The event pump: the top overlay, then the screen, then the keys every screen shares.
    private func handle(_ key: Key) {
        if held.isHolding {
            if key == .escape { _ = held.take(); showNotice("Cancelled: the keys typed meanwhile were dropped.") } else { held.hold(key) }
            return
        }
        if let top = overlays.last, !apply(top.handle(key, data), from: top).isIgnored { return }
        if key == .resize { return }
        if case .click(let x, let y) = key {
            if y == 0 { tabBar.index(atX: x, width: width).map(switchTab) } else { apply(screen.click(x: x, y: y, data), from: nil) }
            return
        }
        let screen = self.screen
        let action = keys.action(for: key, on: screen)
        if action == .back, !screen.filter.isEmpty {
            // Esc clears a filter first (the selection stays on its row).
            screen.clearFilter(data)
            return
        }
        let outcome = screen.handle(key, action: action, data)
        if case .hold(let waiting) = outcome {
            held.hold(key)
            return showNotice(waiting)
        }
        guard apply(outcome, from: nil).isIgnored, let action else { return }
        switch action {
        case .nextTab: switchTab(to: (tabIndex + 1) % stacks.count)
        case .previousTab: switchTab(to: (tabIndex + stacks.count - 1) % stacks.count)
        case .showTab(let number): if number >= 1 && number <= stacks.count { switchTab(to: number - 1) }
        case .people: if let popup = screen.people(data) { overlays.append(popup) }
        case .filter: overlays.append(FilterLine(screen: screen))
        case .refresh: apply(commands.refreshing(screen.refresh(data)), from: nil)
        case .redraw: wantsFullRedraw = true
        case .help: overlays.append(KeysHelp(entries: KeysHelp.entries(configuration.keys)))
        case .signInAtBank: apply(ConsentSignInOverlay.offer(signIn.consent, over: overlays, events: queue, key: data.keys[.signInAtBank]), from: nil)
        case .quit: shouldQuit = true
        default: break
        }
    }

    /// Carries out what a screen or the overlay `from` asked for; returns the outcome.
    @discardableResult
    private func apply(_ outcome: Outcome, from overlay: (any Overlay)?) -> Outcome {
        switch outcome {
        case .ignored, .consumed, .hold: break
        case .push(let next):
            overlays.removeAll { $0 === overlay }  // (a card that opens a screen goes as it opens)
            stacks[tabIndex].append(next)
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

    /// The tab bar: "1 Goals", … as drawn (numbers alone where they do not fit `width`, the last frame's), the current tab highlighted.
    var tabBar: TabBar { TabBar(titles: AppFrame.tabTitles, selected: tabIndex) }
    /// The last frame's width (where the tab bar's titles were).
    var width = Int.max

    private func switchTab(to index: Int) {
        tabIndex = index
        run(screen.appear(data))
    }
}
