/// A grid of cells that screens draw into every frame; the backend sends it to the terminal.
///
/// Writing never draws outside the buffer, never splits a wide character, and cuts text that
/// does not fit with `…`. Width follows `TextWidth`, so what the buffer measures is what
/// ncurses draws.
public struct CellBuffer: Hashable, Sendable {
    public private(set) var width: Int
    public private(set) var height: Int
    public private(set) var cells: [Cell]
    /// Pictures drawn by the terminal's own graphics over their half-block cells (`place`).
    public private(set) var pictures: [PicturePlacement] = []

    /// Where the terminal's cursor belongs after this frame: the first cell of the selected row's
    /// text, or a form's insertion point (screen readers and braille displays follow the cursor);
    /// nil: nowhere in particular. Only a writer told to place it sends it (`--screen-reader`).
    public var cursor: CursorPosition?

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public var area: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    /// Resets every cell to a blank, plain space.
    public mutating func clear() {
        for i in cells.indices { cells[i] = .blank }
        pictures.removeAll(keepingCapacity: true)
        cursor = nil
    }

    /// Puts the cursor on the first cell of `row` that is not blank (its text), or its start.
    public mutating func placeCursor(onTextOf row: Rect) {
        guard !row.isEmpty, row.y >= 0, row.y < height else { return }
        let first = (max(0, row.x)..<min(width, row.maxX)).first { x in
            let cell = cells[row.y * width + x]
            return !cell.isContinuation && cell.scalar != " "
        }
        cursor = CursorPosition(x: first ?? max(0, row.x), y: row.y)
    }

    // MARK: Pictures

    /// Shows `picture` over the cells of `rect`, which the caller has just drawn (its half-block
    /// stand-in, what terminals without graphics show). Only a rect wholly inside the buffer.
    public mutating func place(_ picture: TerminalPicture, in rect: Rect) {
        guard !rect.isEmpty, rect.intersection(area) == rect else { return }
        // Drawn over an earlier picture (the selected row drawn again): that one is gone.
        pictures.removeAll { !$0.rect.intersection(rect).isEmpty }
        pictures.append(PicturePlacement(picture: picture, rect: rect, cellDigest: digest(rect)))
    }

    /// The placements whose cells still hold what they held when placed: nothing drawn over them.
    public var visiblePictures: [PicturePlacement] {
        pictures.filter { $0.rect.intersection(area) == $0.rect && digest($0.rect) == $0.cellDigest }
    }

    private func digest(_ rect: Rect) -> Int {
        var hasher = Hasher()
        for y in rect.y..<rect.maxY {
            for x in rect.x..<rect.maxX { hasher.combine(cells[y * width + x]) }
        }
        return hasher.finalize()
    }

    /// Resizes (to the new terminal size) and clears.
    public mutating func resize(width: Int, height: Int) {
        self = CellBuffer(width: width, height: height)
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set { cells[y * width + x] = newValue }
    }

    /// The style at a cell (for tests and for patching).
    public func style(atX x: Int, y: Int) -> Style { self[x, y].style }

    /// Fills `rect` (clipped) with spaces in `style`.
    public mutating func fill(_ rect: Rect, style: Style = .plain, with scalar: Unicode.Scalar = " ") {
        let r = rect.intersection(area)
        guard !r.isEmpty else { return }
        for y in r.y..<r.maxY {
            for x in r.x..<r.maxX { put(Cell(scalar, style: style), x: x, y: y) }
        }
    }

    /// Lays `style` over the cells in `rect`: attributes added, non-default colours replaced.
    public mutating func patch(_ rect: Rect, with style: Style) {
        let r = rect.intersection(area)
        guard !r.isEmpty else { return }
        for y in r.y..<r.maxY {
            for x in r.x..<r.maxX { cells[y * width + x].style = cells[y * width + x].style.patched(with: style) }
        }
    }

    // MARK: Writing text

