import CNcurses

/// Placeholder until the real backend lands: opens the terminal, shows one line, waits for `q`.
public enum BasicTerminal {
    public static func showBanner(_ text: String) {
        setlocale(LC_ALL, "")
        initscr()
        noecho()
        cbreak()
        keypad(qt_stdscr(), true)
        curs_set(0)
        mvaddstr(0, 0, text)
        refresh()
        while true {
            let c = getch()
            if c == Int32(UInt8(ascii: "q")) || c == ERR { break }
        }
        endwin()
    }
}
