import CNcurses
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The real terminal, through ncursesw. Every call happens on the main actor: Debian's
/// ncursesw is not the thread-safe build, and `get_wch` refreshes the screen by itself.
@MainActor
public final class NcursesTerminal: Terminal {
    public private(set) var size = TerminalSize(width: 0, height: 0)
    public private(set) var isStarted = false
    /// The theme colours are resolved with; `.noColor` when colours are off.
    public private(set) var theme: Theme

    private var colorCount = 0
    private var pairs: [PairKey: Int32] = [:]
    private var nextPair: Int32 = 1
    /// The last frame presented, to send ncurses only the cells that changed.
    private var shown: CellBuffer?
    private var sources: [any DispatchSourceProtocol] = []
    /// The pictures on screen in the terminal's own graphics.
    private var pictures: PictureLayer
    /// Keys pushed back at start: read once the event sources run (stdin will not say readable).
    private var hasPendingInput = false
    /// Set when started on a device other than stdin/stdout (`newterm`).
    private var screen: OpaquePointer?
    private var deviceFile: UnsafeMutablePointer<FILE>?
    /// Keys from what `get_wch` returns, late terminal replies taken out (`KeyStream`).
    private var keys = KeyStream()
    /// Counts reads: a quiet flush scheduled before the latest read is stale.
    private var quietGeneration = 0
    /// SGR mouse reports (`MouseReports`): wanted (the terminal has a mouse), and asked for.
    private var mouseReports = (wanted: false, sent: false)
    /// SIGQUIT too: cbreak keeps Ctrl-\ live, and its default action would dump core with the
    /// terminal still in the alternate screen.
    private static let quitSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    private struct PairKey: Hashable {
        var fg: Int32
        var bg: Int32
    }

    /// What the terminal can do beyond text (`TerminalProbe` at start, or `.plain`).
    public let capabilities: TerminalCapabilities

    public init(theme: Theme = .standard, capabilities: TerminalCapabilities = .plain) {
        self.theme = theme
        self.capabilities = capabilities
        pictures = PictureLayer(graphics: capabilities.graphics)
    }

    /// Enters curses mode: UTF-8 locale, alternate screen, keys unbuffered and unechoed,
    /// cursor hidden, short Esc delay, mouse wheel, colours unless `colors` is false.
    /// `device`, when given, is a terminal file descriptor used instead of stdin and stdout
    /// (the benchmark draws into a pseudo-terminal that way).
    /// `pendingInput`: keys typed while the terminal was probed, read before any new ones.
    public func start(colors: Bool, device: Int32? = nil, pendingInput: [UInt8] = []) {
        guard !isStarted else { return }
        TerminalLocale.activate()
        // Ignored before initscr, so ncurses installs no handlers of its own; the dispatch
        // sources in startEventSources receive them instead.
        signal(SIGWINCH, SIG_IGN)
        for sig in Self.quitSignals { signal(sig, SIG_IGN) }
        // Keys from the terminal even when stdin is a pipe (ControllingTerminal).
        if device == nil { ControllingTerminal.takeStandardInput() }
        qt_install_crash_restore()
        // Truecolor asked for (COLORTERM) on a terminfo entry without it: a direct-colour copy.
        var directEntry: String?
        if colors && capabilities.truecolor, let term = getenv("TERM").map({ String(cString: $0) }), !term.contains("direct") {
            directEntry = DirectColorTerminfo.compile(term: term)
        }
        let previousTerminfo = getenv("TERMINFO").map { String(cString: $0) }
        if let directEntry { setenv("TERMINFO", directEntry, 1) }
        if let device, let file = fdopen(dup(device), "r+") {
            deviceFile = file
            screen = directEntry.flatMap { _ in newterm(DirectColorTerminfo.name, file, file) } ?? newterm(nil, file, file)
            set_term(screen)
        } else if directEntry != nil, let direct = newterm(DirectColorTerminfo.name, qt_stdout(), qt_stdin()) {
            screen = direct
            set_term(screen)
        } else {
            initscr()
        }
        if let directEntry {
            // ncurses has read the entry: the directory and the variable go.
            if let previousTerminfo { setenv("TERMINFO", previousTerminfo, 1) } else { unsetenv("TERMINFO") }
            DirectColorTerminfo.remove(directEntry)
        }
        isStarted = true
        let win = qt_stdscr()
        cbreak()
        noecho()
        nonl()
        intrflush(win, false)
        keypad(win, true)
        // Lets doupdate scroll the terminal (scroll region, insert/delete line) when rows
        // moved, instead of rewriting every row: far fewer bytes per scrolled line.
        idlok(win, true)
        // A sixel's pixels are part of the screen but not of ncurses' picture of it: scrolling
        // lines or shifting characters would move them where nothing redraws them. Rows are
        // rewritten instead (more bytes per scroll step, in sixel terminals only).
        if capabilities.graphics == .sixel || capabilities.graphics == .iterm2 {
            idlok(win, false)
            idcok(win, false)
        }
        nodelay(win, true)
        curs_set(0)
        set_escdelay(25)
        mousemask(qt_mouse_mask(), nil)
        mouseinterval(0)
        mouseReports = (MouseReports.terminalHasMouse, false)
        if mouseReports.wanted { MouseReports.takeOverFromNcurses() }
        if colors && has_colors() {
            start_color()
            use_default_colors()
            colorCount = Int(qt_colors())
        } else {
            colorCount = 0
            theme = .noColor
        }
        size = TerminalSize(width: Int(qt_cols()), height: Int(qt_lines()))
        shown = nil
        keys = KeyStream()
        // Pushed back last first: ncurses reads them before the terminal, keys decoded as usual.
        for byte in pendingInput.reversed() { ungetch(Int32(byte)) }
        hasPendingInput = !pendingInput.isEmpty
    }

