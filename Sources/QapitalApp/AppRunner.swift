import FeedModel
import Foundation
import TermUI

/// The one event loop, on any `Terminal`: terminal events, ticks and the stores' typed events
/// go through the core's one stream on the main actor; each event updates the core and the
/// frame is drawn again (the terminal sends only the cells that changed). The app runs it on
/// `NcursesTerminal`; tests run the same loop on `TestTerminal`.
@MainActor
public final class AppRunner {
    private let core: AppCore
    private let terminal: any Terminal
    private var buffer = CellBuffer(width: 0, height: 0)
    private var iterator: AsyncStream<AppCore.Event>.Iterator
    private var started = false
    private var ticker: Task<Void, Never>?
    private var tickerDue: Date?
    private var tickers = 0
    /// Deadlines of `run(until:)` waits; a stale one is told apart by its number.
    private var deadlines = 0
    private var expired: Int?

    public init(core: AppCore, terminal: any Terminal) {
        self.core = core
        self.terminal = terminal
        iterator = core.events.makeAsyncIterator()
    }

    /// Runs until the app quits.
    public func run() async {
        await run(until: { false })
    }

    /// Runs the loop until `done` holds after a frame (or the app quits, or `timeout` passes);
    /// returns whether `done` held. The first call starts the app. Tests drive the loop so.
    @discardableResult
    public func run(until done: () -> Bool, timeout: Duration? = nil) async -> Bool {
        if !started {
            started = true
            terminal.startEventSources { [core] in core.post(.terminal($0)) }
            core.start()
            draw()
        }
        var deadline: Task<Void, Never>?
        if let timeout {
            deadlines += 1
            let id = deadlines
            deadline = Task { [weak self] in
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                self?.expired = id
                self?.core.post(.tick)
            }
        }
        let id = deadlines
        defer {
            deadline?.cancel()
            stop()
        }
        tickWhileWanted()
        while !done() && !core.shouldQuit {
            if timeout != nil, expired == id { return done() }
            // A copy shares the stream's state; the stored one keeps the stream alive between runs.
            var events = iterator
            let next = await events.next(isolation: MainActor.shared)
            iterator = events
            guard let event = next else { break }
            if case .tick = event {
                core.update(event)
                if core.lastTickChanged { draw() }
                tickWhileWanted()
                continue
            }
            core.update(event)
            if core.shouldQuit { break }
            draw()
            tickWhileWanted()
        }
        return done()
    }

    /// One tick at the time the core asks for (`nextTick`: the spinner's next turn, an error that
    /// expires, the next reconnect attempt), none while it asks for none: an idle app does not
    /// wake up, online or offline. A tick that changed nothing draws nothing.
    private func tickWhileWanted() {
        guard let due = core.nextTick else { return }
        // A tick already due no later stays; one due later gives way (an error that expires
        // before the next reconnect attempt).
        if ticker != nil, let scheduled = tickerDue, scheduled <= due { return }
        ticker?.cancel()
        tickerDue = due
        tickers += 1
        let id = tickers
        let wait = min(max(due.timeIntervalSince(core.clockNow), 0.05), 3600)
        ticker = Task { [weak self, core] in
            guard (try? await Task.sleep(for: .seconds(wait))) != nil else { return }
            // Only the current ticker forgets itself (a stopped one must not forget its successor).
            if self?.tickers == id { self?.ticker = nil }
            core.post(.tick)
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
        core.render(into: &buffer)
        if core.wantsFullRedraw {
            core.wantsFullRedraw = false
            terminal.invalidate()
        }
        terminal.present(buffer)
    }
}
