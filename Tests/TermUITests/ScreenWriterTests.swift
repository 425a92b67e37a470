import Testing
@testable import TermUI

/// A small terminal that plays what `ScreenWriter` sends: the sequences it uses and nothing
/// else (anything unknown is recorded as a failure), with xterm's rules for the cursor, scroll
/// regions, erasing (`bce` or not) and wide characters.
struct ScreenModel {
    struct Shown: Equatable, CustomStringConvertible {
        var text = " "
        var fg: Color = .default
        var bg: Color = .default
        var attributes: Attributes = []
        var width = 1
        var description: String { "\(text)[\(fg)/\(bg)/\(attributes.rawValue)]" }
    }

    let width: Int
    let height: Int
    let backColorErase: Bool
    var cells: [[Shown]]
    var x = 0, y = 0
    var pen = Shown()
    var top = 0, bottom: Int
    /// xterm's own record of its pictures (graphics.c), which it draws from when the window is
    /// uncovered: a scroll up at the bottom margin moves every picture up, whatever the region
    /// (`scroll_displayed_graphics`); a reverse index moves none; a cell written or erased
    /// clears its part of a picture.
    var record: [[UInt32?]]
    /// Pictures drawn in pixels (sixel), by cell: the picture's id. As xterm does: they scroll
    /// with their rows, and a cell written or erased loses its part of a picture.
    var pixels: [[UInt32?]]
    /// What the sixel text of each picture stands for, to know which one a `DCS … ST` draws.
    var sixels: [String: (id: UInt32, columns: Int, rows: Int)] = [:]
    var saved: (x: Int, y: Int)?
    /// Writing reached the last column: the next character would wrap (the writer must not rely on it).
    var pendingWrap = false
    var problems: [String] = []

    init(width: Int, height: Int, backColorErase: Bool = true) {
        self.width = width
        self.height = height
        self.backColorErase = backColorErase
        bottom = height - 1
        cells = Array(repeating: Array(repeating: Shown(), count: width), count: height)
        pixels = Array(repeating: Array(repeating: nil, count: width), count: height)
        record = pixels
    }

    /// What an erase leaves: the pen's background where the terminal has `bce`; with a reversed
    /// pen, kitty erases to its foreground, so the model does too (the writer must not erase so).
    var erased: Shown {
        var blank = Shown()
        if backColorErase { blank.bg = pen.attributes.contains(.reverse) ? pen.fg : pen.bg }
        if pen.attributes.contains(.reverse) && pen.fg == .default { blank.attributes = .reverse }
        return blank
    }

    mutating func play(_ bytes: [UInt8]) {
        let scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        var i = 0
        while i < scalars.count {
            let s = scalars[i]
            i += 1
            switch s {
            case "\u{1B}":
                guard i < scalars.count else { problems.append("lone Esc"); return }
                let next = scalars[i]
                i += 1
                if next == "M" { reverseIndex(); continue }
                if next == "7" { saved = (x, y); continue }
                if next == "8" { if let saved { (x, y) = saved }; pendingWrap = false; continue }
                if next == "P" {
                    // A sixel picture, at the cursor.
                    var text = "\u{1B}P"
                    while i + 1 < scalars.count, !(scalars[i] == "\u{1B}" && scalars[i + 1] == "\\") {
                        text.unicodeScalars.append(scalars[i])
                        i += 1
                    }
                    i += 2
                    text += "\u{1B}\\"
                    guard let picture = sixels[text] else { problems.append("an unknown picture"); continue }
                    for row in y..<min(height, y + picture.rows) {
                        for column in x..<min(width, x + picture.columns) {
                            pixels[row][column] = picture.id
                            record[row][column] = picture.id
                        }
                    }
                    continue
                }
                guard next == "[" else { problems.append("Esc \(next)"); continue }
                var params = ""
                while i < scalars.count, !(0x40...0x7E).contains(scalars[i].value) {
                    params.unicodeScalars.append(scalars[i])
                    i += 1
                }
                guard i < scalars.count else { problems.append("cut CSI"); return }
                let final = scalars[i]
                i += 1
                csi(params, final)
            case "\r": x = 0; pendingWrap = false
            case "\n": lineFeed()
            default: put(s)
            }
        }
    }

    private mutating func lineFeed() {
        pendingWrap = false
        if y == bottom {
            cells.remove(at: top)
            cells.insert(Array(repeating: erased, count: width), at: bottom)
            pixels.remove(at: top)
            pixels.insert(Array(repeating: nil, count: width), at: bottom)
            record.removeFirst()
            record.append(Array(repeating: nil, count: width))
        } else if y < height - 1 {
            y += 1
        }
    }

