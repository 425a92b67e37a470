/// The bytes that turn the frame a terminal shows into the next one: only the cells that
/// changed, rows the terminal can scroll scrolled instead of rewritten, blank runs erased, and
/// colours and attributes sent as the change from the last cell written (never the whole pen
/// again for a run that keeps it). Pure: `NcursesTerminal` writes what it returns; the tests
/// play it on a model terminal (`ScreenModel` in TermUITests).
///
/// It speaks ECMA-48 as xterm, the Linux console, tmux, screen and every terminal emulator we
/// support do (CUP, CHA, SGR with 22/23/24/27, ECH, EL, DECSTBM, IND, RI); terminfo only says
/// how many colours there are and whether optional features exist (`Features`).
struct ScreenWriter {
    /// What the terminal has, from terminfo and the probe.
    struct Features: Hashable, Sendable {
        /// 0 (no colour), 8, 16, 88 or 256 and more.
        var colors = 256
        /// Colours as 24-bit RGB (`38;2;r;g;b`).
        var truecolor = false
        /// Erasing fills with the current background (terminfo `bce`); without it only blanks
        /// on the default background are erased.
        var backColorErase = false
        /// `ECH` (terminfo `ech`).
        var eraseCharacters = true
        /// Scrolling a region (terminfo `csr`); off while pictures are part of the screen's
        /// pixels (sixel, iTerm2), which a scroll would move where nothing redraws them, but for
        /// sixel in a terminal that moves them with the rows (xterm), where the frame decides.
        var scrollRegions = true
        /// Each frame ends with the cursor where the frame puts it (`CellBuffer.cursor`: the
        /// selected row, a form's insertion point), so a magnifier or a screen reader finds the
        /// selection; with this set (`--screen-reader`) it is also shown, else it stays hidden.
        var placesCursor = false
    }

    let features: Features
    let theme: Theme
    /// What the terminal shows, as this writer left it; nil: unknown (clear and draw all).
    private(set) var screen: CellBuffer?
    /// `rowHashes` of `screen`, when the last frame worked them out (for the next scroll).
    private var screenRows: [Int]?
    private var out: [UInt8] = []
    /// Where the terminal's cursor is; nil: unknown (after a wide or combined character, the
    /// last column, or anything written by others).
    private var cursor: (x: Int, y: Int)? {
        didSet { if cursor != nil { wrapRow = nil } }
    }
    /// Whether the cursor is shown (`Features.placesCursor`); nil: not said yet.
    private var cursorShown: Bool?
    /// The row whose last column was just written (the cursor waits there to wrap): `\r\n`
    /// reaches the next row from it whatever the terminal thinks of the wrap.
    private var wrapRow: Int?
    /// The terminal's current colours and attributes (resolved); nil: unknown.
    private var pen: Style?

    init(features: Features, theme: Theme) {
        self.features = features
        self.theme = theme
    }

    /// The terminal's screen is no longer what this writer left (Ctrl-L, a resize, a
    /// picture that erased lines): the next frame clears it and draws every cell.
    mutating func forget() {
        screen = nil
        screenRows = nil
    }

    /// The bytes for `next`. `repaint`: rows to write again whatever they held (a sixel left
    /// them). A frame ends with the plain pen; the cursor is unknown at the next (pictures and
    /// mouse modes are written between frames).
    mutating func frame(_ next: CellBuffer, repaint: some Sequence<Int> = [Int]()) -> [UInt8] {
        frame(next, repaint: repaint, scroll: .auto)
    }

    /// Which scroll a frame makes: the writer's choice (none when rows are written again), none,
    /// or one the caller chose (`plannedScroll`) knowing what else moves with the rows.
    enum ScrollChoice: Equatable {
        case auto
        case none
        case this(Scroll)

        /// The scroll made, when the caller chose one.
        var made: Scroll? {
            if case .this(let move) = self { return move }
            return nil
        }
    }

