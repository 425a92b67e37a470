/// What the "N of M" line counts. A list whose rows are not all items (day headers, a loading or
/// end row) counts its items, as a user sees them.
public enum ListPosition: Sendable, Equatable {
    /// Every row is an item: the selected row of all rows.
    case rows
    /// The selected item (nil while the selection is on a row that is no item) of `of` items;
    /// nothing is shown when there is no item.
    case item(Int?, of: Int)

    /// The line drawn for a list of `count` rows with `selected` selected (nil: none).
    func text(selected: Int, count: Int) -> String? {
        switch self {
        case .rows: return count > 0 ? "\(selected + 1) of \(count)" : nil
        case .item(let item, let total):
            guard total > 0 else { return nil }
            return "\(item.map(String.init) ?? "–") of \(total)"
        }
    }
}

/// A virtualized list: it asks for the rows on screen only, so drawing costs the same for a
/// hundred rows or a million. Draws a scrollbar when the rows do not fit and an "N of M"
/// line at the bottom (with "N new ↑" when rows came above out of sight).
public struct ListView: Sendable {
    public var showsScrollbar: Bool
    public var showsPosition: Bool
    public var selectionStyle = Style(fg: .role(.selection), attributes: .reverse)
    /// How many cells at the start of the selected row take `selectionStyle`; nil: the whole
    /// row. A long feed marks its rows by their first cells, so moving or scrolling by one row
    /// rewrites a few cells instead of two whole rows (bytes per `j` as `less`).
    public var selectionColumns: Int?
    public var scrollbarStyle = Style(fg: .role(.muted))
    public var positionStyle = Style(fg: .role(.muted))
    /// Rows that came above the selection and are not in sight (a refresh put them there):
    /// "N new ↑" on the "N of M" line while the list is scrolled down, covering no row.
    public var newAbove = 0
    public var newAboveStyle = Style(fg: .role(.highlight), attributes: [.bold, .reverse])

    public init(showsScrollbar: Bool = true, showsPosition: Bool = true) {
        self.showsScrollbar = showsScrollbar
        self.showsPosition = showsPosition
    }

    /// Where the rows go within `rect` (the last row is kept for "N of M" when it is shown).
    public func rowsArea(in rect: Rect) -> Rect {
        showsPosition && rect.height >= 2 ? rect.splitVertically(topHeight: rect.height - 1).top : rect
    }

    /// Draws the visible rows through `drawRow(buffer, index, rowRect, isSelected)`, each row
    /// cleared first and the selected one overlaid with `selectionStyle` afterwards. Updates
    /// `state` to the height drawn. Returns the indices drawn, so paging can prefetch.
    @discardableResult
    public func draw(
        into buffer: inout CellBuffer,
        rect: Rect,
        count: Int,
        state: inout ListState,
        position: ListPosition = .rows,
        drawRow: (inout CellBuffer, _ index: Int, _ rowRect: Rect, _ isSelected: Bool) -> Void
    ) -> Range<Int> {
        guard !rect.isEmpty else { return 0..<0 }
        buffer.fill(rect)
        let area = rowsArea(in: rect)
        state.update(visibleRows: area.height, count: count)
        let visible = state.visibleRange(count: count)
        let scrollbar = showsScrollbar && count > area.height && area.width >= 2
        let rowsRect = scrollbar ? area.splitHorizontally(leftWidth: area.width - 1).left : area
        state.rowsRect = rowsRect

        for index in visible {
            let rowRect = rowsRect.row(index - visible.lowerBound)
            buffer.fill(rowRect)
            let isSelected = index == state.selected
            drawRow(&buffer, index, rowRect, isSelected)
            if isSelected {
                buffer.placeCursor(onTextOf: rowRect)
                let marked = selectionColumns.map { Rect(x: rowRect.x, y: rowRect.y, width: min($0, rowRect.width), height: 1) } ?? rowRect
                buffer.patch(marked, with: selectionStyle)
            }
        }
        if scrollbar {
            drawScrollbar(into: &buffer, column: Rect(x: area.maxX - 1, y: area.y, width: 1, height: area.height),
                          offset: state.offset, count: count)
        }
        if showsPosition && rect.height >= 2 {
            let text = position.text(selected: state.selected, count: count) ?? ""
            let left = buffer.writeRightAligned(text, maxX: rect.maxX, y: rect.maxY - 1, maxWidth: rect.width, style: positionStyle)
            if newAbove > 0, state.offset > 0 {
                let right = text.isEmpty ? left : left - 2
                buffer.writeRightAligned(" \(newAbove) new ↑ ", maxX: right, y: rect.maxY - 1, maxWidth: max(0, right - rect.x),
                                         style: newAboveStyle)
            }
        }
        return visible
    }

    /// Thumb size proportional to the share shown; at the top at offset 0, at the bottom at the end.
    func drawScrollbar(into buffer: inout CellBuffer, column: Rect, offset: Int, count: Int) {
        let rows = column.height
        guard rows > 0, count > rows else { return }
        let thumb = max(1, rows * rows / count)
        let maxOffset = count - rows
        let start = (rows - thumb) * min(offset, maxOffset) / maxOffset
        for i in 0..<rows {
            let inThumb = i >= start && i < start + thumb
            buffer.write(inThumb ? "█" : "│", x: column.x, y: column.y + i, style: scrollbarStyle)
        }
    }
}
