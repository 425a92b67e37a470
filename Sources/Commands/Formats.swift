import FeedModel
import Foundation
import TermUI

/// What the headless commands write (docs/cli.md): an aligned table, JSON of a versioned schema,
/// CSV (RFC 4180) or an hledger/ledger journal.
public enum OutputFormat: String, CaseIterable, Sendable {
    case table, json, csv, ledger
}

/// The version of every JSON document the commands write (`"version": 1`); a change that
/// removes or renames a field raises it.
public let jsonSchemaVersion = 1

/// Where a command's data goes: stdout in the binary, a buffer in tests. Lines are collected
/// up to 64 KB and written as they come (a window of activity at a time, `flush()` after each),
/// never kept.
public final class OutputSink: @unchecked Sendable {
    /// Writes the text; false when nobody reads any more (a closed pipe).
    private let write: (String) -> Bool
    public let colors: Bool
    /// Used from one task at a time (a command runs its steps in order).
    private var pending = ""
    private static let limit = 64 * 1024
    /// The reader has gone (`qapital-tui export | head -1`): nothing more is written, and a
    /// walk stops at its next window (`checkReader()`) instead of fetching the rest for nobody.
    public private(set) var readerGone = false
    /// `--strict`: what is written is kept until `release()`, so a run that fails writes nothing.
    public private(set) var holding = false

    /// Thrown by `checkReader()`: the command ends quietly with status 141, as a process that
    /// SIGPIPE stopped would (docs/cli.md).
    public struct ReaderGone: Error {}

    public init(colors: Bool = false, write: @escaping (String) -> Void) {
        self.colors = colors
        self.write = { write($0); return true }
    }

    init(colors: Bool, writeChecked: @escaping (String) -> Bool) {
        self.colors = colors
        self.write = writeChecked
    }

    deinit { flush() }

    /// Standard output (each flush is one `write`); a closed pipe ends the writing, never the process.
    public static func standardOutput(colors: Bool) -> OutputSink {
        OutputSink(colors: colors, writeChecked: { text in StandardStream.output.write(text) })
    }

    /// Throws `ReaderGone` once the reader has gone.
    public func checkReader() throws(ReaderGone) {
        if readerGone { throw ReaderGone() }
    }

    public func line(_ text: String = "") {
        pending += text
        pending += "\n"
        if pending.utf8.count >= OutputSink.limit { flush() }
    }

    public func text(_ text: String) {
        pending += text
        if pending.utf8.count >= OutputSink.limit { flush() }
    }

    /// Keeps everything written from now on until `release()` or `discard()`.
    public func hold() { holding = true }

    /// Writes what was held, and writes as it comes again.
    public func release() {
        holding = false
        flush()
    }

    /// Drops what was held: nothing of it is written.
    public func discard() {
        pending = ""
        holding = false
    }

    /// Writes what is collected (nothing while holding).
    public func flush() {
        if holding { return }
        guard !pending.isEmpty, !readerGone else { pending = ""; return }
        if !write(pending) { readerGone = true }
        pending = ""
    }