    private mutating func reverseIndex() {
        pendingWrap = false
        if y == top {
            cells.remove(at: bottom)
            cells.insert(Array(repeating: erased, count: width), at: top)
            pixels.remove(at: bottom)
            pixels.insert(Array(repeating: nil, count: width), at: top)
        } else if y > 0 {
            y -= 1
        }
    }

    private mutating func csi(_ params: String, _ final: Unicode.Scalar) {
        let numbers = params.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        func n(_ k: Int, _ fallback: Int) -> Int { k < numbers.count ? (numbers[k] ?? fallback) : fallback }
        pendingWrap = false
        switch final {
        case "H":
            y = min(height - 1, max(0, n(0, 1) - 1))
            x = min(width - 1, max(0, n(1, 1) - 1))
        case "G": x = min(width - 1, max(0, n(0, 1) - 1))
        case "C": x = min(width - 1, x + max(1, n(0, 1)))
        case "K":
            for column in x..<width { cells[y][column] = erased; pixels[y][column] = nil; record[y][column] = nil }
            fixWideHalves(y)
        case "X":
            for column in x..<min(width, x + max(1, n(0, 1))) { cells[y][column] = erased; pixels[y][column] = nil; record[y][column] = nil }
            fixWideHalves(y)
        case "J":
            guard params == "2" else { problems.append("CSI \(params)J"); return }
            cells = Array(repeating: Array(repeating: erased, count: width), count: height)
            pixels = Array(repeating: Array(repeating: nil, count: width), count: height)
            record = pixels
        case "r":
            top = params.isEmpty ? 0 : n(0, 1) - 1
            bottom = params.isEmpty ? height - 1 : n(1, height) - 1
            x = 0
            y = 0
        case "m": sgr(numbers.map { $0 ?? 0 })
        default: problems.append("CSI \(params)\(final)")
        }
    }

    private mutating func sgr(_ codes: [Int]) {
        var k = 0
        let list = codes.isEmpty ? [0] : codes
        func color() -> Color? {
            if k + 2 < list.count, list[k + 1] == 5 { defer { k += 2 }; return .indexed(UInt8(list[k + 2])) }
            if k + 4 < list.count, list[k + 1] == 2 {
                defer { k += 4 }
                return .rgb(UInt8(list[k + 2]), UInt8(list[k + 3]), UInt8(list[k + 4]))
            }
            return nil
        }
        while k < list.count {
            let code = list[k]
            switch code {
            case 0: pen = Shown()
            case 1: pen.attributes.insert(.bold)
            case 2: pen.attributes.insert(.dim)
            case 3: pen.attributes.insert(.italic)
            case 4: pen.attributes.insert(.underline)
            case 7: pen.attributes.insert(.reverse)
            case 22: pen.attributes.subtract([.bold, .dim])
            case 23: pen.attributes.remove(.italic)
            case 24: pen.attributes.remove(.underline)
            case 27: pen.attributes.remove(.reverse)
            case 30...37: pen.fg = .indexed(UInt8(code - 30))
            case 40...47: pen.bg = .indexed(UInt8(code - 40))
            case 90...97: pen.fg = .indexed(UInt8(code - 90 + 8))
            case 100...107: pen.bg = .indexed(UInt8(code - 100 + 8))
            case 39: pen.fg = .default
            case 49: pen.bg = .default
            case 38: if let c = color() { pen.fg = c } else { problems.append("bad colour \(list)") }
            case 48: if let c = color() { pen.bg = c } else { problems.append("bad colour \(list)") }
            default: problems.append("SGR \(code)")
            }
            k += 1
        }
    }

    private mutating func put(_ scalar: Unicode.Scalar) {
        let w = TextWidth.cells(scalar)
        if w == 0 || (scalar.value >= 0xFE00 && scalar.value <= 0xFE0F) || scalar.value == 0x200D {
            // A mark joins the character before it.
            let column = pendingWrap ? x : max(0, x - 1)
            var lead = column
            while lead > 0 && cells[y][lead].width == 0 { lead -= 1 }
            cells[y][lead].text.unicodeScalars.append(scalar)
            return
        }
        if pendingWrap { problems.append("wrote \(scalar) past the last column at row \(y)") }
        guard x + w <= width else { problems.append("\(scalar) does not fit at \(x),\(y)"); return }
        var cell = pen
        cell.text = String(scalar)
        cell.width = w
        cells[y][x] = cell
        pixels[y][x] = nil
        record[y][x] = nil
        if w == 2 {
            var half = pen
            half.text = ""
            half.width = 0
            cells[y][x + 1] = half
            pixels[y][x + 1] = nil
            record[y][x + 1] = nil
        }
        fixWideHalves(y)
        if x + w >= width { pendingWrap = true; x = width - 1 } else { x += w }
    }

