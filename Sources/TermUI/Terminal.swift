/// Where frames go: the real terminal (`NcursesTerminal`) or memory (`TestTerminal`).
@MainActor
public protocol Terminal: AnyObject {
    var size: TerminalSize { get }
    /// Shows the buffer; only cells that changed need to reach the screen.
    func present(_ buffer: CellBuffer)
}