    /// Leaves curses mode and restores the terminal. Safe to call more than once.
    public func stop() {
        guard isStarted else { return }
        isStarted = false
        for source in sources { source.cancel() }
        sources = []
        if capabilities.graphics == .kitty { writeOut(KittyGraphics.deleteEverything) }
        pictures = PictureLayer(graphics: capabilities.graphics)
        if mouseReports.sent { MouseReports.send(MouseReports.disableSequence, to: outputDescriptor) }
        mouseReports.sent = false
        endwin()
        if let screen {
            delscreen(screen)
            self.screen = nil
        }
        if let deviceFile {
            fclose(deviceFile)
            self.deviceFile = nil
        }
        qt_remove_crash_restore()
        signal(SIGWINCH, SIG_DFL)
        for sig in Self.quitSignals { signal(sig, SIG_DFL) }
    }

    /// Restores the terminal, then prints `message` where it stays visible, and exits.
    /// Text written while the alternate screen is up would vanish with it.
    public func leaveForFatalError(_ message: String, status: Int32 = 1) -> Never {
        stop()
        fputs(message + "\n", qt_stderr())
        exit(status)
    }

    /// Forgets what is on screen, so the next `present` repaints everything (Ctrl-L).
    public func invalidate() {
        shown = nil
        if isStarted { clearok(qt_stdscr(), true) }
    }

    // MARK: Events

    /// Delivers keys, resizes and quit signals to `sink`, on the main queue.
    public func startEventSources(_ sink: @escaping @MainActor (TerminalEvent) -> Void) {
        let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        // The handler holds the source until stop() cancels it, which releases the handler.
        input.setEventHandler { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                if !self.drainInput(sink), input.data == 0 {
                    // Readable but nothing to read: the terminal is gone (EOF).
                    input.cancel()
                    sink(.quitSignal(SIGHUP))
                }
            }
        }
        input.resume()
        sources.append(input)
        if hasPendingInput {
            hasPendingInput = false
            DispatchQueue.main.async { [weak self] in
                MainActor.assumeIsolated { _ = self?.drainInput(sink) }
            }
        }