    /// Bold and colours (SGR) only when colours are on; never for data in another format.
    func styled(_ text: String, _ code: String) -> String {
        colors ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

/// Cells of each format, from text that was cleaned when it was decoded (no escape sequence or
/// control character reaches stdout); cleaned again here in case a caller passes raw text.
public enum Cell {
    /// One line of text: cleaned, tabs and line breaks as spaces.
    public static func plain(_ text: String) -> String {
        String(TextSanitizer.clean(text).map { $0.isNewline || $0 == "\t" ? " " : $0 })
    }

    /// A CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF or has a blank at
    /// either end (quotes doubled);
    /// text a spreadsheet could run as a formula gets a leading `'` so it is shown instead
    /// (`formulaLike`, on the text as given and as cleaned). Numbers the app writes itself
    /// (`decimal`) are never formulas and do not come here.
    public static func csv(_ text: String) -> String {
        var cell = TextSanitizer.clean(text)
        if formulaLike(text) || formulaLike(cell) { cell = "'" + cell }
        // Quoted also when it begins or ends with a blank, which readers drop from a bare field.
        if cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            || cell.first?.isWhitespace == true || cell.last?.isWhitespace == true {
            return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return cell
    }

    /// OWASP's CSV injection rule: a cell that begins with a tab or a carriage return, or whose
    /// first character past blanks and control characters (which spreadsheets skip) is `=`, `+`,
    /// `-` or `@` (or their full-width forms).
    public static func formulaLike(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first else { return false }
        if first == "\t" || first == "\r" { return true }
        guard let shown = text.unicodeScalars.first(where: { !$0.properties.isWhitespace && $0.value >= 0x20
                                                              && !(0x7F...0x9F).contains($0.value) }) else { return false }
        return "=+-@\u{FF1D}\u{FF0B}\u{FF0D}\u{FF20}".unicodeScalars.contains(shown)
    }

    /// A JSON string literal: quotes, backslashes and every control character escaped.
    public static func json(_ text: String) -> String {
        var out = "\""
        for scalar in TextSanitizer.clean(text).unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
                    || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// An amount in a journal: `1.16 USD`, `-400 JPY` (the commodity after the number, so any
    /// ISO code reads the same in hledger and ledger).
    public static func ledgerAmount(_ money: Money) -> String {
        decimal(money) + " " + money.currency.code
    }

    /// A plain decimal with every minor digit: `-4.35`, `1250.00`, `400`.
    public static func decimal(_ money: Money) -> String { money.plainDecimal }

    /// An account name part: no `:` (the separator), no two spaces or a tab (which end the name),
    /// no `;` `#` `(` `)` `[` `]` that a journal reads otherwise; never empty.
    public static func accountPart(_ text: String) -> String {
        var out = ""
        for character in plain(text) {
            let mapped: Character = ":;#()[]|*!&@=\"".contains(character) ? "-" : character
            if mapped == " " && (out.isEmpty || out.hasSuffix(" ")) { continue }
            out.append(mapped)
        }
        while out.hasSuffix(" ") { out.removeLast() }
        return out.isEmpty ? "-" : out
    }

    /// A transaction's description: one line, without `;` (a comment) or `|` (payee | note).
    /// One that starts with `*` or `!` (a status) or `(` (a code) follows an empty code `()`,
    /// so hledger and ledger read all of it as the description.
    public static func ledgerDescription(_ text: String) -> String {
        let line = String(plain(text).map { $0 == ";" ? "," : $0 == "|" ? "/" : $0 }).trimmingCharacters(in: .whitespaces)
        if let first = line.first, "*!(".contains(first) { return "() " + line }
        return line
    }

    /// A tag's value in a journal comment (`id: …`): one line, `%` `,` `;` and spaces written
    /// `%25` `%2C` `%3B` `%20` (a comma or a space would end or change the value), so distinct
    /// ids stay distinct and hledger reads each whole.
    public static func ledgerTagValue(_ text: String) -> String {
        var out = ""
        for character in plain(text) {
            switch character {
            case "%": out += "%25"
            case ",": out += "%2C"
            case ";": out += "%3B"
            case " ": out += "%20"
            default: out.append(character)
            }
        }
        return out
    }

    /// `2026-11-20T14:03:00Z`
    public static func isoTime(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }
}

/// Columns of an aligned table: fixed widths where the data is known to fit, the last one free.
/// Rows can be written one at a time (a table of activity is streamed).
public struct TableLayout: Sendable {
    public struct Column: Sendable {
        public let title: String
        public let width: Int
        public let alignRight: Bool
        public init(_ title: String, width: Int, alignRight: Bool = false) {
            self.title = title
            self.width = width
            self.alignRight = alignRight
        }
    }

    public let columns: [Column]

    public init(_ columns: [Column]) { self.columns = columns }

    /// Widths that fit `rows` (and the titles): for a table whose rows are all known first.
    public static func fitting(_ titles: [(String, Bool)], rows: [[String]]) -> TableLayout {
        TableLayout(titles.enumerated().map { index, title in
            let widest = rows.map { width($0[index]) }.max() ?? 0
            return Column(title.0, width: max(width(title.0), widest), alignRight: title.1)
        })
    }

    public func header(_ sink: OutputSink) {
        sink.line(sink.styled(row(columns.map(\.title)), "1"))
    }

    public func row(_ cells: [String]) -> String {
        var parts: [String] = []
        for (index, column) in columns.enumerated() {
            let cell = Cell.plain(index < cells.count ? cells[index] : "")
            let last = index == columns.count - 1
            parts.append(last && !column.alignRight ? cell : TableLayout.pad(cell, to: column.width, right: column.alignRight))
        }
        var text = parts.joined(separator: "  ")
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }

    static func width(_ text: String) -> Int { TextWidth.of(text) }

    static func pad(_ text: String, to width: Int, right: Bool) -> String {
        TextWidth.pad(text, to: max(width, TextWidth.of(text)), alignRight: right)
    }
}