    /// A wide character that lost a half becomes blank, as terminals do.
    private mutating func fixWideHalves(_ row: Int) {
        for column in 0..<width {
            let cell = cells[row][column]
            if cell.width == 2, column + 1 >= width || cells[row][column + 1].width != 0 {
                cells[row][column] = Shown(bg: cell.bg)
            }
            if cell.width == 0, column == 0 || cells[row][column - 1].width != 2 {
                cells[row][column] = Shown(bg: cell.bg)
            }
        }
    }

    /// What a cell looks like: a blank shows only its background (unless reversed or underlined).
    static func look(_ cell: Shown) -> Shown {
        if cell.text == " " && cell.attributes.isDisjoint(with: [.reverse, .underline]) { return Shown(bg: cell.bg) }
        return cell
    }

    /// The cells of `buffer` as they should look through `writer`: its theme, and colours as
    /// the terminal has them (nearest of 256 or 8) read back from its codes.
    static func expected(_ buffer: CellBuffer, writer: ScreenWriter) -> [[Shown]] {
        var known: [Color: Color] = [:]
        func shown(_ color: Color) -> Color {
            if let seen = known[color] { return seen }
            guard let code = writer.colorCode(color, background: false) else { return .default }
            var model = ScreenModel(width: 1, height: 1)
            model.play(Array("\u{1B}[\(code)m".utf8))
            known[color] = model.pen.fg
            return model.pen.fg
        }
        return (0..<buffer.height).map { y in
            (0..<buffer.width).map { x in
                let cell = buffer[x, y]
                let style = writer.theme.resolve(cell.style)
                return look(Shown(text: cell.isContinuation ? "" : cell.text, fg: shown(style.fg), bg: shown(style.bg),
                                  attributes: style.attributes, width: Int(cell.width)))
            }
        }
    }

    var looks: [[Shown]] { cells.map { $0.map(Self.look) } }
}

@Suite struct ScreenWriterTests {
    static let words = ["Balloons", "Tokyo trip 東京", "$4.00", "▀▀", "│", "Concert ⚡️", "café", "e\u{301}", "  ", "x", "中文字"]
    static let styles: [Style] = [
        .plain, .bold, .role(.moneyIn), .role(.selection, .reverse), Style(fg: .indexed(150), bg: .indexed(144)),
        Style(bg: .indexed(24)), .underline, .dim, Style(fg: .rgb(10, 200, 30), bg: .rgb(1, 2, 3), attributes: [.italic, .bold]),
    ]

    static func randomRow(_ buffer: inout CellBuffer, y: Int, using rng: inout SplitMix64) {
        var x = Int.random(in: 0..<4, using: &rng)
        while x < buffer.width - 1 {
            let word = words.randomElement(using: &rng)!
            let style = styles.randomElement(using: &rng)!
            x += buffer.write(word, x: x, y: y, style: style) + Int.random(in: 0..<3, using: &rng)
            if Int.random(in: 0..<6, using: &rng) == 0 { break }
        }
        if Bool.random(using: &rng) { buffer.fill(Rect(x: buffer.width - 1, y: y, width: 1, height: 1), style: .role(.border), with: "█") }
    }