    /// Writes `text` from (x, y). Clips at the right edge and at `maxWidth`; text that does not
    /// fit ends in `…`, and the columns left over in the clip become spaces (a wide character
    /// that would straddle the edge becomes a space). Returns the columns used.
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, maxWidth: Int? = nil, style: Style = .plain) -> Int {
        writeRuns(CollectionOfOne(Span(text, style)), x: x, y: y, maxWidth: maxWidth)
    }

    /// Writes styled runs one after the other, with the same clipping as `write(_:x:y:)`.
    @discardableResult
    public mutating func write(_ spans: [Span], x: Int, y: Int, maxWidth: Int? = nil) -> Int {
        writeRuns(spans, x: x, y: y, maxWidth: maxWidth)
    }

    /// Writes `text` so that it ends at `maxX` (exclusive); returns the x where it starts.
    @discardableResult
    public mutating func writeRightAligned(_ text: String, maxX: Int, y: Int, maxWidth: Int? = nil, style: Style = .plain) -> Int {
        let limit = min(maxWidth ?? Int.max, maxX)
        let w = min(TextWidth.of(text), limit)
        let x = maxX - w
        write(text, x: x, y: y, maxWidth: w, style: style)
        return x
    }

    private mutating func writeRuns<C: Collection>(_ spans: C, x: Int, y: Int, maxWidth: Int?) -> Int where C.Element == Span {
        guard y >= 0, y < height, x >= 0, x < width else { return 0 }
        let available = min(maxWidth ?? Int.max, width - x)
        guard available > 0 else { return 0 }
        var total = 0
        for span in spans { total += span.width }
        var cx = x
        if total <= available {
            for span in spans { _ = put(span.text, style: span.style, x: &cx, y: y, limit: x + available) }
            return cx - x
        }
        // Too long: keep what fits in all but the last column, then `…`, then spaces.
        let limit = x + available - 1
        var lastStyle = Style.plain
        for span in spans {
            lastStyle = span.style
            if !put(span.text, style: span.style, x: &cx, y: y, limit: limit) { break }
        }
        put(Cell("…", style: lastStyle), x: cx, y: y)
        cx += 1
        while cx < x + available {
            put(Cell(" ", style: lastStyle), x: cx, y: y)
            cx += 1
        }
        return available
    }

    /// Puts whole graphemes while they fit before `limit`; false when one did not fit.
    private mutating func put(_ text: String, style: Style, x: inout Int, y: Int, limit: Int) -> Bool {
        var lead = -1  // the last leading cell written by this call, for zero-width marks
        for c in text {
            let w = TextWidth.of(c)
            if x + w > limit { return false }
            for scalar in c.unicodeScalars {
                let sw = TextWidth.cells(scalar)
                if TextWidth.isUnprintable(scalar) {
                    put(Cell(TextWidth.replacement, style: style), x: x, y: y)
                    lead = y * width + x
                    x += 1
                } else if sw == 0 {
                    if lead >= 0 { cells[lead].addMark(scalar) }
                } else {
                    put(Cell(scalar, width: UInt8(sw), style: style), x: x, y: y)
                    lead = y * width + x
                    x += sw
                }
            }
        }
        return true
    }

    /// Stores one leading cell (and the continuation of a wide one), repairing any wide
    /// character it half overwrites so no half-character is ever left behind.
    private mutating func put(_ cell: Cell, x: Int, y: Int) {
        let i = y * width + x
        if cells[i].isContinuation, x > 0 {
            cells[i - 1] = Cell(" ", style: cells[i - 1].style)
        }
        if cells[i].width == 2, x + 1 < width {
            cells[i + 1] = Cell(" ", style: cells[i + 1].style)
        }
        cells[i] = cell
        if cell.width == 2 {
            guard x + 1 < width else {
                cells[i] = Cell(" ", style: cell.style)
                return
            }
            if cells[i + 1].width == 2, x + 2 < width {
                cells[i + 2] = Cell(" ", style: cells[i + 2].style)
            }
            cells[i + 1] = Cell(" ", width: 0, style: cell.style)
        }
    }

    // MARK: Reading back (tests, diffing)

    /// The text of row `y`; continuation cells add nothing, so CJK reads naturally.
    public func rowText(_ y: Int) -> String {
        var s = String.UnicodeScalarView()
        for x in 0..<width {
            let cell = cells[y * width + x]
            if !cell.isContinuation { s.append(contentsOf: cell.scalars) }
        }
        return String(s)
    }

    /// Every row as text, top to bottom.
    public var lines: [String] { (0..<height).map(rowText) }

    /// Indices (y * width + x) of the cells that differ from `previous`; nil when the sizes differ.
    public func changedCells(since previous: CellBuffer) -> [Int]? {
        guard previous.width == width, previous.height == height else { return nil }
        var changed: [Int] = []
        for i in cells.indices where cells[i] != previous.cells[i] { changed.append(i) }
        return changed
    }
}