        let winch = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .main)
        winch.setEventHandler { [weak self] in
            MainActor.assumeIsolated {
                guard let self, self.isStarted else { return }
                sink(self.handleResize())
            }
        }
        winch.resume()
        sources.append(winch)

        for sig in Self.quitSignals {
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .main)
            source.setEventHandler { MainActor.assumeIsolated { sink(.quitSignal(sig)) } }
            source.resume()
            sources.append(source)
        }
        // The same signals on a queue of their own arm the exit watchdog: whatever the main
        // actor is doing, the process ends (terminal restored) within a second of a quit signal.
        for sig in Self.quitSignals { sources.append(Self.watchdogSource(sig)) }
    }

    /// Nonisolated, so its handler is not checked for the main actor: it runs on its own queue.
    private nonisolated static func watchdogSource(_ sig: Int32) -> any DispatchSourceSignal {
        let source = DispatchSource.makeSignalSource(signal: sig, queue: watchdogQueue)
        source.setEventHandler { qt_arm_exit_watchdog(128 + sig, exitDeadline) }
        source.resume()
        return source
    }

    /// Seconds between a quit signal and the watchdog's exit.
    public nonisolated static let exitDeadline: UInt32 = 1
    private nonisolated static let watchdogQueue = DispatchQueue(label: "qapital-tui.exit-watchdog")

    /// Reads every key waiting; returns whether there was at least one.
    private func drainInput(_ sink: @escaping @MainActor (TerminalEvent) -> Void) -> Bool {
        var any = false
        var value: wint_t = 0
        while isStarted {
            let status = get_wch(&value)
            if status == ERR { break }
            any = true
            if status == KEY_CODE_YES && Int32(bitPattern: value) == qt_key_mouse() {
                var event = MEVENT()
                if getmouse(&event) == OK, let key = KeyDecoder.decodeMouse(buttonState: UInt(event.bstate), x: event.x, y: event.y) {
                    sink(.key(key))
                }
                continue
            }
            for key in keys.feed(status: status, value: UInt32(value)) { deliver(key, sink) }
        }
        guard isStarted, any else { return any }
        quietGeneration &+= 1
        guard keys.isPending else { return any }
        if keys.waitsForMore {
            // A sequence cut in two (a reply, a mouse report): its rest comes within moments;
            // if nothing comes before the next read, it is given up (KeyStream.flush).
            let generation = quietGeneration
            DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(KeyStream.quietFlushMilliseconds)) { [weak self] in
                MainActor.assumeIsolated {
                    guard let self, self.isStarted, self.quietGeneration == generation else { return }
                    for key in self.keys.flush() { self.deliver(key, sink) }
                }
            }
        } else {
            // A lone Esc: ncurses waited its Esc delay for more, so it is the key.
            for key in keys.flush() { deliver(key, sink) }
        }
        return any
    }

    private func deliver(_ key: Key, _ sink: @MainActor (TerminalEvent) -> Void) {
        guard key == .resize else { return sink(.key(key)) }
        // resizeterm queues a KEY_RESIZE itself; calling it again here would queue another one
        // forever. ncurses has the new size already: report it if it changed.
        let current = TerminalSize(width: Int(qt_cols()), height: Int(qt_lines()))
        if current != size {
            size = current
            shown = nil
            sink(.resize(width: current.width, height: current.height))
        }
    }

    /// Where ncurses writes: the device given to `start`, else stdout.
    private var outputDescriptor: Int32 { deviceFile.map { fileno($0) } ?? STDOUT_FILENO }

    private func handleResize() -> TerminalEvent {
        var rows: Int32 = 0, cols: Int32 = 0
        if qt_window_size(&rows, &cols) == 0 { resizeterm(rows, cols) }
        size = TerminalSize(width: Int(qt_cols()), height: Int(qt_lines()))
        shown = nil
        return .resize(width: size.width, height: size.height)
    }

    // MARK: Drawing

    /// Draws the cells that changed since the last frame into ncurses' virtual screen, then one
    /// `doupdate`: ncurses compares with what the terminal shows and sends only the difference.
    public func present(_ buffer: CellBuffer) {
        guard isStarted else { return }
        let win = qt_stdscr()
        var anyChange = true
        var changedLines = Set<Int>()
        if shown == nil { pictures.forgetScreen() }
        if let previous = shown, let changed = buffer.changedCells(since: previous) {
            for i in changed { draw(buffer.cells[i], index: i, bufferWidth: buffer.width, win: win) }
            anyChange = !changed.isEmpty
            if capabilities.graphics != .halfBlocks {
                for i in changed { changedLines.insert(i / max(1, buffer.width)) }
            }
        } else {
            werase(win)
            for i in buffer.cells.indices { draw(buffer.cells[i], index: i, bufferWidth: buffer.width, win: win) }
        }
        let fullRepaint = shown == nil
        shown = buffer
        // Pictures in the terminal's own graphics: lines a picture left are repainted by ncurses,
        // the pictures drawn after it.
        let pictureStep = pictures.update(to: capabilities.graphics == .halfBlocks ? [] : buffer.visiblePictures, size: size,
                                          fullRepaint: fullRepaint, changedLines: changedLines)
        for line in pictureStep.repaint { wredrawln(win, Int32(line), 1) }
        anyChange = anyChange || !pictureStep.output.isEmpty
        // Synchronized output: the terminal shows the frame once it is whole. doupdate flushes
        // ncurses' own buffer before it returns, so bytes written to the descriptor around it
        // arrive in order.
        let bracket = anyChange && capabilities.synchronizedOutput
        if bracket { writeOut(Self.beginSynchronizedUpdate) }
        wnoutrefresh(win)
        doupdate()
        if !pictureStep.output.isEmpty { writeOut(pictureStep.output) }
        if bracket { writeOut(Self.endSynchronizedUpdate) }
        if mouseReports.wanted && !mouseReports.sent {
            MouseReports.send(MouseReports.enableSequence, to: outputDescriptor)
            mouseReports.sent = true
        }
    }

    /// Whether this backend draws pictures in `graphics` itself (all but half blocks).
    public nonisolated static func drawsPictures(_ graphics: TerminalCapabilities.Graphics) -> Bool {
        graphics != .halfBlocks
    }

    /// `CSI ? 2026 h` and `l`: the frame between them is shown at once (terminals that know the mode).
    public nonisolated static let beginSynchronizedUpdate = "\u{1B}[?2026h"
    public nonisolated static let endSynchronizedUpdate = "\u{1B}[?2026l"

    /// Writes straight to the terminal, after whatever ncurses has flushed.
    private func writeOut(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { write(outputDescriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            bytes = bytes.dropFirst(count)
        }
    }

    private func draw(_ cell: Cell, index: Int, bufferWidth: Int, win: UnsafeMutablePointer<WINDOW>?) {
        guard !cell.isContinuation else { return }
        let x = index % bufferWidth, y = index / bufferWidth
        guard y < size.height, x + Int(cell.width) <= size.width else { return }
        let style = theme.resolve(cell.style)
        var pair = pairNumber(fg: style.fg, bg: style.bg)
        var cc = cchar_t()
        let marks = cell.packedMarks
        var chars: (wchar_t, wchar_t, wchar_t, wchar_t, wchar_t) = (
            wchar_t(bitPattern: cell.scalar.value), wchar_t(bitPattern: marks.0),
            wchar_t(bitPattern: marks.1), wchar_t(bitPattern: marks.2), 0
        )
        withUnsafePointer(to: &chars) { tuple in
            tuple.withMemoryRebound(to: wchar_t.self, capacity: 5) { text in
                _ = setcchar(&cc, text, attributes(style.attributes), 0, &pair)
            }
        }
        // ERR at the bottom-right cell only means the cursor could not advance; the cell is drawn.
        _ = mvwadd_wch(win, Int32(y), Int32(x), &cc)
    }

    private func attributes(_ a: Attributes) -> attr_t {
        var result = qt_a_normal()
        if a.contains(.bold) { result |= qt_a_bold() }
        if a.contains(.dim) { result |= qt_a_dim() }
        if a.contains(.reverse) { result |= qt_a_reverse() }
        if a.contains(.underline) { result |= qt_a_underline() }
        if a.contains(.italic) { result |= qt_a_italic() }
        return result
    }

    /// Colour pairs are allocated on first use and cached; when the terminal runs out, the
    /// default pair is used (text stays readable, only the colour is lost).
    private func pairNumber(fg: Color, bg: Color) -> Int32 {
        guard colorCount > 0 else { return 0 }
        let key = PairKey(fg: colorNumber(fg), bg: colorNumber(bg))
        if key.fg == -1 && key.bg == -1 { return 0 }
        if let pair = pairs[key] { return pair }
        guard nextPair < qt_color_pairs(), init_extended_pair(nextPair, key.fg, key.bg) == OK else { return 0 }
        pairs[key] = nextPair
        nextPair += 1
        return nextPair - 1
    }

    /// The ncurses colour number: -1 is the terminal default. Terminals with more than 256
    /// colours (`*-direct`) take 0xRRGGBB for anything but the first eight.
    private func colorNumber(_ color: Color) -> Int32 {
        let direct = colorCount > 256
        switch color {
        case .default, .role:
            return -1
        case .indexed(let i):
            if direct {
                guard i >= 8 else { return Int32(i) }
                let (r, g, b) = ColorPalette.rgb(of: Int(i))
                return Int32(r << 16 | g << 8 | b)
            }
            if Int(i) < colorCount { return Int32(i) }
            let (r, g, b) = ColorPalette.rgb(of: Int(i))
            return Int32(ColorPalette.nearest(r: r, g: g, b: b, count: colorCount))
        case .rgb(let r, let g, let b):
            if direct { return Int32(Int(r) << 16 | Int(g) << 8 | Int(b)) }
            return Int32(ColorPalette.nearest(r: Int(r), g: Int(g), b: Int(b), count: colorCount))
        }
    }
}
