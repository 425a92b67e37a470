/// One row with left, centre and right segments. The right segment wins space first (key hints
/// and errors), then the left; the centre is centred where it fits between them, and cut with
/// `…` where it does not (a long error must still be seen).
public struct StatusBar: Sendable {
    public var left: [Span]
    public var center: [Span]
    public var right: [Span]
    /// Laid under every segment: a span's own colours and attributes are added to it.
    public var style = Style(attributes: .reverse)

    public init(left: [Span] = [], center: [Span] = [], right: [Span] = []) {
        self.left = left
        self.center = center
        self.right = right
    }

    public func draw(into buffer: inout CellBuffer, rect: Rect) {
        guard !rect.isEmpty else { return }
        let row = rect.row(0)
        buffer.fill(row, style: style)
        let based = { (spans: [Span]) in spans.map { Span($0.text, style.patched(with: $0.style)) } }
        let rightWidth = min(right.reduce(0) { $0 + $1.width }, row.width)
        let rightX = row.maxX - rightWidth
        if rightWidth > 0 { buffer.write(based(right), x: rightX, y: row.y, maxWidth: rightWidth) }
        let centerWidth = center.reduce(0) { $0 + $1.width }
        var leftRoom = max(0, rightX - row.x - (rightWidth > 0 ? 1 : 0))
        // A message in the centre (an error, a notice) is never crowded out by a long left part:
        // the left keeps at least 20 columns and gives up the rest the message needs.
        if centerWidth > 0 { leftRoom = max(min(leftRoom, 20), leftRoom - centerWidth - 1) }
        let leftEnd = row.x + buffer.write(based(left), x: row.x, y: row.y, maxWidth: leftRoom)
        guard centerWidth > 0 else { return }
        let ideal = row.x + (row.width - centerWidth) / 2
        let lowest = leftEnd + (leftEnd > row.x ? 1 : 0)
        let highest = rightX - (rightWidth > 0 ? 1 : 0) - centerWidth
        guard lowest <= highest else {
            let room = rightX - (rightWidth > 0 ? 1 : 0) - lowest
            if room >= 4 { buffer.write(based(center), x: lowest, y: row.y, maxWidth: room) }
            return
        }
        buffer.write(based(center), x: min(max(ideal, lowest), highest), y: row.y, maxWidth: centerWidth)
    }
}