    /// The next frame: often the last one scrolled by a few rows in a region, with a few rows changed.
    static func nextFrame(after previous: CellBuffer, using rng: inout SplitMix64) -> CellBuffer {
        var next = previous
        let height = previous.height
        if Int.random(in: 0..<3, using: &rng) > 0 {
            let top = Int.random(in: 0..<(height / 2), using: &rng)
            let bottom = Int.random(in: (top + 2)..<height, using: &rng)
            let by = Int.random(in: 1...3, using: &rng) * (Bool.random(using: &rng) ? 1 : -1)
            for y in top...bottom {
                let from = y + by
                for x in 0..<previous.width {
                    next[x, y] = (top...bottom).contains(from) ? previous[x, from] : .blank
                }
            }
            for y in top...bottom where !(top...bottom).contains(y + by) {
                randomRow(&next, y: y, using: &rng)
            }
        }
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            let y = Int.random(in: 0..<height, using: &rng)
            next.fill(Rect(x: 0, y: y, width: previous.width, height: 1))
            randomRow(&next, y: y, using: &rng)
        }
        if Int.random(in: 0..<4, using: &rng) == 0 {
            let y = Int.random(in: 0..<height, using: &rng)
            next.patch(Rect(x: 0, y: y, width: previous.width, height: 1), with: .role(.selection, .reverse))
        }
        return next
    }

    @Test(arguments: [
        ScreenWriter.Features(colors: 256, backColorErase: true),
        ScreenWriter.Features(colors: 256, backColorErase: false),
        ScreenWriter.Features(colors: 8, backColorErase: true, eraseCharacters: false, scrollRegions: false),
        ScreenWriter.Features(colors: 16777216, truecolor: true, backColorErase: true),
        ScreenWriter.Features(colors: 0, backColorErase: false),
    ])
    func aModelTerminalShowsEveryFrameExactly(features: ScreenWriter.Features) {
        let theme = features.colors == 0 ? Theme.noColor : Theme.standard
        var rng = SplitMix64(seed: 2026)
        let width = 37, height = 12
        var writer = ScreenWriter(features: features, theme: theme)
        var model = ScreenModel(width: width, height: height, backColorErase: features.backColorErase)
        var frame = CellBuffer(width: width, height: height)
        for y in 0..<height { Self.randomRow(&frame, y: y, using: &rng) }
        for step in 0..<200 {
            model.play(writer.frame(frame, repaint: step % 50 == 7 ? [3] : []))
            let expected = ScreenModel.expected(frame, writer: writer)
            #expect(model.problems == [], "step \(step)")
            // Every frame ends with the whole screen as the scroll region and the plain pen.
            #expect(model.top == 0 && model.bottom == height - 1, "step \(step)")
            #expect(model.pen == ScreenModel.Shown(), "step \(step)")
            if model.looks != expected {
                let row = (0..<height).first { model.looks[$0] != expected[$0] }!
                Issue.record("step \(step): row \(row) shows \(model.looks[row]) but should show \(expected[row])")
                return
            }
            frame = Self.nextFrame(after: frame, using: &rng)
            if step % 67 == 66 { writer.forget() }
        }
    }

    @Test func aFrameLikeTheLastSendsNothing() {
        var writer = ScreenWriter(features: .init(), theme: .standard)
        var frame = CellBuffer(width: 20, height: 3)
        frame.write("Balloons", x: 0, y: 1, style: .bold)
        #expect(!writer.frame(frame).isEmpty)
        #expect(writer.frame(frame).isEmpty)
    }

    @Test func aListMovedUpOneRowIsScrolledAndOnlyTheNewRowIsWritten() {
        var writer = ScreenWriter(features: .init(), theme: .standard)
        var frame = CellBuffer(width: 30, height: 8)
        frame.write("header", x: 0, y: 0)
        let items = ["Balloons", "Tokyo trip", "Vacation", "Bike", "Concert tickets", "Emergency fund", "Brand New Wheels"]
        for row in 1..<7 { frame.write("item \(items[row - 1])", x: 0, y: row) }
        frame.write("status", x: 0, y: 7)
        _ = writer.frame(frame)
        var next = frame
        for row in 1..<7 { next.fill(Rect(x: 0, y: row, width: 30, height: 1)); next.write("item \(items[row])", x: 0, y: row) }
        let bytes = String(decoding: writer.frame(next), as: UTF8.self)
        #expect(bytes.hasPrefix("\u{1B}[2;7r\u{1B}[7H\n\u{1B}[r"))
        #expect(bytes.contains("Brand New Wheels"))
        #expect(!bytes.contains("Emergency fund"))
    }

    @Test func onlyTheAttributeThatChangesIsSent() {
        var writer = ScreenWriter(features: .init(), theme: .standard)
        var frame = CellBuffer(width: 20, height: 1)
        _ = writer.frame(frame)
        frame.write([Span("a "), Span("You", .bold), Span(" saved "), Span("$4.00", .role(.moneyIn))], x: 0, y: 0)
        let bytes = String(decoding: writer.frame(frame), as: UTF8.self)
        // Bold on, then off (a reset is shorter than 22), the space between words written rather
        // than skipped, the green alone, one reset at the end. The blank right after the last word
        // is erased (`CSI X`): a glyph's edge may have spilled into it.
        #expect(bytes == "\u{1B}[1Ha \u{1B}[1mYou\u{1B}[0m saved \u{1B}[38;5;34m$4.00\u{1B}[X\u{1B}[0m")
        frame.write([Span("You", .role(.moneyIn, .bold)), Span(" saved "), Span("$4.00", .role(.moneyIn, .bold))], x: 2, y: 0)
        // The unchanged words are stepped over, and the pen, bold green, is not sent again for "$4.00".
        #expect(String(decoding: writer.frame(frame), as: UTF8.self) == "\u{1B}[1;3H\u{1B}[1;38;5;34mYou\u{1B}[X\u{1B}[7C$4.00\u{1B}[X\u{1B}[0m")
    }

    @Test func blankRunsAreErasedAndTheRestOfARowClearedOnce() {
        var writer = ScreenWriter(features: .init(backColorErase: true), theme: .standard)
        var frame = CellBuffer(width: 40, height: 1)
        frame.write("left", x: 0, y: 0)
        frame.write("right", x: 30, y: 0)
        _ = writer.frame(frame)
        var next = CellBuffer(width: 40, height: 1)
        next.write("l", x: 0, y: 0)
        next.write("r", x: 30, y: 0)
        let bytes = String(decoding: writer.frame(next), as: UTF8.self)
        #expect(bytes == "\u{1B}[1;2H\u{1B}[29X\u{1B}[29Cr\u{1B}[K")
    }
}

