/// What the terminal's own graphics need each frame, beside the cells the writer sends: which
/// pictures to draw, move or remove, and which lines the writer must write again because a
/// picture left them. Pure: `FramePainter` puts it in order with the writer's bytes.
///
/// - kitty: pictures are sent once by id; each frame removes the placements no longer shown and
///   places the new ones (a picture that moved is a new placement), the cursor kept; a kept
///   placement on a line the writer writes is placed again (a scroll moved it with the text).
/// - kitty with Unicode placeholders (`placeholders`): each picture is sent once with a virtual
///   placement, and its cells are written as placeholder text (`KittyPlaceholders`): the
///   writer moves them as it moves text, and nothing is placed or deleted per frame. Inside
///   tmux every command goes through its passthrough.
/// - sixel and iTerm2 images: the pixels are part of the screen; a picture that left is erased by repainting its
///   lines, and a picture is drawn again where its lines were repainted. Pictures touching the
///   last line are left to their half blocks (a sixel there would scroll the screen). A picture
///   the writer may write over (`linesTouched`) is drawn again. In xterm (`pixelsScroll`) the
///   writer may scroll up, the pictures moving with the rows (`canScroll`, `scrolled`).
struct PictureLayer {
    let graphics: TerminalCapabilities.Graphics
    /// kitty: pictures drawn by placeholder cells instead of placements.
    let placeholders: Bool
    /// kitty inside tmux: commands wrapped for its passthrough.
    let passthrough: Bool
    /// sixel: the terminal moves a picture's pixels with its rows when a region scrolls
    /// (`scrolled`), so the writer may scroll.
    let pixelsScroll: Bool
    /// What is on screen now.
    private(set) var shown: [PicturePlacement] = []
    /// kitty: pictures the terminal holds, with the frame that last showed each.
    private(set) var sent: [UInt32: Int] = [:]
    private var frame = 0
    /// sixel: encoded pictures, by id (the newest few).
    private var encoded: [UInt32: String] = [:]

    /// How many pictures kitty may hold before those not on screen are freed.
    static let sentLimit = 128

    init(graphics: TerminalCapabilities.Graphics, placeholders: Bool = false, passthrough: Bool = false, pixelsScroll: Bool = false) {
        self.graphics = graphics
        self.placeholders = graphics == .kitty && placeholders
        self.passthrough = passthrough
        self.pixelsScroll = graphics == .sixel && pixelsScroll
    }

    init(_ capabilities: TerminalCapabilities) {
        self.init(graphics: capabilities.graphics, placeholders: capabilities.kittyPlaceholders,
                  passthrough: capabilities.graphics == .kitty && capabilities.multiplexer == "tmux",
                  pixelsScroll: capabilities.sixelScrolls)
    }

    /// Whether the writer may scroll `move` with sixel pictures on screen. xterm copies the
    /// region's pixels, but its own record of the pictures (what it draws again when the window
    /// is uncovered) moves every picture up on a scroll up, whatever the region, and none on a
    /// scroll down (graphics.c `scroll_displayed_graphics`, called from `xtermScroll` only). So
    /// only a scroll up with every picture inside the region keeps the two alike.
    func canScroll(_ move: ScreenWriter.Scroll) -> Bool {
        move.by > 0 && shown.allSatisfy { $0.rect.y >= move.top && $0.rect.maxY - 1 <= move.bottom }
    }

