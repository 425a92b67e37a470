/// An activity's id as a row keeps it (issue 49): a bank's ids are 25 to 36 characters, past the
/// 15 bytes a `String` holds in itself, so each would be a heap allocation beside its row. The
/// shapes banks use are kept in the row instead, in three words:
///
/// - a UUID in lower or upper case, 8-4-4-4-12 hex digits (Starling's `feedItemUid`, Up's and
///   bunq's ids): its 16 bytes;
/// - a prefix of up to 8 letters and digits ending in `_` (Monzo's `tx_`, `pot_`), kept once per
///   process and named by a number, then 1 to 26 characters of `0-9 A-Z a-z _ -`: 6 bits each;
/// - anything else, and every id of 15 bytes or fewer: the text itself, as before.
///
/// Every id reads back byte for byte (`text`); an id is kept in one way only, so two ids are the
/// same id exactly when they are kept the same way. Ids are compared byte for byte, not as
/// Unicode text: a bank's "K" and KELVIN SIGN (U+212A) are two ids.
public enum ActivityID: Hashable, Sendable {
    case text(String)
    case packed(UInt64, UInt64, UInt64)

    public static func == (a: ActivityID, b: ActivityID) -> Bool {
        switch (a, b) {
        case let (.packed(a0, a1, a2), .packed(b0, b1, b2)): a0 == b0 && a1 == b1 && a2 == b2
        case let (.text(a), .text(b)): a.utf8.elementsEqual(b.utf8)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .packed(let a, let b, let c):
            hasher.combine(a)
            hasher.combine(b)
            hasher.combine(c)
        case .text(let text):
            hasher.combine(text.utf8.count)
            for byte in text.utf8 { hasher.combine(byte) }
        }
    }

    private static let lowerUUID: UInt64 = 1
    private static let upperUUID: UInt64 = 2
    private static let prefixed: UInt64 = 3
    static let longestPayload = 26
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-".utf8)
    /// Each byte's symbol, 0xFF for a byte outside the alphabet.
    private static let symbols: [UInt8] = {
        var symbols = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { symbols[Int(byte)] = UInt8(index) }
        return symbols
    }()

    /// `text` kept in the smallest way that reads back the same.
    public init(_ text: String) {
        // 15 bytes or fewer are inside the `String` already: kept as they are, without a copy.
        guard text.utf8.count > 15 else {
            self = .text(text)
            return
        }
        let bytes = Array(text.utf8)
        self = ActivityID.uuid(bytes) ?? ActivityID.prefixed(bytes) ?? .text(text)
    }

    /// The id as the source wrote it.
    public var text: String {
        switch self {
        case .text(let text): return text
        case .packed(let head, let high, let low):
            switch head & 0xFF {
            case ActivityID.lowerUUID, ActivityID.upperUUID: return ActivityID.uuidText(high, low, upper: head & 0xFF == ActivityID.upperUUID)
            default: return ActivityID.prefixedText(head, high, low)
            }
        }
    }

    // MARK: UUIDs

    private static func uuid(_ bytes: [UInt8]) -> ActivityID? {
        guard bytes.count == 36 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        var digits = 0
        var upper: Bool?
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"):
                guard upper != true else { return nil }
                upper = false
                value = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"):
                guard upper != false else { return nil }
                upper = true
                value = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            if digits < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
            digits += 1
        }
        return .packed(upper == true ? upperUUID : lowerUUID, high, low)
    }

    private static func uuidText(_ high: UInt64, _ low: UInt64, upper: Bool) -> String {
        let digits = Array((upper ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out = [UInt8]()
        out.reserveCapacity(36)
        for index in 0..<32 {
            if index == 8 || index == 12 || index == 16 || index == 20 { out.append(UInt8(ascii: "-")) }
            let word = index < 16 ? high : low
            out.append(digits[Int(word >> UInt64(4 * (15 - index % 16)) & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: prefixed ids

    /// The head word: the kind (8 bits), the prefix's number (8), the payload's length (8), then
    /// six symbols; then ten in each of the other words: up to 26 symbols of 6 bits.
    private static func prefixed(_ bytes: [UInt8]) -> ActivityID? {
        guard let underscore = bytes.prefix(9).firstIndex(of: UInt8(ascii: "_")), underscore > 0 else { return nil }
        let prefix = bytes[...underscore]
        guard prefix.dropLast().allSatisfy(isLetterOrDigit) else { return nil }
        let payload = bytes[(underscore + 1)...]
        guard (1...longestPayload).contains(payload.count) else { return nil }
        var words: [UInt64] = [0, 0, 0]
        for (index, byte) in payload.enumerated() {
            let value = symbols[Int(byte)]
            guard value != 0xFF else { return nil }
            let (word, shift) = place(index)
            words[word] |= UInt64(value) << shift
        }
        guard let number = ActivityIDPrefixes.number(String(decoding: prefix, as: UTF8.self)) else { return nil }
        return .packed(words[0] | prefixed | UInt64(number) << 8 | UInt64(payload.count) << 16, words[1], words[2])
    }

    private static func prefixedText(_ head: UInt64, _ high: UInt64, _ low: UInt64) -> String {
        let words = [head, high, low]
        var out = Array((ActivityIDPrefixes.prefix(UInt8(truncatingIfNeeded: head >> 8)) ?? "").utf8)
        for index in 0..<min(longestPayload, Int(head >> 16 & 0xFF)) {
            let (word, shift) = place(index)
            out.append(alphabet[Int(words[word] >> shift & 0x3F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Symbol `index`'s word and shift: six in the head above its 24 bits, ten in each other word.
    private static func place(_ index: Int) -> (word: Int, shift: UInt64) {
        switch index {
        case 0..<6: (0, UInt64(24 + 6 * index))
        case 6..<16: (1, UInt64(6 * (index - 6)))
        default: (2, UInt64(6 * (index - 16)))
        }
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}

/// The prefixes of packed ids ("tx_"), each kept once per process and named by a number from 1;
/// past 255 a new prefix is not packed (its ids stay text), so a hostile feed cannot grow it.
enum ActivityIDPrefixes {
    private struct Table {
        var prefixes: [String] = [""]
        var numbers: [String: UInt8] = [:]
    }

    private static let table = Locked(Table())

    static func number(_ prefix: String) -> UInt8? {
        table.withLock { table in
            if let number = table.numbers[prefix] { return number }
            guard table.prefixes.count <= Int(UInt8.max) else { return nil }
            let number = UInt8(table.prefixes.count)
            table.prefixes.append(prefix)
            table.numbers[prefix] = number
            return number
        }
    }

    static func prefix(_ number: UInt8) -> String? {
        table.withLock { table in number != 0 && Int(number) < table.prefixes.count ? table.prefixes[Int(number)] : nil }
    }
}
