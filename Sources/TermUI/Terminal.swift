/// Where frames go and events come from: the real terminal (`NcursesTerminal`) or memory
/// (`TestTerminal`). The app's event loop runs on either.
@MainActor
public protocol Terminal: AnyObject {
    var size: TerminalSize { get }
    /// Shows the buffer; only cells that changed need to reach the screen.
    func present(_ buffer: CellBuffer)
    /// Starts delivering keys, resizes and quit signals to `sink`, on the main actor.
    func startEventSources(_ sink: @escaping @MainActor (TerminalEvent) -> Void)
    /// Forgets what the screen shows, so the next `present` draws every cell again (Ctrl-L).
    func invalidate()
}
