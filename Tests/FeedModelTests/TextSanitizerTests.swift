import Testing
@testable import FeedModel

@Suite struct TextSanitizerTests {
    @Test(arguments: [
        // Plain text is untouched, including wide and combining characters.
        ("Hello, 世界 ⚡️ e\u{301}", "Hello, 世界 ⚡️ e\u{301}"),
        // C0: tab, newline, CR become spaces; the rest goes.
        ("a\tb\nc\r\nd", "a b c  d"),
        ("bell\u{07}null\u{00}bs\u{08}", "bellnullbs"),
        ("del\u{7F}ete", "delete"),
        // C1 controls (8-bit) go.
        ("x\u{85}y\u{8D}z", "xyz"),
        // CSI: colours, cursor movement, clear screen.
        ("\u{1B}[31mred\u{1B}[0m", "red"),
        ("\u{1B}[2J\u{1B}[H\u{1B}[10;20Hmoved", "moved"),
        ("\u{1B}[?1049l", ""),
        // 8-bit CSI.
        ("\u{9B}2Jgone", "gone"),
        // OSC ended by BEL, by ST, by 8-bit ST, and never ended.
        ("\u{1B}]0;pwned\u{07}title", "title"),
        ("\u{1B}]8;;http://x\u{1B}\\link\u{1B}]8;;\u{1B}\\", "link"),
        ("\u{9D}0;t\u{9C}after", "after"),
        ("before\u{1B}]0;never ended", "before"),
        // DCS, SOS, PM, APC (7- and 8-bit).
        ("\u{1B}Pq#0;2;0;0;0\u{1B}\\dcs", "dcs"),
        ("\u{1B}Xsos\u{1B}\\a\u{1B}^pm\u{1B}\\b\u{1B}_apc\u{1B}\\c", "abc"),
        ("\u{90}dcs\u{9C}x\u{98}s\u{9C}y\u{9E}p\u{9C}z\u{9F}a\u{9C}!", "xyz!"),
        // Two-byte escapes: reset, charset selection, keypad.
        ("\u{1B}cfresh", "fresh"),
        ("\u{1B}(Bascii\u{1B}=", "ascii"),
        // A lone ESC, at the end and in the middle.
        ("end\u{1B}", "end"),
        ("mid\u{1B}\u{1B}[1mdle", "middle"),
        // CSI cut short by a control still removes both.
        ("\u{1B}[12\u{07}x", "x"),
    ])
    func removesWhatATerminalWouldObey(input: String, expected: String) {
        #expect(TextSanitizer.clean(input) == expected)
    }

    @Test(arguments: [
        // Bidi override: "$100.00" would be drawn reversed.
        ("\u{202E}00.001$\u{202C}", "00.001$"),
        // Embeddings, isolates and their pop; the marks LRM, RLM, ALM.
        ("a\u{202A}b\u{202B}c\u{202D}d\u{202C}e", "abcde"),
        ("\u{2066}x\u{2069}\u{2067}y\u{2069}\u{2068}z\u{2069}", "xyz"),
        ("l\u{200E}r\u{200F}a\u{061C}m", "lram"),
        // Zero-width space, word joiner, soft hyphen, BOM, invisible times, tag characters.
        ("in\u{200B}vis\u{2060}i\u{00AD}ble\u{FEFF}\u{2062}", "invisible"),
        ("tag\u{E0041}\u{E0042}\u{E007F}s", "tags"),
        // Line and paragraph separators read as newline does.
        ("one\u{2028}two\u{2029}three", "one two three"),
        // Joiners between visible characters stay: a ZWJ family, a ZWNJ in Persian.
        ("👩\u{200D}👩\u{200D}👧", "👩\u{200D}👩\u{200D}👧"),
        ("می\u{200C}خواهم", "می\u{200C}خواهم"),
        // Joiners that join nothing go.
        ("\u{200D}lead trail\u{200D}", "lead trail"),
        ("a\u{200D}\u{200D}b a \u{200C}b a\u{200D}\u{202E}b", "a\u{200D}b a b ab"),
    ])
    func removesInvisibleFormatCharacters(input: String, expected: String) {
        #expect(TextSanitizer.clean(input) == expected)
    }

    @Test func outputNeverHoldsABidiControl() {
        let bidi: [UInt32] = [0x061C, 0x200E, 0x200F] + Array(0x202A...0x202E) + Array(0x2066...0x2069)
        let text = bidi.map { "x" + String(UnicodeScalar($0)!) }.joined()
        let cleaned = TextSanitizer.clean(text)
        #expect(cleaned == String(repeating: "x", count: bidi.count))
        #expect(!cleaned.unicodeScalars.contains { $0.properties.generalCategory == .format })
    }

    @Test func outputNeverHoldsAControl() {
        let nasty = (0..<256).map { String(UnicodeScalar(UInt8($0))) }.joined()
        let cleaned = TextSanitizer.clean(nasty)
        #expect(!cleaned.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }
}