    /// The scroll the next frame would make for `next` (nil: none).
    func plannedScroll(for next: CellBuffer) -> Scroll? {
        guard features.scrollRegions, let screen, screen.width == next.width, screen.height == next.height else { return nil }
        return Self.bestScroll(from: screen, to: next)
    }

    /// What the terminal shows once `move` is made (nil: unknown).
    func screen(after move: Scroll?) -> CellBuffer? {
        guard var old = screen else { return nil }
        if let move { Self.apply(move, to: &old) }
        return old
    }

    /// `repaintCells`: cells to write again whatever they held, after the scroll (where a
    /// picture in pixels was, to clear it).
    mutating func frame(_ next: CellBuffer, repaint: some Sequence<Int>, repaintCells: [Rect] = [], scroll choice: ScrollChoice) -> [UInt8] {
        out.removeAll(keepingCapacity: true)
        cursor = nil
        wrapRow = nil
        pen = screen == nil ? nil : .plain
        var old: CellBuffer
        var oldRows: [Int]?
        var made: [Int]?
        if let screen, screen.width == next.width, screen.height == next.height {
            old = screen
            oldRows = screenRows
        } else {
            // A frame cut short may have left a scroll region: the whole screen again first.
            setPen(.plain)
            emit("\u{1B}[r\u{1B}[H\u{1B}[2J")
            cursor = (0, 0)
            old = CellBuffer(width: next.width, height: next.height)
        }
        let forced = Set(repaint.filter { (0..<next.height).contains($0) })
        // Rows to write again are where pictures in pixels were: nothing there may move.
        switch choice {
        case .auto:
            if features.scrollRegions, forced.isEmpty,
               let move = Self.bestScroll(from: old, to: next, oldRows: oldRows, madeRows: { made = $0 }) {
                scroll(move, in: &old)
            }
        case .this(let move) where screen != nil && (0..<next.height).contains(move.top) && (0..<next.height).contains(move.bottom):
            scroll(move, in: &old)
        case .this, .none:
            break
        }
        for y in 0..<next.height {
            let cells = repaintCells.filter { $0.y <= y && y < $0.maxY }.map { $0.x..<$0.maxX }
            writeRow(y, of: next, over: old, all: forced.contains(y), cells: cells)
        }
        if pen != .plain && pen != nil { emit("\u{1B}[0m") }
        if let at = next.cursor, at.x >= 0, at.x < next.width, at.y >= 0, at.y < next.height {
            // Every frame: the cursor follows the selection, shown only for a screen reader.
            moveTo(at.x, at.y)
            if features.placesCursor && cursorShown != true {
                emit("\u{1B}[?25h")
                cursorShown = true
            }
        } else if features.placesCursor && cursorShown != false {
            emit("\u{1B}[?25l")
            cursorShown = false
        }
        screen = next
        screenRows = made
        return out
    }

    // MARK: Scrolling

    /// Rows `top...bottom` move up by `by` (down when negative).
    struct Scroll: Equatable {
        var top: Int
        var bottom: Int
        var by: Int
    }

