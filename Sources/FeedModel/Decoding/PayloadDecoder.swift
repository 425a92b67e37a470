import Foundation

/// A response that could not be turned into model values: names the resource and what was wrong.
public struct MalformedPayload: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was being read, e.g. "GET /savingsgoals".
    public let resource: String
    /// What was wrong, with the path to the bad value, e.g. "savingsGoals[2].currentBalance: expected a number".
    public let reason: String

    /// Both parts may quote the server (a bad value, a key name): cleaned here, once.
    public init(resource: String, reason: String) {
        self.resource = TextSanitizer.clean(resource)
        self.reason = TextSanitizer.clean(reason)
    }

    public var description: String { "\(resource): malformed JSON (\(reason))" }
}

/// Decodes the server's JSON into model values, coping with what the real server sent:
/// keys left out, `null` arrays, whole amounts as integers, both timestamp forms, extra keys.
///
/// Lists are read record by record (`LossyList`): a record that cannot be read is skipped, and
/// one note per answer goes to `skipped` for the status bar.
public struct PayloadDecoder: Sendable {
    /// The account's currency: goals, feed items and rules carry none in the API.
    public let accountCurrency: Currency
    /// Where notes about skipped records go (nil: nowhere).
    public let skipped: SkippedRecords?

    public init(accountCurrency: Currency = .usd, skipped: SkippedRecords? = nil) {
        self.accountCurrency = accountCurrency
        self.skipped = skipped
    }

    /// The largest answer decoded at all (the transport refuses bigger bodies while they arrive).
    public static let maxBytes = 64 * 1024 * 1024
    /// The deepest nesting of arrays and objects decoded (real answers nest 4 deep).
    public static let maxDepth = 512

    public func decode<T: Decodable>(_ type: T.Type, from data: Data, resource: String) throws(MalformedPayload) -> T {
        // Bounds first, on the bytes: nothing past them reaches the JSON parser.
        if data.count > PayloadDecoder.maxBytes {
            throw MalformedPayload(resource: resource, reason: "top level: the answer is larger than \(PayloadDecoder.maxBytes / 1_048_576) MB")
        }
        if let offset = PayloadDecoder.offsetPastMaxDepth(data) {
            throw MalformedPayload(resource: resource,
                                   reason: "top level: nested deeper than \(PayloadDecoder.maxDepth) levels (at byte \(offset))")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(Timestamp.decode)
        decoder.userInfo[.accountCurrency] = accountCurrency
        let notes = SkippedRecords()
        decoder.userInfo[.skippedRecords] = notes
        do {
            let value = try decoder.decode(NamingNumbers<T>.self, from: data).value
            let reasons = notes.drain()
            if let skipped, let note = SkippedRecords.note(resource: TextSanitizer.clean(resource), reasons: reasons) {
                skipped.add(note)
                skipped.addEach(resource: TextSanitizer.clean(resource), reasons: reasons)
            }
            return value
        } catch {
            throw MalformedPayload(resource: resource, reason: PayloadDecoder.explain(error, place: "top level"))
        }
    }

    /// Where `[` and `{` first open more than `maxDepth` levels deep, outside strings; nil when they never do.
    /// One pass over the bytes, no allocation: it runs before any parser sees the answer.
    static func offsetPastMaxDepth(_ data: Data, maxDepth: Int = PayloadDecoder.maxDepth) -> Int? {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Int? in
            var depth = 0
            var inString = false
            var escaped = false
            for (offset, byte) in bytes.enumerated() {
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    if depth > maxDepth { return offset }
                case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
                default: break
                }
            }
            return nil
        }
    }

    /// A coding path as the messages write it: `savingsGoals[2].targetAmount`, or "top level".
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text.isEmpty ? "top level" : text
    }

    /// Any error of a decode, as a reason; `place` is where it happened when the error has no path
    /// of its own (Foundation throws numbers it cannot represent without one).
    static func explain(_ error: any Error, place: String) -> String {
        if let error = error as? DecodingError {
            let reason = explain(error)
            if reason.hasPrefix("top level: "), place != "top level" {
                return place + reason.dropFirst("top level".count)
            }
            return reason
        }
        if let number = unrepresentableNumber(error) {
            return "\(place): the number \(number) cannot be represented"
        }
        return "\(place): \(String(describing: error))"
    }

    /// The number text of Foundation's "number is not representable" error (valid JSON that
    /// no Swift number holds, such as 1e400), cleaned and cut; nil for other errors.
    static func unrepresentableNumber(_ error: any Error) -> String? {
        var candidate: any Error = error
        if case .dataCorrupted(let context) = error as? DecodingError, let underlying = context.underlyingError {
            candidate = underlying
        }
        let text = String(describing: candidate)
        guard text.hasPrefix("numberIsNotRepresentable") else { return nil }
        var number = "a number"
        if let open = text.firstIndex(of: "\""), let close = text[text.index(after: open)...].firstIndex(of: "\"") {
            let parsed = text[text.index(after: open)..<close]
            number = TextSanitizer.clean(parsed.count > 24 ? String(parsed.prefix(24)) + "…" : String(parsed))
        }
        return number
    }

    static func explain(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            PayloadDecoder.path(context.codingPath)
        }
        switch error {
        case .typeMismatch(let type, let context):
            let detail = context.debugDescription.isEmpty ? "" : "; " + context.debugDescription
            return "\(path(context)): expected \(describe(type))\(detail)"
        case .valueNotFound(let type, let context):
            return "\(path(context)): expected \(describe(type)), found null"
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "\(parent == "top level" ? "" : parent + ".")\(key.stringValue): missing"
        case .dataCorrupted(let context):
            if let number = unrepresentableNumber(error) {
                return "\(path(context)): the number \(number) cannot be represented"
            }
            if let underlying = context.underlyingError as NSError?,
               let detail = underlying.userInfo[NSDebugDescriptionErrorKey] as? String {
                return "\(path(context)): \(detail)"
            }
            return "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Decimal.Type, is Double.Type, is Int.Type: return "a number"
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is [Any].Type: return "an array"
        case is [String: Any].Type: return "an object"
        default: return String(describing: type)
        }
    }
}