    /// The writer scrolls `move` (`canScroll`): a picture whose rows all stay in the region
    /// moves with them. One that leaves it, whole or in part, is gone; the cells to write again
    /// are returned: where xterm's record now puts it above the region, and where a part of it
    /// is still on screen (writing a cell clears a picture there, on screen and in the record).
    mutating func scrolled(_ move: ScreenWriter.Scroll) -> [Rect] {
        let region = move.top...move.bottom
        var kept: [PicturePlacement] = []
        var cells: [Rect] = []
        for placement in shown {
            let rect = placement.rect
            let rows = rect.y..<rect.maxY
            if rows.allSatisfy({ region.contains($0) && region.contains($0 - move.by) }) {
                var moved = rect
                moved.y -= move.by
                kept.append(PicturePlacement(picture: placement.picture, rect: moved, cellDigest: placement.cellDigest))
                continue
            }
            var lines = Set(rows.map { $0 - move.by }.filter { $0 >= 0 })
            lines.formUnion(rows.filter { !region.contains($0) })
            for line in lines.sorted() { cells.append(Rect(x: rect.x, y: line, width: rect.width, height: 1)) }
        }
        shown = kept
        return cells
    }

    /// The lines whose pictures the writer's cells may overwrite this frame: those with a
    /// picture where a changed cell is inside it or just left of it (a wide character's right
    /// half, the writer's neighbour rule), or in the blanks right before it (an erased run, after
    /// which the writer writes the next cell again), or on both sides of it within the few
    /// cells the writer writes again rather than move over. `changed`: cell indexes of `next`.
    static func linesTouched(by changed: [Int], in next: CellBuffer, placements: [PicturePlacement]) -> Set<Int> {
        let width = next.width
        guard width > 0, !placements.isEmpty else { return [] }
        var byRow: [Int: Set<Int>] = [:]
        for index in changed { byRow[index / width, default: []].insert(index % width) }
        var lines = Set<Int>()
        for placement in placements {
            let rect = placement.rect
            for y in rect.y..<min(rect.maxY, next.height) {
                guard let columns = byRow[y] else { continue }
                let over = columns.contains { $0 >= rect.x - 1 && $0 < rect.maxX }
                let gap = columns.contains { $0 >= rect.x - 5 && $0 < rect.x } && columns.contains { $0 >= rect.maxX && $0 <= rect.maxX + 4 }
                var blanks = false
                var x = rect.x - 1
                while x >= 0, next[x, y].scalar == " ", next[x, y].scalars.count == 1 {
                    if columns.contains(x) { blanks = true; break }
                    x -= 1
                }
                if over || gap || blanks { lines.insert(y) }
            }
        }
        return lines
    }

    struct Step: Equatable {
        /// Lines ncurses must repaint (a picture left them).
        var repaint: [Int] = []
        /// Written after ncurses' update.
        var output = ""
        /// Written before the cells (placeholders: the pictures their cells draw).
        var before = ""
        /// Placeholders: the pictures to write as placeholder cells over their half blocks.
        var placeholderCells: [PicturePlacement] = []
    }

