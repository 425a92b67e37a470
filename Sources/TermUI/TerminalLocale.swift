import CNcurses

/// Makes sure LC_CTYPE is UTF-8, once per process: `wcwidth` and ncurses' wide-character output
/// both depend on it, and under `LANG=C` non-ASCII text would measure as -1 and come out garbled.
public enum TerminalLocale {
    /// Only LC_CTYPE is changed: LC_NUMERIC and friends could change how numbers are parsed.
    private static let activated: Bool = {
        setlocale(LC_CTYPE, "")
        if qt_codeset_is_utf8() != 0 { return true }
        setlocale(LC_CTYPE, "C.UTF-8")
        return qt_codeset_is_utf8() != 0
    }()

    /// Activates the UTF-8 character type; returns whether a UTF-8 codeset is in force.
    @discardableResult
    public static func activate() -> Bool { activated }
}
