import FeedModel
import Foundation
import TermUI

/// The one event loop, on any `Terminal`: terminal events, ticks and the stores' typed events
/// go through one `EventQueue` on the main actor. The loop waits for an event, takes every
/// event queued by then, updates the app with each, and draws one frame (the terminal sends
/// only the cells that changed). Before the app exists it runs the sign-in (`SignInScreen`),
/// which opens the app on the same queue. The app runs it on `NcursesTerminal`; tests run the
/// same loop on `TestTerminal`.
@MainActor
public final class AppRunner {
    /// The app, once it is open (from the start, or once the sign-in opened it).
    public private(set) var core: AppCore?
    /// The screen before the app (the sign-in), while it is up.
    private var first: (any FirstScreen)?
    private let queue: EventQueue
    private let terminal: any Terminal
    private var buffer = CellBuffer(width: 0, height: 0)
    private var started = false
    private var ticker: Task<Void, Never>?
    private var tickerDue: Date?
    private var tickers = 0
    /// Deadlines of `run(until:)` waits; a stale one is told apart by its number.
    private var deadlines = 0
    private var expired: Int?
    /// Events taken in one go before a frame at the most, so a flood still shows now and then.
    static let batchLimit = 10_000

    public init(core: AppCore, terminal: any Terminal) {
        self.core = core
        self.terminal = terminal
        queue = core.queue
    }

    /// The sign-in first; the app once it opens it.
    public init<Value>(signIn: SignInScreen<Value>, terminal: any Terminal) {
        first = signIn
        self.terminal = terminal
        queue = signIn.events
    }

    /// The consent sign-in at the bank first; the app once it opens it.
    public init<Value>(consentSignIn: ConsentSignInScreen<Value>, terminal: any Terminal) {
        first = consentSignIn
        self.terminal = terminal
        queue = consentSignIn.events
    }

    /// The signal that ended the loop, if one did (the exit status is then 128 + signal).
    public var quitSignal: Int32? { core?.quitSignal ?? first?.quitSignal }
    private var shouldQuit: Bool { core?.shouldQuit ?? first?.shouldQuit ?? true }
    /// Nothing in flight and every posted event handled (tests wait for it).
    var isSettled: Bool { queue.pending == 0 && (core?.isIdle ?? first?.isIdle ?? true) }

    /// Runs until the app quits (or the user leaves the sign-in); then the offline cache is
    /// checkpointed, so it is one tidy file.
    public func run() async {
        await run(until: { false })
        core?.stores.cache?.checkpoint()
    }

    /// Runs the loop until `done` holds after a frame (or the app quits, or `timeout` passes);
    /// returns whether `done` held. The first call starts the app. Tests drive the loop so.
    @discardableResult
    public func run(until done: () -> Bool, timeout: Duration? = nil) async -> Bool {
        if !started {
            started = true
            terminal.startEventSources { [queue] in queue.post(.terminal($0)) }
            core?.start()
            draw()
        }
        var deadline: Task<Void, Never>?
        if let timeout {
            deadlines += 1
            let id = deadlines
            deadline = Task { [weak self] in
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                self?.expired = id
                self?.queue.post(.tick)
            }
        }
        let id = deadlines
        defer {
            deadline?.cancel()
            stop()
        }
        tickWhileWanted()
        while !done() && !shouldQuit {
            if timeout != nil, expired == id { return done() }
            await queue.wait()
            if Task.isCancelled { break }
            // Everything queued is taken before drawing, answers that are ready meanwhile too
            // (each event lets them in): a burst of events is one frame.
            var (frameDue, taken) = (false, 0)
            while let event = queue.take() {
                frameDue = handle(event) || frameDue
                taken += 1
                if shouldQuit || taken >= Self.batchLimit { break }
                await Task.yield()
            }
            if shouldQuit { break }
            if frameDue { draw() }
            tickWhileWanted()
        }
        return done()
    }

    /// One event for the app, or for the sign-in before it; whether a frame is due for it (not
    /// for a tick nobody wants any more).
    private func handle(_ event: AppCore.Event) -> Bool {
        if let core {
            return core.update(event)
        } else if let opened = first?.update(event) {
            // Signed in: the app takes over the same queue and loop.
            precondition(opened.queue === queue, "the app must be made on the sign-in's event queue")
            first = nil
            core = opened
            opened.start()
        }
        return true
    }

    /// One tick at the time the core asks for (`nextTick`: the spinner's next turn, an error that
    /// expires, the next reconnect attempt), none while it asks for none: an idle app does not
    /// wake up, online or offline. A tick that changed nothing draws nothing.
    private func tickWhileWanted() {
        guard let core, let due = core.nextTick else { return }
        // A tick already due no later stays; one due later gives way (an error that expires
        // before the next reconnect attempt).
        if ticker != nil, let scheduled = tickerDue, scheduled <= due { return }
        ticker?.cancel()
        tickerDue = due
        tickers += 1
        let id = tickers
        let wait = min(max(due.timeIntervalSince(core.clockNow), 0.05), 3600)
        ticker = Task { [weak self, queue] in
            guard (try? await Task.sleep(for: .seconds(wait))) != nil else { return }
            // Only the current ticker forgets itself (a stopped one must not forget its successor).
            if self?.tickers == id { self?.ticker = nil }
            queue.post(.tick)
        }
    }

    /// Stops the ticks (when a `run(until:)` returns, nothing of the loop goes on).
    private func stop() {
        ticker?.cancel()
        ticker = nil
    }

    /// Draws one frame (internal: the tests draw after a tick they drive themselves).
    func draw() {
        let size = terminal.size
        if buffer.width != size.width || buffer.height != size.height {
            buffer = CellBuffer(width: size.width, height: size.height)
        }
        guard let core else {
            first?.draw(into: &buffer)
            terminal.present(buffer)
            return
        }
        core.layOut(buffer.area)
        let drawn = core.render(into: &buffer)
        if core.wantsFullRedraw {
            core.wantsFullRedraw = false
            terminal.invalidate()
        }
        terminal.present(buffer)
        // Drawing only read; what the frame showed is asked for now that it is on screen.
        core.drawn(drawn)
    }
}
