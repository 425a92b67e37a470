/// Removes everything from untrusted text that a terminal would act on rather than show.
///
/// Applied once, where decoded data becomes a model value. Tab, newline and carriage return
/// become a space; other C0 controls, DEL and C1 controls are removed; every escape sequence
/// (CSI, OSC ended by BEL or ST or not at all, DCS/SOS/PM/APC, two-byte ESC forms such as
/// `ESC c`, a lone ESC) and their 8-bit C1 forms are removed whole.
///
/// Invisible format characters (Unicode category Cf) go too: the bidi embeddings, overrides
/// and isolates (U+202A–U+202E, U+2066–U+2069), the marks U+200E, U+200F and U+061C, zero-width
/// spaces, word joiners, soft hyphens, BOMs and tag characters. They could reorder or hide text
/// next to an amount ("‮00.001$" shown as "$100.00"). Only the joiners U+200C and U+200D stay,
/// and only between two visible characters, where emoji sequences (👩‍👩‍👧) and some scripts need
/// them. The line and paragraph separators U+2028 and U+2029 become a space, as newline does.
public enum TextSanitizer {
    public static func clean(_ text: String) -> String {
        // Fast path: most text has nothing to remove.
        if !text.unicodeScalars.contains(where: needsAttention) { return text }

        var output = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            let value = scalar.value
            switch value {
            case 0x09, 0x0A, 0x0D:
                output.append(" ")
                index += 1
            case 0x1B:
                index = skipEscape(scalars, from: index)
            case 0x9B:
                index = skipCSI(scalars, from: index + 1)
            case 0x9D, 0x90, 0x98, 0x9E, 0x9F:
                index = skipString(scalars, from: index + 1, bellEnds: value == 0x9D)
            case 0x00...0x1F, 0x7F, 0x80...0x9F:
                index += 1
            case 0x2028, 0x2029:
                output.append(" ")
                index += 1
            case 0x200C, 0x200D:
                // A joiner stays only between two visible characters (and never twice in a row).
                let before = output.last
                let after = index + 1 < scalars.count ? scalars[index + 1] : nil
                if let before, let after, isVisible(before), isVisible(after) { output.append(scalar) }
                index += 1
            default:
                if isFormat(scalar) {
                    index += 1
                } else {
                    output.append(scalar)
                    index += 1
                }
            }
        }
        return String(output)
    }

    private static func needsAttention(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 || (value >= 0x7F && value <= 0x9F) { return true }
        // U+00AD (soft hyphen) is the first format character.
        return value >= 0xAD && (value == 0x2028 || value == 0x2029 || isFormat(scalar))
    }

    /// Unicode category Cf: invisible characters that format, reorder or join text.
    private static func isFormat(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0xAD && scalar.properties.generalCategory == .format
    }

    /// What a joiner may stand between: not a control, space, separator or format character.
    private static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value <= 0x20 || (value >= 0x7F && value <= 0x9F) { return false }
        switch scalar.properties.generalCategory {
        case .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .control: return false
        default: return true
        }
    }

    /// `scalars[start]` is ESC. Returns the index just past the whole sequence.
    private static func skipEscape(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        let next = start + 1
        guard next < scalars.count else { return next }
        switch scalars[next].value {
        case 0x5B: // [
            return skipCSI(scalars, from: next + 1)
        case 0x5D: // ]
            return skipString(scalars, from: next + 1, bellEnds: true)
        case 0x50, 0x58, 0x5E, 0x5F: // P X ^ _
            return skipString(scalars, from: next + 1, bellEnds: false)
        default:
            // nF sequences: intermediates 0x20–0x2F, then one final byte 0x30–0x7E.
            var index = next
            while index < scalars.count, (0x20...0x2F).contains(scalars[index].value) { index += 1 }
            if index < scalars.count, (0x30...0x7E).contains(scalars[index].value) { return index + 1 }
            // A lone ESC (or ESC before something that ends no sequence): drop only the ESC.
            return next
        }
    }

    /// Parameters and intermediates until a final byte 0x40–0x7E; anything else ends it early.
    private static func skipCSI(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        var index = start
        while index < scalars.count {
            let value = scalars[index].value
            if (0x40...0x7E).contains(value) { return index + 1 }
            if !(0x20...0x3F).contains(value) { return index }
            index += 1
        }
        return index
    }

    /// A control string: until ST (ESC \ or 0x9C), or BEL for OSC, or the end of the text.
    private static func skipString(_ scalars: [Unicode.Scalar], from start: Int, bellEnds: Bool) -> Int {
        var index = start
        while index < scalars.count {
            let value = scalars[index].value
            if value == 0x9C || (bellEnds && value == 0x07) { return index + 1 }
            if value == 0x1B {
                if index + 1 < scalars.count, scalars[index + 1].value == 0x5C { return index + 2 }
                return index + 1
            }
            index += 1
        }
        return index
    }
}
