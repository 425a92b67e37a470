/// A one-line text editor for the `/` filter and small forms. Feed it keys; it says what
/// happened. The cursor counts graphemes, so an emoji or an accented letter is one step.
public struct TextInput: Hashable, Sendable {
    public enum Outcome: Hashable, Sendable {
        /// The text changed.
        case edited
        /// Only the cursor moved.
        case moved
        /// Enter: the text is final.
        case submitted
        /// Esc: the caller decides whether to drop the text.
        case cancelled
        /// Not a key for the editor; the caller may use it.
        case ignored
    }

    public private(set) var characters: [Character]
    /// Position of the cursor, 0…characters.count.
    public private(set) var cursor: Int

    public init(_ text: String = "") {
        characters = Array(text)
        cursor = characters.count
    }

    public var text: String { String(characters) }

    public mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .char(let c):
            characters.insert(c, at: cursor)
            cursor += 1
            return .edited
        case .backspace:
            guard cursor > 0 else { return .moved }
            characters.remove(at: cursor - 1)
            cursor -= 1
            return .edited
        case .delete, .ctrl("d"):
            guard cursor < characters.count else { return .moved }
            characters.remove(at: cursor)
            return .edited
        case .left, .ctrl("b"):
            cursor = max(0, cursor - 1)
            return .moved
        case .right, .ctrl("f"):
            cursor = min(characters.count, cursor + 1)
            return .moved
        case .home, .ctrl("a"):
            cursor = 0
            return .moved
        case .end, .ctrl("e"):
            cursor = characters.count
            return .moved
        case .ctrl("u"):
            characters.removeSubrange(0..<cursor)
            cursor = 0
            return .edited
        case .ctrl("k"):
            characters.removeSubrange(cursor...)
            return .edited
        case .enter:
            return .submitted
        case .escape:
            return .cancelled
        default:
            return .ignored
        }
    }

    /// Draws the text in `width` cells, scrolled so the cursor is visible; the cursor is a
    /// reverse cell because the terminal cursor stays hidden. With a `mask`, every character is
    /// drawn as that one-cell character instead (a secret: only its length shows).
    /// `focused`: the field being typed into, whose insertion point is the frame's cursor.
    public func draw(into buffer: inout CellBuffer, x: Int, y: Int, width: Int,
                     style: Style = .plain, cursorStyle: Style = .reverse, mask: Character? = nil, focused: Bool = true) {
        guard width > 0 else { return }
        if let mask {
            var shown = TextInput(String(repeating: mask, count: characters.count))
            shown.cursor = cursor
            shown.draw(into: &buffer, x: x, y: y, width: width, style: style, cursorStyle: cursorStyle, focused: focused)
            return
        }
        buffer.fill(Rect(x: x, y: y, width: width, height: 1), style: style)
        // Leave a cell for the cursor: start as late as needed so it fits.
        var start = cursor
        var used = 1
        while start > 0 {
            let w = TextWidth.of(characters[start - 1])
            if used + w > width { break }
            used += w
            start -= 1
        }
        var cx = x
        for i in start..<characters.count {
            let w = TextWidth.of(characters[i])
            if cx + w > x + width { break }
            if i == cursor && focused { buffer.cursor = CursorPosition(x: cx, y: y) }
            buffer.write(String(characters[i]), x: cx, y: y, maxWidth: w, style: i == cursor ? style.patched(with: cursorStyle) : style)
            cx += w
        }
        if cursor == characters.count, cx < x + width {
            if focused { buffer.cursor = CursorPosition(x: cx, y: y) }
            buffer.write(" ", x: cx, y: y, style: style.patched(with: cursorStyle))
        }
    }
}