    /// The scroll that saves the most cells from being written again, when it saves at least a
    /// row's worth. Rows need not match exactly (a scrollbar's thumb moving along still
    /// scrolls): for a shift, each row gains the cells that the old content that many rows lower
    /// (or higher) has right over what is there now, and the rows the scroll empties cost what
    /// writing them on blank costs more than over what they held. Shifts tried: one and two
    /// rows either way, and the four that line up the most identical rows (a page).
    /// `oldRows`, `nextRows`: the buffers' `rowHashes` where known (the writer keeps the last
    /// frame's); `madeRows` gets the next frame's, when they were worked out.
    static func bestScroll(from old: CellBuffer, to next: CellBuffer, oldRows known: [Int]? = nil,
                           madeRows: ([Int]) -> Void = { _ in }) -> Scroll? {
        let height = next.height, width = next.width
        guard height > 2, old.width == width, old.height == height, width > 0 else { return nil }
        // Rows with equal hashes are taken as equal, not compared cell by cell: a collision
        // (never seen) would only choose a worse scroll; the rows are written from the cells.
        var oldHashes: [Int] = []
        var nextHashes: [Int] = []
        func differing(_ y: Int, _ z: Int?) -> Int {
            var count = 0
            let new = y * width
            guard let z else {
                for x in 0..<width where next.cells[new + x] != .blank { count += 1 }
                return count
            }
            if !nextHashes.isEmpty && nextHashes[y] == oldHashes[z] { return 0 }
            let was = z * width
            for x in 0..<width where next.cells[new + x] != old.cells[was + x] { count += 1 }
            return count
        }
        let inPlace = (0..<height).map { differing($0, $0) }
        // Fewer changed cells than a row: no scroll can save a row's worth.
        guard inPlace.reduce(0, +) >= width else { return nil }
        oldHashes = known.flatMap { $0.count == height ? $0 : nil } ?? rowHashes(old)
        nextHashes = rowHashes(next)
        madeRows(nextHashes)
        let oldRows = Dictionary(grouping: 0..<height) { oldHashes[$0] }
        var lineUps: [Int: Int] = [:]
        for (y, hash) in nextHashes.enumerated() {
            for z in oldRows[hash] ?? [] where z != y { lineUps[z - y, default: 0] += 1 }
        }
        // In a fixed order (ties by shift), so the same frames give the same bytes in every run.
        let lined = lineUps.sorted { ($0.value, -abs($0.key), $0.key) > ($1.value, -abs($1.key), $1.key) }
        let shifts = Array(Set([1, -1, 2, -2] + lined.prefix(4).map(\.key))).sorted { (abs($0), $0) < (abs($1), $1) }
        // What writing a row on blank costs more than writing it over what it held (summed from
        // the top, so a run of rows costs one subtraction).
        var blankCost = [0]
        for y in 0..<height { blankCost.append(blankCost.last! + differing(y, nil) - inPlace[y]) }
        func emptiedCost(_ rows: ClosedRange<Int>) -> Int { blankCost[rows.upperBound + 1] - blankCost[rows.lowerBound] }
        var best: (scroll: Scroll, saved: Int)?
        for shift in shifts where abs(shift) < height {
            // gains[y]: the row y taken from y + shift, where that row exists.
            let rows = shift > 0 ? 0..<(height - shift) : (-shift)..<height
            var prefix = [0]
            for y in rows { prefix.append(prefix.last! + inPlace[y] - differing(y, y + shift)) }
            for start in rows {
                for end in start..<rows.upperBound {
                    let gain = prefix[end - rows.lowerBound + 1] - prefix[start - rows.lowerBound]
                    let emptied = shift > 0 ? (end + 1)...(end + shift) : (start + shift)...(start - 1)
                    let saved = gain - emptiedCost(emptied)
                    if saved >= width, saved > best?.saved ?? 0 {
                        best = (shift > 0 ? Scroll(top: start, bottom: end + shift, by: shift)
                            : Scroll(top: start + shift, bottom: end, by: shift), saved)
                    }
                }
            }
        }
        return best?.scroll
    }

    /// A hash of each row's cells.
    static func rowHashes(_ buffer: CellBuffer) -> [Int] {
        (0..<buffer.height).map { y in
            var hasher = Hasher()
            for x in 0..<buffer.width { hasher.combine(buffer.cells[y * buffer.width + x]) }
            return hasher.finalize()
        }
    }

    private mutating func scroll(_ move: Scroll, in old: inout CellBuffer) {
        // Lines scrolled in take the pen's background: the plain pen gives blank lines.
        setPen(.plain)
        emit("\u{1B}[\(move.top + 1);\(move.bottom + 1)r")
        let count = abs(move.by)
        if move.by > 0 {
            moveTo(0, move.bottom)
            emit(String(repeating: "\n", count: count))
        } else {
            moveTo(0, move.top)
            emit(String(repeating: "\u{1B}M", count: count))
        }
        // Resetting the region homes the cursor.
        emit("\u{1B}[r")
        cursor = (0, 0)
        Self.apply(move, to: &old)
    }

