import FeedModel
import Foundation
import TermUI

/// The one event loop: terminal events, ticks and arrived data go through one stream on the
/// main actor; each event updates the core and the frame is drawn again (ncurses sends only
/// the cells that changed).
@MainActor
public final class AppRunner {
    private enum Event {
        case terminal(TerminalEvent)
        case dataChanged
        case tick
    }

    private let core: AppCore
    private let terminal: NcursesTerminal
    private var buffer = CellBuffer(width: 0, height: 0)

    public init(core: AppCore, terminal: NcursesTerminal) {
        self.core = core
        self.terminal = terminal
    }

    public func run() async {
        let (events, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        terminal.startEventSources { continuation.yield(.terminal($0)) }
        core.onChange = { continuation.yield(.dataChanged) }
        // Ticks (spinner, errors that expire, reconnecting) only while the core wants them:
        // an idle app does not wake up.
        var ticker: Task<Void, Never>?
        func tickWhileWanted() {
            guard ticker == nil, core.wantsTicks else { return }
            ticker = Task { [core] in
                while !Task.isCancelled && core.wantsTicks {
                    try? await Task.sleep(for: .milliseconds(100))
                    continuation.yield(.tick)
                }
                ticker = nil
            }
        }
        defer { ticker?.cancel() }

        core.start()
        draw()
        tickWhileWanted()
        for await event in events {
            switch event {
            case .terminal(let terminalEvent):
                core.handle(terminalEvent)
            case .dataChanged:
                break
            case .tick:
                guard core.wantsTicks else { continue }
                core.tick()
            }
            if core.shouldQuit { break }
            draw()
            tickWhileWanted()
        }
    }

    private func draw() {
        let size = terminal.size
        if buffer.width != size.width || buffer.height != size.height {
            buffer = CellBuffer(width: size.width, height: size.height)
        }
        core.render(into: &buffer)
        terminal.present(buffer)
    }
}
