/// One frame's bytes: the cells that changed (`ScreenWriter`) and the pictures in the
/// terminal's own graphics (`PictureLayer`), in the order the terminal must get them. Pure:
/// `NcursesTerminal` writes what it returns; the tests play it on the model terminal.
enum FramePainter {
    static func paint(_ buffer: CellBuffer, size: TerminalSize, writer: inout ScreenWriter, pictures: inout PictureLayer) -> [UInt8] {
        let graphics = pictures.graphics
        // The writer clears the screen when it does not know it or its size changed.
        let fullRepaint = writer.screen.map { $0.width != buffer.width || $0.height != buffer.height } ?? true
        let wanted = graphics == .halfBlocks ? [] : buffer.visiblePictures
        // sixel where the terminal moves pixels with their rows: the writer's scroll is made,
        // and the pictures move with it (those it cuts are erased by writing their cells again).
        var scroll = ScreenWriter.ScrollChoice.auto
        var cutCells: [Rect] = []
        if pictures.pixelsScroll, !fullRepaint {
            scroll = .none
            if let move = writer.plannedScroll(for: buffer), pictures.canScroll(move) {
                scroll = .this(move)
                cutCells = pictures.scrolled(move)
            }
        }
        var changedLines = Set<Int>()
        if fullRepaint {
            pictures.forgetScreen()
        } else if graphics != .halfBlocks, !pictures.placeholders, let previous = writer.screen(after: scroll.made),
                  let changed = buffer.changedCells(since: previous) {
            if graphics == .kitty {
                for i in changed { changedLines.insert(i / max(1, buffer.width)) }
            } else {
                changedLines = PictureLayer.linesTouched(by: changed, in: buffer, placements: pictures.shown + wanted)
            }
        }
        // A kept picture beside cells written again for one the scroll cut is drawn again.
        if !cutCells.isEmpty {
            let written = cutCells.flatMap { rect in (rect.x..<rect.maxX).map { rect.y * buffer.width + $0 } }
            changedLines.formUnion(PictureLayer.linesTouched(by: written, in: buffer, placements: pictures.shown + wanted))
        }
        // Pictures in the terminal's own graphics: lines a picture left are written again, the
        // pictures drawn after the cells.
        let pictureStep = pictures.update(to: wanted, size: size, fullRepaint: fullRepaint, changedLines: changedLines)
        var cells = buffer
        KittyPlaceholders.overlay(pictureStep.placeholderCells, on: &cells)
        var bytes = Array(pictureStep.before.utf8) + writer.frame(cells, repaint: pictureStep.repaint, repaintCells: cutCells, scroll: scroll)
        bytes.append(contentsOf: pictureStep.output.utf8)
        return bytes
    }
}
