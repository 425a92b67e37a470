import FeedModel
import TermUI

extension DisplayFormat {
    /// A feed row from `x` on: the message, then the person, the other `columns` and the amount,
    /// the amount last (in line from row to row) and one column clear of the right edge (the
    /// scrollbar). The message has the room first: the person is left out where the message
    /// would be cut with the column there (most messages start with the name anyway: "Johan
    /// made a roundup."), and below `whoFrom` columns.
    @MainActor
    static func drawMessageRow(_ message: MarkupText, who: String, whoFrom: Int, amount: Money, amountWidth: Int,
                               columns: [Span] = [], filter: String, into buffer: inout CellBuffer, x: Int, row: Rect) {
        let right = row.maxX - 1
        let amountSpan = Span(DisplayFormat.amountColumn(amount.formatted, to: amountWidth), moneyStyle)
        let whoSpan = Span("  " + TextWidth.pad(TextWidth.truncate(who, to: 14), to: 14), Style(fg: .role(.highlight)))
        let fixed = columns.reduce(amountSpan.width) { $0 + $1.width }
        let text = message.plainText
        // (An empty who: the message names the person already.)
        var showWho = row.width >= whoFrom && !who.isEmpty
        if showWho, TextWidth.of(text) > right - x - fixed - whoSpan.width - 1 {
            showWho = false
        }
        let rightSpans = (showWho ? [whoSpan] : []) + columns + [amountSpan]
        let rightWidth = rightSpans.reduce(0) { $0 + $1.width }
        let messageWidth = right - x - rightWidth - 1
        if messageWidth > 0 {
            buffer.write(highlighting(spans(message), filter), x: x, y: row.y, maxWidth: messageWidth)
        }
        buffer.write(rightSpans, x: right - rightWidth, y: row.y, maxWidth: rightWidth)
    }
}
