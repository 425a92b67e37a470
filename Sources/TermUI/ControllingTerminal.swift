#if canImport(Glibc)
import Glibc
#endif

/// Keys come from the terminal, not from standard input: with stdin a pipe (`echo | qapital-tui`),
/// the controlling terminal (`/dev/tty`) takes stdin's place, as less and fzf read theirs.
public enum ControllingTerminal {
    /// Makes stdin the terminal when it is not one; false when there is no terminal to read keys from.
    @discardableResult
    public static func takeStandardInput() -> Bool {
        if isatty(STDIN_FILENO) == 1 { return true }
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else { return false }
        defer { close(tty) }
        guard isatty(tty) == 1 else { return false }
        return dup2(tty, STDIN_FILENO) == STDIN_FILENO
    }
}