    /// `old` as the terminal shows it after `move`: the region's rows moved, blanks scrolled in.
    static func apply(_ move: Scroll, to old: inout CellBuffer) {
        let width = old.width
        var cells = old
        for y in move.top...move.bottom {
            let from = y + move.by
            for x in 0..<width {
                cells[x, y] = (move.top...move.bottom).contains(from) ? old[x, from] : .blank
            }
        }
        old = cells
    }

    // MARK: Rows

    private mutating func writeRow(_ y: Int, of next: CellBuffer, over old: CellBuffer, all: Bool, cells forcedCells: [Range<Int>] = []) {
        let width = next.width
        let base = y * width
        func changed(_ x: Int) -> Bool {
            let new = next.cells[base + x], was = old.cells[base + x]
            return all || (new != was && !sameBlank(new, was)) || forcedCells.contains { $0.contains(x) }
        }
        var x = 0
        // Set after a write or an erase: the unchanged cell just right of it is written again.
        // Terminals that draw glyphs with a font (xterm's Xft) let a glyph's edge spill into the
        // next cell, and only drawing that cell again clears it: the screen then is pixel for
        // pixel what a full repaint draws.
        var neighbour = false
        while x < width {
            guard changed(x) else {
                let cell = next.cells[base + x]
                // Right after a write, a single unchanged cell before the next change is written
                // by moveOrRewrite anyway.
                let rewrittenAnyway = x + 1 < width && changed(x + 1) && cursor.map { $0 == (x, y) } == true
                if neighbour, cell.width == 1, Self.widthIsCertain(cell), !rewrittenAnyway {
                    let style = theme.resolve(cell.style)
                    if let at = cursor, at == (x, y), let pen, style != pen, features.eraseCharacters, isErasable(cell, style),
                       style.bg == pen.bg, pen.attributes.isDisjoint(with: [.reverse, .underline]) {
                        // A blank in the pen's background: erased where it is, the pen kept (not
                        // a reversed pen: some terminals, kitty among them, erase with it reversed).
                        emit("\u{1B}[X")
                    } else {
                        moveOrRewrite(to: x, y, in: next, before: style)
                        put(cell, style: style, x: x, width: width)
                    }
                }
                neighbour = false
                x += 1
                continue
            }
            neighbour = true
            if next.cells[base + x].isContinuation {
                // A changed right half: its character starts one to the left (a stray one is skipped).
                guard x > 0, next.cells[base + x - 1].width == 2 else { x += 1; continue }
                x -= 1
            }
            let cell = next.cells[base + x]
            let style = theme.resolve(cell.style)
            if isErasable(cell, style) {
                // Blanks that look alike, whatever their foreground or bold, erase together.
                var run = 1
                while x + run < width, looksBlank(next.cells[base + x + run], background: style.bg) { run += 1 }
                if x + run == width {
                    // Blank to the end of the row: erase the rest once.
                    moveTo(x, y)
                    setPen(Style(bg: style.bg))
                    emit("\u{1B}[K")
                    return
                }
                if features.eraseCharacters && run >= 8 {
                    moveTo(x, y)
                    setPen(Style(bg: style.bg))
                    emit("\u{1B}[\(run)X")
                    x += run
                    continue
                }
            }
            moveOrRewrite(to: x, y, in: next, before: style)
            put(cell, style: style, x: x, width: width)
            x += max(1, Int(cell.width))
        }
    }

    /// A space with nothing an erase would lose: no underline or reverse, and a background the
    /// terminal erases to.
    private func isErasable(_ cell: Cell, _ style: Style) -> Bool {
        guard cell.scalar == " ", cell.scalars.count == 1, cell.width == 1 else { return false }
        guard style.attributes.isDisjoint(with: [.underline, .reverse]) else { return false }
        return style.bg == .default || features.backColorErase
    }