    /// The pictures of a frame whose cells are `size`; `fullRepaint` when the writer draws the
    /// whole screen (first frame, resize, Ctrl-L); `changedLines`: the lines whose pictures the
    /// writer may write over this frame (kitty placements: every line it writes).
    mutating func update(to placements: [PicturePlacement], size: TerminalSize, fullRepaint: Bool,
                         changedLines: Set<Int> = []) -> Step {
        guard graphics != .halfBlocks else { return Step() }
        frame += 1
        let screen = Rect(x: 0, y: 0, width: size.width, height: graphics == .kitty ? size.height : size.height - 1)
        var wanted: [PicturePlacement] = []
        for placement in placements where placement.rect.intersection(screen) == placement.rect && !wanted.contains(placement) {
            wanted.append(placement)
        }
        let before = fullRepaint ? [] : shown
        let removed = before.filter { !wanted.contains($0) }
        var step = Step()
        switch graphics {
        case .kitty where placeholders:
            wanted = wanted.filter(KittyPlaceholders.fits)
            for placement in wanted {
                // Once per picture (one picture may show on many rows), with the one virtual
                // placement its cells draw.
                let picture = placement.picture
                if sent[picture.id] == nil {
                    step.before += KittyGraphics.transmit(picture)
                        + KittyGraphics.virtualPlacement(id: picture.id, columns: placement.rect.width, rows: placement.rect.height)
                }
                sent[picture.id] = frame
            }
            step.output = freeUnshown()
            step.placeholderCells = wanted
            if passthrough {
                step.before = KittyGraphics.tmuxPassthrough(step.before)
                step.output = KittyGraphics.tmuxPassthrough(step.output)
            }
        case .kitty:
            // Whatever an earlier screen left (a resize does not always clear the terminal).
            if fullRepaint { step.output += KittyGraphics.deleteAllPlacements }
            for placement in removed {
                step.output += KittyGraphics.delete(id: placement.picture.id, placement: Self.placementID(placement))
            }
            // A placement kept from the last frame is placed again where the writer writes its line:
            // a scroll moves kitty's placements with the text, and placing by id moves them back.
            for placement in wanted
            where !before.contains(placement) || (placement.rect.y..<placement.rect.maxY).contains(where: changedLines.contains) {
                let picture = placement.picture
                // Once per picture: sending it again would take its placements with it.
                if sent[picture.id] == nil {
                    step.output += KittyGraphics.transmit(picture)
                    sent[picture.id] = frame
                }
                step.output += "\u{1B}7" + Self.moveCursor(placement.rect)
                    + KittyGraphics.place(id: picture.id, placement: Self.placementID(placement),
                                          columns: placement.rect.width, rows: placement.rect.height) + "\u{1B}8"
            }
            for placement in wanted { sent[placement.picture.id] = frame }
            step.output += freeUnshown()
        case .sixel, .iterm2:
            var lines = Set<Int>()
            for placement in removed { lines.formUnion(placement.rect.y..<placement.rect.maxY) }
            step.repaint = lines.sorted()
            lines.formUnion(changedLines)
            for placement in wanted {
                let rows = placement.rect.y..<placement.rect.maxY
                guard !before.contains(placement) || rows.contains(where: lines.contains) else { continue }
                step.output += "\u{1B}7" + Self.moveCursor(placement.rect) + encode(placement) + "\u{1B}8"
            }
        case .halfBlocks:
            break
        }
        shown = wanted
        return step
    }

    /// Past `sentLimit` pictures held, frees those this frame does not show.
    private mutating func freeUnshown() -> String {
        guard sent.count > Self.sentLimit else { return "" }
        var output = ""
        for (id, last) in sent.sorted(by: { $0.key < $1.key }) where last != frame {
            output += KittyGraphics.free(id: id)
            sent[id] = nil
        }
        return output
    }

    /// What the terminal is told when the app ends: kitty forgets every picture.
    var farewell: String {
        guard graphics == .kitty else { return "" }
        return passthrough ? KittyGraphics.tmuxPassthrough(KittyGraphics.deleteEverything) : KittyGraphics.deleteEverything
    }

    /// Forgets what is on screen (the terminal was cleared). kitty frees the pictures of a
    /// cleared screen too, so they are sent again; but a virtual placement (placeholders) is
    /// not on the screen and stays, with its picture.
    mutating func forgetScreen() {
        shown = []
        if !placeholders { sent = [:] }
    }

    private mutating func encode(_ placement: PicturePlacement) -> String {
        let picture = placement.picture
        if let text = encoded[picture.id] { return text }
        let text = graphics == .sixel ? SixelEncoder.encode(picture)
            : ITerm2Image.encode(picture, columns: placement.rect.width, rows: placement.rect.height)
        if encoded.count >= 64 { encoded.removeAll(keepingCapacity: true) }
        encoded[picture.id] = text
        return text
    }

    /// One placement per picture and screen position.
    static func placementID(_ placement: PicturePlacement) -> UInt32 {
        UInt32(truncatingIfNeeded: placement.rect.y * 4096 + placement.rect.x + 1)
    }

    static func moveCursor(_ rect: Rect) -> String { "\u{1B}[\(rect.y + 1);\(rect.x + 1)H" }
}
