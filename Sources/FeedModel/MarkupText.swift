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

    public let runs: [Run]
    /// The text without markup, for filtering and plain display.
    public let plainText: String

    public init(runs: [Run]) {
        self.runs = runs
        self.plainText = runs.map(\.text).joined()
    }

    public init(parsing source: String) {
        self.init(runs: MarkupText.parse(source))
    }

    public var description: String { plainText }

    private static let boldTags: Set<String> = ["strong", "b"]

    static func parse(_ source: String) -> [Run] {
        var runs: [Run] = []
        var current = ""
        var boldDepth = 0
        var index = source.startIndex

        func flush() {
            let cleaned = TextSanitizer.clean(decodeEntities(current))
            current = ""
            guard !cleaned.isEmpty else { return }
            let bold = boldDepth > 0
            if let last = runs.last, last.isBold == bold {
                runs[runs.count - 1].text += cleaned
            } else {
                runs.append(Run(cleaned, bold: bold))
            }
        }

        while index < source.endIndex {
            let character = source[index]
            if character == "<", let close = source[index...].firstIndex(of: ">"),
               let tag = tagName(source[source.index(after: index)..<close]) {
                if boldTags.contains(tag.name) {
                    flush()
                    if tag.isClosing {
                        boldDepth = max(0, boldDepth - 1)
                    } else if !tag.isSelfClosing {
                        boldDepth += 1
                    }
                }
                index = source.index(after: close)
            } else {
                current.append(character)
                index = source.index(after: index)
            }
        }
        flush()
        return runs
    }

    /// The name of a tag's inside (`strong`, `/strong`, `br/`, `a href=…`), or nil when the
    /// text between `<` and `>` is not a tag (e.g. "a < b > c").
    private static func tagName(_ inside: Substring) -> (name: String, isClosing: Bool, isSelfClosing: Bool)? {
        var body = inside
        let isClosing = body.first == "/"
        if isClosing { body = body.dropFirst() }
        let isSelfClosing = body.last == "/"
        if isSelfClosing { body = body.dropLast() }
        let name = body.prefix { $0.isASCII && ($0.isLetter || $0.isNumber) }
        guard let first = name.first, first.isLetter else { return nil }
        let rest = body.dropFirst(name.count)
        guard rest.isEmpty || rest.first == " " else { return nil }
        return (name.lowercased(), isClosing, isSelfClosing)
    }

    private static let namedEntities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{00A0}",
    ]

    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
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
