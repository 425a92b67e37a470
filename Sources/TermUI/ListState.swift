/// Selection and scroll offset of a list, kept apart from the items so that appending rows,
/// resizing or redrawing never moves what the user looks at.
public struct ListState: Hashable, Sendable {
    /// Index of the selected row.
    public var selected: Int
    /// Index of the first visible row.
    public var offset: Int
    /// Rows the list showed at its last draw (`ListView` keeps it current); paging uses it.
    public var visibleRows: Int
    /// Where `ListView` drew the rows last (without the scrollbar), so a click finds its row.
    public var rowsRect: Rect?

    public init(selected: Int = 0, offset: Int = 0, visibleRows: Int = 1) {
        self.selected = selected
        self.offset = offset
        self.visibleRows = visibleRows
    }

    /// Moves the selection by `delta` rows (negative is up).
    public mutating func moveBy(_ delta: Int, count: Int) {
        selected += delta
        clamp(count: count)
    }

    /// Moves by whole screens (`pages` negative is up); the selection keeps its row on screen.
    public mutating func page(_ pages: Int, count: Int) {
        let step = max(1, visibleRows) * pages
        selected += step
        offset += step
        clamp(count: count)
    }

    public mutating func top() {
        selected = 0
        offset = 0
    }

    public mutating func bottom(count: Int) {
        selected = count - 1
        clamp(count: count)
    }

    /// Brings selection and offset back into range for `count` rows and scrolls as little as
    /// possible to keep the selection visible. Appending rows changes nothing; a resize moves
    /// the offset only if the selection would leave the screen or rows would be left blank.
    public mutating func clamp(count: Int) {
        let rows = max(1, visibleRows)
        guard count > 0 else {
            selected = 0
            offset = 0
            return
        }
        selected = min(max(0, selected), count - 1)
        offset = min(max(0, offset), max(0, count - rows))
        if selected < offset { offset = selected }
        if selected >= offset + rows { offset = selected - rows + 1 }
    }

    /// Takes the height the list now has, then clamps.
    public mutating func update(visibleRows rows: Int, count: Int) {
        visibleRows = max(1, rows)
        clamp(count: count)
    }

    /// The row drawn at cell `x`, `y` by the last draw, if any.
    public func index(atX x: Int, y: Int, count: Int) -> Int? {
        guard let rect = rowsRect, rect.contains(x: x, y: y) else { return nil }
        let index = offset + (y - rect.y)
        return index < count ? index : nil
    }

    /// The rows on screen for `count` rows.
    public func visibleRange(count: Int) -> Range<Int> {
        let start = min(offset, count)
        return start..<min(count, start + max(1, visibleRows))
    }
}