    /// Two blanks that show the same: their foreground or bold differ, nothing else.
    private func sameBlank(_ a: Cell, _ b: Cell) -> Bool {
        let styleA = theme.resolve(a.style)
        return isErasable(a, styleA) && looksBlank(b, background: styleA.bg)
    }

    private func looksBlank(_ cell: Cell, background: Color) -> Bool {
        let style = theme.resolve(cell.style)
        return isErasable(cell, style) && style.bg == background
    }

    private mutating func put(_ cell: Cell, style: Style, x: Int, width: Int) {
        setPen(style)
        var ascii = true
        for scalar in cell.scalars {
            emit(String(scalar))
            if !scalar.isASCII { ascii = false }
        }
        let advance = max(1, Int(cell.width))
        if let at = cursor, ascii || Self.widthIsCertain(cell), at.x + advance < width {
            cursor = (at.x + advance, at.y)
        } else {
            // The last column (the terminal waits to wrap), or a width terminals may not agree on.
            let row = cursor.flatMap { $0.x + advance == width && (ascii || Self.widthIsCertain(cell)) ? $0.y : nil }
            cursor = nil
            wrapRow = row
        }
    }

    /// Characters whose width every terminal agrees on: no marks (VS16, ZWJ, combining), not
    /// an emoji or symbol that some fonts and terminals draw wide.
    /// kitty's placeholder cells too: written only to terminals that draw them, one cell each.
    private static func widthIsCertain(_ cell: Cell) -> Bool {
        if cell.scalar == KittyPlaceholders.placeholder { return true }
        guard cell.scalars.count == 1 else { return false }
        let value = cell.scalar.value
        let emojiLike = (0x2300...0x23FF).contains(value) || (0x2600...0x27BF).contains(value) || (0x2B00...0x2BFF).contains(value)
        return !emojiLike && value < 0x1F000
    }

    // MARK: Cursor and pen

    private mutating func moveTo(_ x: Int, _ y: Int) {
        emit(movement(to: x, y))
        cursor = (x, y)
    }

    private func movement(to x: Int, _ y: Int) -> String {
        let absolute = x == 0 ? "\u{1B}[\(y + 1)H" : "\u{1B}[\(y + 1);\(x + 1)H"
        if cursor == nil, let row = wrapRow, row + 1 == y {
            // Down from the last column (a scrollbar): a new line, then along.
            let along = x == 0 ? "" : "\u{1B}[\(x)C"
            return "\r\n" + along
        }
        guard let at = cursor else { return absolute }
        if at.x == x && at.y == y { return "" }
        if at.y == y {
            if x == 0 { return "\r" }
            let forward = "\u{1B}[\(x - at.x)C", column = "\u{1B}[\(x + 1)G"
            return x > at.x && forward.utf8.count <= column.utf8.count ? forward : column
        }
        if at.y + 1 == y && x == 0 { return "\r\n" }
        return absolute
    }

    /// Reaches `x` on the cursor's row by writing the few unchanged cells before it again when
    /// that costs fewer bytes than moving over them (a space between two changed words).
    private mutating func moveOrRewrite(to x: Int, _ y: Int, in next: CellBuffer, before style: Style) {
        if let at = cursor, at.y == y, at.x < x, x - at.x <= 4 {
            let gap = (at.x..<x).map { next[$0, y] }
            if gap.allSatisfy({ $0.width == 1 && Self.widthIsCertain($0) }) {
                var rewrite = 0
                var simulated = pen
                for cell in gap {
                    let style = theme.resolve(cell.style)
                    rewrite += penChange(from: simulated, to: style).utf8.count + 1
                    simulated = style
                }
                rewrite += penChange(from: simulated, to: style).utf8.count
                let move = movement(to: x, y).utf8.count + penChange(from: pen, to: style).utf8.count
                // One cell is always written again: it may hold the edge of the glyph before it.
                if rewrite <= move || gap.count == 1 {
                    for (offset, cell) in gap.enumerated() {
                        put(cell, style: theme.resolve(cell.style), x: at.x + offset, width: next.width)
                    }
                    return
                }
            }
        }
        moveTo(x, y)
    }

