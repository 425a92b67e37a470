/// Styled text wrapped into lines of at most `width` cells: between words where it can, inside
/// a word only when the word alone is wider than a line. Nothing is dropped: joined, the lines'
/// words are the text's (the spaces a break stands at are left out). Used where a text must be
/// read whole (a card's message, a status note longer than the bar, a help example's words).
public enum SpanWrap {
    public static func wrap(_ spans: [Span], width: Int) -> [[Span]] {
        guard width > 0 else { return [spans] }
        // Characters with their style, then words (runs of non-spaces) and the spaces between.
        var cells: [(character: Character, style: Style, width: Int)] = []
        for span in spans { for character in span.text { cells.append((character, span.style, TextWidth.of(character))) } }
        var lines: [[(character: Character, style: Style, width: Int)]] = [[]]
        var lineWidth = 0
        var index = 0
        while index < cells.count {
            if cells[index].character == " " {
                // A space at a line's start (after a break) is dropped; else kept if it fits.
                if lineWidth > 0, lineWidth + 1 <= width { lines[lines.count - 1].append(cells[index]); lineWidth += 1 }
                index += 1
                continue
            }
            var end = index
            var wordWidth = 0
            while end < cells.count, cells[end].character != " " { wordWidth += cells[end].width; end += 1 }
            if lineWidth + wordWidth > width, lineWidth > 0 {
                // The word goes to the next line; spaces left at this line's end go.
                while lines[lines.count - 1].last?.character == " " { lines[lines.count - 1].removeLast() }
                lines.append([])
                lineWidth = 0
            }
            for cell in cells[index..<end] {
                // A word wider than a whole line breaks where the line is full.
                if lineWidth + cell.width > width, lineWidth > 0 {
                    lines.append([])
                    lineWidth = 0
                }
                lines[lines.count - 1].append(cell)
                lineWidth += cell.width
            }
            index = end
        }
        while lines[lines.count - 1].last?.character == " " { lines[lines.count - 1].removeLast() }
        return lines.map { line in
            var spans: [Span] = []
            for cell in line {
                if let last = spans.last, last.style == cell.style {
                    spans[spans.count - 1].text.append(cell.character)
                } else {
                    spans.append(Span(String(cell.character), cell.style))
                }
            }
            return spans
        }
    }
}