/// For a screen reader the writer ends each frame with the cursor where the frame puts it, shown;
/// otherwise it still ends each frame at the selection, hidden (a few bytes a frame).
@Suite struct ScreenWriterCursorTests {
    static func frame(cursor: CursorPosition?) -> CellBuffer {
        var frame = CellBuffer(width: 20, height: 4)
        frame.write("Goals", x: 0, y: 0)
        frame.write("BA Balloons", x: 1, y: 2)
        frame.cursor = cursor
        return frame
    }

    @Test func theCursorEndsWhereTheFrameSaysAndIsShownOnce() {
        var features = ScreenWriter.Features()
        features.placesCursor = true
        var writer = ScreenWriter(features: features, theme: .standard)
        var model = ScreenModel(width: 20, height: 4)
        let first = writer.frame(Self.frame(cursor: CursorPosition(x: 4, y: 2)))
        model.play(first)
        #expect((model.x, model.y) == (4, 2))
        #expect(String(decoding: first, as: UTF8.self).hasSuffix("\u{1B}[?25h"))
        // Only the cursor moves: a move, no second "show".
        let moved = String(decoding: writer.frame(Self.frame(cursor: CursorPosition(x: 1, y: 0))), as: UTF8.self)
        model.play(Array(moved.utf8))
        #expect((model.x, model.y) == (1, 0))
        #expect(!moved.contains("?25h") && !moved.isEmpty)
        // No place for it: hidden.
        #expect(String(decoding: writer.frame(Self.frame(cursor: nil)), as: UTF8.self).hasSuffix("\u{1B}[?25l"))
    }

    /// Issue 50, item 4: without the mode the cursor still follows the selection every frame
    /// (a magnifier follows it), but is never shown.
    @Test func withoutTheModeTheCursorIsMovedButNeverShown() {
        var writer = ScreenWriter(features: .init(), theme: .standard)
        var model = ScreenModel(width: 20, height: 4)
        model.play(writer.frame(Self.frame(cursor: nil)))
        let bytes = writer.frame(Self.frame(cursor: CursorPosition(x: 4, y: 2)))
        model.play(bytes)
        #expect((model.x, model.y) == (4, 2))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("?25h") && !text.contains("?25l"))
        let next = writer.frame(Self.frame(cursor: CursorPosition(x: 1, y: 0)))
        model.play(next)
        #expect((model.x, model.y) == (1, 0))
        #expect(!String(decoding: next, as: UTF8.self).contains("?25h"))
    }

    @Test func aListPutsTheCursorOnTheSelectedRowsText() {
        var buffer = CellBuffer(width: 30, height: 6)
        var state = ListState()
        state.selected = 2
        ListView().draw(into: &buffer, rect: buffer.area, count: 5, state: &state) { buffer, index, row, _ in
            buffer.write("   item \(index)", x: row.x, y: row.y)
        }
        #expect(buffer.cursor == CursorPosition(x: 3, y: 2))
        let input = TextInput("Car")
        var form = CellBuffer(width: 20, height: 2)
        input.draw(into: &form, x: 2, y: 1, width: 10)
        #expect(form.cursor == CursorPosition(x: 5, y: 1))
        var other = CellBuffer(width: 20, height: 2)
        input.draw(into: &other, x: 2, y: 1, width: 10, focused: false)
        #expect(other.cursor == nil)
    }
}
