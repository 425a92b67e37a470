import FeedModel
import Foundation

/// The browser's return from a bank's sign-in page (OAuth's and a consent's alike): a fresh
/// `state` for each sign-in, and the address the browser was sent back to read, its `state`
/// compared in constant time. Every sign-in (the loopback listener, a pasted address, `login
/// NAME`, the app's screen) reads a return here and nowhere else.
public enum SignInRedirect {
    /// 32 random bytes, base64url without padding: the `state` of one sign-in.
    public static func newState() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// What the browser was sent back with.
    public enum Return: Equatable, Sendable {
        case code(String)
        /// The bank's refusal (`error`, `error_description`), cleaned.
        case refused(String)
        /// Not from this sign-in (another `state`, none, or one given twice).
        case foreign
        /// Neither a code nor an error.
        case unreadable
    }

    /// Reads the address the browser was sent to, or its query alone (`?code=…&state=…`). A
    /// name given twice counts as not given: nothing is guessed.
    public static func read(_ text: String, state: String) -> Return {
        let values = queryValues(text)
        guard let given = values["state"], sameInConstantTime(given, state) else { return .foreign }
        if let error = values["error"] {
            let description = values["error_description"].map { ": " + $0 } ?? ""
            return .refused(TextSanitizer.clean(String((error + description).prefix(200))))
        }
        if let code = values["code"], !code.isEmpty, code.utf8.count <= 4_096 { return .code(code) }
        return .unreadable
    }

    /// The query's values, percent-decoded (`+` as a space); a name given twice is left out.
    public static func queryValues(_ text: String) -> [String: String] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let query: String
        if let components = URLComponents(string: trimmed), components.scheme != nil {
            query = components.percentEncodedQuery ?? ""
        } else {
            query = trimmed.hasPrefix("?") ? String(trimmed.dropFirst()) : trimmed
        }
        var values: [String: String] = [:]
        var twice = Set<String>()
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = String(parts[0]).removingPercentEncoding,
                  let value = (parts.count > 1 ? String(parts[1]) : "").replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            else { continue }
            if values[name] != nil { twice.insert(name) }
            values[name] = value
        }
        for name in twice { values[name] = nil }
        return values
    }

    /// Whether two texts are equal, in a time that depends on their lengths only.
    public static func sameInConstantTime(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            let x = index < left.count ? left[index] : 0
            let y = index < right.count ? right[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }

    /// `http` on 127.0.0.1, localhost or [::1]: a listener on this machine can take the return.
    public static func isLoopback(_ text: String) -> Bool {
        guard let url = URL(string: text), url.scheme?.lowercased() == "http", let host = url.host?.lowercased() else { return false }
        return ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
    }
}
