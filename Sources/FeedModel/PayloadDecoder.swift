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
public struct PayloadDecoder: Sendable {
    /// The account's currency: goals, feed items and rules carry none in the API.
    public let accountCurrency: Currency

    public init(accountCurrency: Currency = .usd) {
        self.accountCurrency = accountCurrency
    }

    public func decode<T: Decodable>(_ type: T.Type, from data: Data, resource: String) throws(MalformedPayload) -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(Timestamp.decode)
        decoder.userInfo[.accountCurrency] = accountCurrency
        do {
            return try decoder.decode(T.self, from: data)
        } catch let error as DecodingError {
            throw MalformedPayload(resource: resource, reason: PayloadDecoder.explain(error))
        } catch {
            throw MalformedPayload(resource: resource, reason: String(describing: error))
        }
    }

    static func explain(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            var text = ""
            for key in context.codingPath {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return text.isEmpty ? "top level" : text
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context)): expected \(describe(type)); \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "\(path(context)): expected \(describe(type)), found null"
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "\(parent == "top level" ? "" : parent + ".")\(key.stringValue): missing"
        case .dataCorrupted(let context):
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
        default: return String(describing: type)
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
        let decimal = try decode(Decimal.self, forKey: key)
        guard let money = Money(decimal: decimal, currency: currency) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "amount out of range")
        }
        return money
    }

    func moneyIfPresent(_ key: Key, currency: Currency) throws -> Money? {
        guard let decimal = try decodeIfPresent(Decimal.self, forKey: key) else { return nil }
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