/// Foundation throws a number it cannot represent (1e400 for an `Int`) without a coding path, and
/// at the top its decoder then calls valid JSON "not valid JSON". This wrapper names the number.
private struct NamingNumbers<T: Decodable>: Decodable {
    let value: T

    init(from decoder: Decoder) throws {
        do {
            value = try decoder.singleValueContainer().decode(T.self)
        } catch let error as DecodingError {
            throw error
        } catch {
            let reason = PayloadDecoder.unrepresentableNumber(error).map { "the number \($0) cannot be represented" }
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: reason ?? String(describing: error),
                                                    underlyingError: error))
        }
    }
}

extension CodingUserInfoKey {
    static let accountCurrency = CodingUserInfoKey(rawValue: "qapital.accountCurrency")!
}

extension Decoder {
    var accountCurrency: Currency { userInfo[.accountCurrency] as? Currency ?? .usd }
}

extension KeyedDecodingContainer {
    /// A JSON number (integer or not) as money of `currency`.
    func money(_ key: Key, currency: Currency) throws -> Money {
        guard let money = try moneyIfPresent(key, currency: currency) else {
            // Missing or null: let the decoder say which.
            _ = try decode(Decimal.self, forKey: key)
            throw DecodingError.valueNotFound(Decimal.self, .init(codingPath: codingPath + [key], debugDescription: "null"))
        }
        return money
    }

    func moneyIfPresent(_ key: Key, currency: Currency) throws -> Money? {
        let decimal: Decimal?
        do {
            decimal = try decodeIfPresent(Decimal.self, forKey: key)
        } catch let error as DecodingError {
            throw error
        } catch {
            // Valid JSON that no Decimal holds (1e308, 1e-300): not an amount this app can show.
            let number = PayloadDecoder.unrepresentableNumber(error) ?? "a number"
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "the amount \(number) cannot be represented")
        }
        guard let decimal else { return nil }
        guard let money = Money(decimal: decimal, currency: currency) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "amount out of range")
        }
        return money
    }

    /// Untrusted text, sanitized on its way into the model.
    func cleanString(_ key: Key) throws -> String {
        TextSanitizer.clean(try decode(String.self, forKey: key))
    }

    /// A URL that is missing, null, empty or unparseable reads as no URL.
    func urlIfPresent(_ key: Key) -> URL? {
        guard let text = try? decodeIfPresent(String.self, forKey: key), !text.isEmpty else { return nil }
        return URL(string: text)
    }
}