    private mutating func setPen(_ style: Style) {
        emit(penChange(from: pen, to: style))
        pen = style
    }

    /// What changes the pen from `current` (nil: unknown) to `style`: the attributes turned off
    /// and on and the colours that differ, or a reset and the whole style when that is shorter;
    /// "" when nothing changes.
    private func penChange(from current: Style?, to style: Style) -> String {
        if current == style { return "" }
        let full = ["0"] + Self.onCodes(style.attributes) + colorCodes(style, changedFrom: nil)
        guard let current else { return Self.sgr(full) }
        var delta: [String] = []
        let off = current.attributes.subtracting(style.attributes)
        var on = style.attributes.subtracting(current.attributes)
        if !off.isDisjoint(with: [.bold, .dim]) {
            // 22 ends both bold and dim.
            delta.append("22")
            on.formUnion(style.attributes.intersection([.bold, .dim]))
        }
        if off.contains(.italic) { delta.append("23") }
        if off.contains(.underline) { delta.append("24") }
        if off.contains(.reverse) { delta.append("27") }
        delta += Self.onCodes(on) + colorCodes(style, changedFrom: current)
        if delta.isEmpty { return "" }
        return Self.sgr(delta.joined(separator: ";").utf8.count < full.joined(separator: ";").utf8.count ? delta : full)
    }

    private static func sgr(_ codes: [String]) -> String {
        codes == ["0"] ? "\u{1B}[0m" : "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    private static func onCodes(_ attributes: Attributes) -> [String] {
        var codes: [String] = []
        if attributes.contains(.bold) { codes.append("1") }
        if attributes.contains(.dim) { codes.append("2") }
        if attributes.contains(.italic) { codes.append("3") }
        if attributes.contains(.underline) { codes.append("4") }
        if attributes.contains(.reverse) { codes.append("7") }
        return codes
    }

    /// The colour codes of `style`: those that differ from `previous`, or every non-default one.
    private func colorCodes(_ style: Style, changedFrom previous: Style?) -> [String] {
        var codes: [String] = []
        if let fg = colorCode(style.fg, background: false), previous == nil ? style.fg != .default : previous?.fg != style.fg {
            codes.append(fg)
        }
        if let bg = colorCode(style.bg, background: true), previous == nil ? style.bg != .default : previous?.bg != style.bg {
            codes.append(bg)
        }
        return codes
    }

    /// One colour as SGR parameters, in what the terminal has; nil without colours.
    func colorCode(_ color: Color, background: Bool) -> String? {
        guard features.colors > 0 else { return nil }
        let base = background ? 40 : 30
        func indexed(_ i: Int) -> String {
            if i < 8 { return "\(base + i)" }
            if i < 16 && features.colors >= 16 { return "\(base + 60 + i - 8)" }
            return "\(base + 8);5;\(i)"
        }
        func nearest(_ r: Int, _ g: Int, _ b: Int) -> String {
            indexed(ColorPalette.nearest(r: r, g: g, b: b, count: min(256, features.colors)))
        }
        switch color {
        case .default, .role:
            return "\(base + 9)"
        case .indexed(let i):
            if Int(i) < features.colors || features.truecolor { return indexed(Int(i)) }
            let (r, g, b) = ColorPalette.rgb(of: Int(i))
            return nearest(r, g, b)
        case .rgb(let r, let g, let b):
            if features.truecolor { return "\(base + 8);2;\(r);\(g);\(b)" }
            return nearest(Int(r), Int(g), Int(b))
        }
    }

    private mutating func emit(_ text: String) {
        out.append(contentsOf: text.utf8)
    }
}
