/// What the terminal reports to the app's event loop.
public enum TerminalEvent: Hashable, Sendable {
    case key(Key)
    case resize(width: Int, height: Int)
    /// SIGINT, SIGTERM or SIGHUP arrived: restore the terminal and quit.
    case quitSignal(Int32)
}
