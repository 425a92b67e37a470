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

    /// Turns each frame into the bytes that change the screen; nil until started.
    private var writer: ScreenWriter?
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

    /// What the terminal can do beyond text (`TerminalProbe` at start, or `.plain`).
    public let capabilities: TerminalCapabilities

    /// For a screen reader: each frame leaves the cursor shown where it puts it (`CellBuffer.cursor`).
    public let placesCursor: Bool

    public init(theme: Theme = .standard, capabilities: TerminalCapabilities = .plain, placesCursor: Bool = false) {
        self.theme = theme
        self.capabilities = capabilities
        self.placesCursor = placesCursor
        pictures = PictureLayer(capabilities)
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
        if let device, let file = fdopen(dup(device), "r+") {
            deviceFile = file
            screen = newterm(nil, file, file)
            set_term(screen)
        } else {
            initscr()
        }
        isStarted = true
        let win = qt_stdscr()
        cbreak()
        noecho()
        nonl()
        intrflush(win, false)
        keypad(win, true)
        nodelay(win, true)
        curs_set(0)
        set_escdelay(25)
        mousemask(qt_mouse_mask(), nil)
        mouseinterval(0)
        mouseReports = (MouseReports.terminalHasMouse, false)
        if mouseReports.wanted { MouseReports.takeOverFromNcurses() }
        var colorCount = 0
        if colors && has_colors() {
            start_color()
            use_default_colors()
            colorCount = Int(qt_colors())
        } else {
            theme = .noColor
        }
        size = TerminalSize(width: Int(qt_cols()), height: Int(qt_lines()))
        let drawing = Self.pictureCapabilities(capabilities, colors: colorCount, theme: theme)
        pictures = PictureLayer(drawing)
        var features = Self.features(colors: colorCount, capabilities: drawing)
        features.placesCursor = placesCursor
        writer = ScreenWriter(features: features, theme: theme)
        settleNcurses()
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
        if !pictures.farewell.isEmpty { writeOut(pictures.farewell) }
        pictures = PictureLayer(capabilities)
        // No scroll region or pen left to the shell, whatever a cut frame left.
        writeOut("\u{1B}[r\u{1B}[0m")
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

    /// Forgets what is on screen, so the next `present` repaints everything (Ctrl-L).
    public func invalidate() {
        writer?.forget()
    }

    /// The capabilities pictures are drawn with: kitty's placeholder cells carry their
    /// picture's id as a colour, so without colours (`--no-color`, `NO_COLOR`, a terminal with
    /// none) kitty's pictures are placed instead.
    nonisolated static func pictureCapabilities(_ capabilities: TerminalCapabilities, colors: Int, theme: Theme) -> TerminalCapabilities {
        var drawing = capabilities
        if colors == 0 || !theme.usesColor { drawing.kittyPlaceholders = false }
        return drawing
    }

    /// What terminfo and the probe say the writer may use. Colours as 24-bit RGB where the
    /// terminal said so (`COLORTERM`), whatever terminfo says.
    private static func features(colors: Int, capabilities: TerminalCapabilities) -> ScreenWriter.Features {
        func hasString(_ name: String) -> Bool {
            guard let value = name.withCString({ tigetstr($0) }) else { return false }
            return Int(bitPattern: value) != -1
        }
        // Pictures in pixels that a scroll would move where nothing redraws them (sixel in a
        // terminal that does not move them with the rows, iTerm2 images).
        let picturesInPixels = (capabilities.graphics == .sixel && !capabilities.sixelScrolls) || capabilities.graphics == .iterm2
        // Placeholder cells carry their picture's id as a 24-bit colour.
        let placeholders = capabilities.graphics == .kitty && capabilities.kittyPlaceholders
        return ScreenWriter.Features(
            colors: colors, truecolor: colors > 0 && (capabilities.truecolor || placeholders),
            backColorErase: "bce".withCString { tigetflag($0) } > 0,
            eraseCharacters: hasString("ech"), scrollRegions: hasString("csr") && !picturesInPixels)
    }

    /// ncurses' own picture of the screen made current, so `get_wch` (which refreshes it when
    /// it was touched: at start, after a resize) writes nothing over the app's frames later.
    /// The app's next frame then draws everything.
    private func settleNcurses() {
        let win = qt_stdscr()
        wnoutrefresh(win)
        doupdate()
        writer?.forget()
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

        // Back from Ctrl-Z: ncurses' own stop handler has repainted its picture of the screen,
        // which is blank (frames bypass it). Everything is drawn again, mouse modes too.
        let resumed = DispatchSource.makeSignalSource(signal: SIGCONT, queue: .main)
        resumed.setEventHandler { [weak self] in
            MainActor.assumeIsolated {
                guard let self, self.isStarted else { return }
                self.settleNcurses()
                self.mouseReports.sent = false
                sink(.resize(width: self.size.width, height: self.size.height))
            }
        }
        resumed.resume()
        sources.append(resumed)

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
        // Unchanged: the SIGWINCH source has settled ncurses and the frame is drawn already.
        if current != size {
            settleNcurses()
            size = current
            sink(.resize(width: current.width, height: current.height))
        }
    }

    /// Where ncurses writes: the device given to `start`, else stdout.
    private var outputDescriptor: Int32 { deviceFile.map { fileno($0) } ?? STDOUT_FILENO }

    private func handleResize() -> TerminalEvent {
        var rows: Int32 = 0, cols: Int32 = 0
        if qt_window_size(&rows, &cols) == 0 { resizeterm(rows, cols) }
        size = TerminalSize(width: Int(qt_cols()), height: Int(qt_lines()))
        settleNcurses()
        return .resize(width: size.width, height: size.height)
    }

    // MARK: Drawing

    /// Sends what changed since the last frame (`ScreenWriter`), the pictures after it, all in
    /// one write inside the synchronized-output brackets. ncurses draws nothing: it keeps the
    /// terminal's modes and reads the keys.
    public func present(_ buffer: CellBuffer) {
        guard isStarted, var writer else { return }
        var bytes = FramePainter.paint(buffer, size: size, writer: &writer, pictures: &pictures)
        self.writer = writer
        guard !bytes.isEmpty else { return }
        if capabilities.synchronizedOutput {
            bytes = Array(Self.beginSynchronizedUpdate.utf8) + bytes + Array(Self.endSynchronizedUpdate.utf8)
        }
        // A frame cut short leaves the screen unknown: the next one draws everything.
        if !writeOut(bytes) { self.writer?.forget() }
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
        writeOut(Array(text.utf8))
    }

    /// Whether every byte went out.
    @discardableResult
    private func writeOut(_ all: [UInt8]) -> Bool {
        var bytes = all[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { write(outputDescriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            bytes = bytes.dropFirst(count)
        }
        return true
    }
}
