/// A message from the server with its `<strong>` words as bold runs.
///
/// Entities (`&amp; &lt; &gt; &quot; &#39;` and numeric ones) are decoded, other tags are
/// dropped with their text kept, an unclosed `<strong>` is bold to the end and a stray
/// `</strong>` is ignored. Each run's text is sanitized after decoding, so an entity can't
/// smuggle in a control character.
public struct MarkupText: Hashable, Sendable, CustomStringConvertible {
    public struct Run: Hashable, Sendable {
        public var text: String
        public var isBold: Bool
        public init(_ text: String, bold: Bool = false) {
            self.text = text
            self.isBold = bold
        }
    }

    /// The text without markup, for filtering and plain display.
    public let plainText: String
    /// Where the bold runs are, as UTF-8 offsets into `plainText`. A million activities are
    /// held in memory, so one string plus the ranges replaces a string per run: up to two
    /// ranges (the usual "<strong>who</strong> … <strong>where</strong>") packed in 64 bits,
    /// more (or offsets past 65 535) in `extraBold`.
    private let packedBold: UInt64
    private let extraBold: [Range<Int>]?

    /// Runs as given; adjacent runs of the same weight are merged and empty ones dropped.
    public init(runs: [Run]) {
        var text = ""
        var bold: [Range<Int>] = []
        var offset = 0
        for run in runs where !run.text.isEmpty {
            let length = run.text.utf8.count
            text += run.text
            if run.isBold {
                if let last = bold.last, last.upperBound == offset {
                    bold[bold.count - 1] = last.lowerBound..<(offset + length)
                } else {
                    bold.append(offset..<(offset + length))
                }
            }
            offset += length
        }
        plainText = text
        if bold.count <= 2, bold.allSatisfy({ $0.upperBound <= Int(UInt16.max) }) {
            var packed: UInt64 = 0
            for (i, range) in bold.enumerated() {
                packed |= (UInt64(range.lowerBound) | UInt64(range.upperBound) << 16) << (32 * UInt64(i))
            }
            packedBold = packed
            extraBold = nil
        } else {
            packedBold = 0
            extraBold = bold
        }
    }

    public init(parsing source: String) {
        self.init(runs: MarkupText.parse(source))
    }

    /// The bold ranges, in order.
    private var boldRanges: [Range<Int>] {
        if let extraBold { return extraBold }
        var ranges: [Range<Int>] = []
        for i in 0..<2 {
            let bits = packedBold >> (32 * UInt64(i))
            let lower = Int(bits & 0xFFFF), upper = Int(bits >> 16 & 0xFFFF)
            if upper > lower { ranges.append(lower..<upper) }
        }
        return ranges
    }

    /// The text as runs of plain and bold, none empty, no two neighbours of the same weight.
    public var runs: [Run] {
        let utf8 = plainText.utf8
        func text(_ from: Int, _ to: Int) -> String {
            String(decoding: utf8[utf8.index(utf8.startIndex, offsetBy: from)..<utf8.index(utf8.startIndex, offsetBy: to)], as: UTF8.self)
        }
        var runs: [Run] = []
        var offset = 0
        for range in boldRanges {
            if range.lowerBound > offset { runs.append(Run(text(offset, range.lowerBound))) }
            runs.append(Run(text(range.lowerBound, range.upperBound), bold: true))
            offset = range.upperBound
        }
        if offset < utf8.count { runs.append(Run(text(offset, utf8.count))) }
        return runs
    }

    public var description: String { plainText }

    /// Parses on UTF-8 bytes: `<`, `>` and tag names are ASCII, so text between tags is cut
    /// at byte offsets without walking grapheme clusters (this runs for every message loaded).
    static func parse(_ source: String) -> [Run] {
        var runs: [Run] = []
        var pending = ""
        var boldDepth = 0
        let bytes = Array(source.utf8)

        func flush() {
            let cleaned = TextSanitizer.clean(decodeEntities(pending))
            pending = ""
            guard !cleaned.isEmpty else { return }
            let bold = boldDepth > 0
            if let last = runs.last, last.isBold == bold {
                runs[runs.count - 1].text += cleaned
            } else {
                runs.append(Run(cleaned, bold: bold))
            }
        }

        var segmentStart = 0
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<"),
                  let close = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: ">")),
                  let tag = tag(bytes[(index + 1)..<close]) else {
                index += 1
                continue
            }
            pending += String(decoding: bytes[segmentStart..<index], as: UTF8.self)
            if tag.isBold {
                flush()
                if tag.isClosing {
                    boldDepth = max(0, boldDepth - 1)
                } else if !tag.isSelfClosing {
                    boldDepth += 1
                }
            }
            index = close + 1
            segmentStart = index
        }
        pending += String(decoding: bytes[segmentStart..<bytes.count], as: UTF8.self)
        flush()
        return runs
    }

    /// What lies between `<` and `>` (`strong`, `/strong`, `br/`, `a href=…`), or nil when it
    /// is not a tag (e.g. "a < b > c").
    private static func tag(_ inside: ArraySlice<UInt8>) -> (isBold: Bool, isClosing: Bool, isSelfClosing: Bool)? {
        var body = inside
        let isClosing = body.first == UInt8(ascii: "/")
        if isClosing { body = body.dropFirst() }
        let isSelfClosing = body.last == UInt8(ascii: "/")
        if isSelfClosing { body = body.dropLast() }
        func isLetter(_ byte: UInt8) -> Bool { (65...90).contains(byte) || (97...122).contains(byte) }
        let name = body.prefix { isLetter($0) || (48...57).contains($0) }
        guard let first = name.first, isLetter(first) else { return nil }
        let rest = body.dropFirst(name.count)
        guard rest.isEmpty || rest.first == UInt8(ascii: " ") else { return nil }
        let lowered = name.map { (65...90).contains($0) ? $0 + 32 : $0 }
        let isBold = lowered == Array("strong".utf8) || lowered == [UInt8(ascii: "b")]
        return (isBold, isClosing, isSelfClosing)
    }

    private static let namedEntities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{00A0}",
    ]

    static func decodeEntities(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        var output = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "&", let semicolon = text[index...].prefix(12).firstIndex(of: ";") {
                let name = text[text.index(after: index)..<semicolon]
                if let replacement = entity(name) {
                    output += replacement
                    index = text.index(after: semicolon)
                    continue
                }
            }
            output.append(character)
            index = text.index(after: index)
        }
        return output
    }

    private static func entity(_ name: Substring) -> String? {
        if let named = namedEntities[String(name)] { return named }
        guard name.first == "#" else { return nil }
        let digits = name.dropFirst()
        let value: UInt32?
        if digits.first == "x" || digits.first == "X" {
            value = UInt32(digits.dropFirst(), radix: 16)
        } else {
            value = UInt32(digits, radix: 10)
        }
        guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return "\u{FFFD}" }
        return String(Character(scalar))
    }
}
