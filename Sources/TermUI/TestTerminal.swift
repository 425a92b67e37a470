/// A terminal in memory, for tests: it keeps the last frame presented and reads it back;
/// `send` delivers events to whoever started its event sources (the app's event loop).
@MainActor
public final class TestTerminal: Terminal {
    public private(set) var size: TerminalSize
    public private(set) var screen: CellBuffer
    public private(set) var presentCount = 0
    /// The pictures the last frame placed (drawn by the terminal's graphics over their cells).
    public private(set) var pictures: [PicturePlacement] = []
    /// How often the whole screen was asked to be drawn again (Ctrl-L).
    public private(set) var invalidateCount = 0
    private var sink: (@MainActor (TerminalEvent) -> Void)?

    public init(width: Int, height: Int) {
        size = TerminalSize(width: width, height: height)
        screen = CellBuffer(width: width, height: height)
    }

    public func present(_ buffer: CellBuffer) {
        // Like a real screen: what does not fit is cut off, what is not drawn stays blank.
        var shown = CellBuffer(width: size.width, height: size.height)
        for y in 0..<min(size.height, buffer.height) {
            for x in 0..<min(size.width, buffer.width) { shown[x, y] = buffer[x, y] }
        }
        // The cursor as the frame put it (a screen reader's terminal shows it there).
        shown.cursor = buffer.cursor.flatMap { $0.x < size.width && $0.y < size.height ? $0 : nil }
        screen = shown
        // The pictures a terminal with graphics would show: those wholly on screen, not drawn over.
        let visible = Rect(x: 0, y: 0, width: size.width, height: size.height)
        pictures = buffer.visiblePictures.filter { $0.rect.intersection(visible) == $0.rect }
        presentCount += 1
    }

    public func invalidate() {
        invalidateCount += 1
    }

    public func startEventSources(_ sink: @escaping @MainActor (TerminalEvent) -> Void) {
        self.sink = sink
    }

    /// Delivers an event as the real terminal would (nothing happens before the sources start).
    public func send(_ event: TerminalEvent) {
        sink?(event)
    }

    /// Simulates a resize; returns the event the real terminal would send.
    @discardableResult
    public func resize(width: Int, height: Int) -> TerminalEvent {
        size = TerminalSize(width: width, height: height)
        return .resize(width: width, height: height)
    }

    public func rowText(_ y: Int) -> String { screen.rowText(y) }
    public var lines: [String] { screen.lines }
    public func style(atX x: Int, y: Int) -> Style { screen.style(atX: x, y: y) }
    public func attributes(atX x: Int, y: Int) -> Attributes { screen.style(atX: x, y: y).attributes }
}
