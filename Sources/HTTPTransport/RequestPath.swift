import Foundation

/// A request's path and its label: the path carries ids percent-encoded, the label shows each as
/// "…" (short, and no ids in messages or the log's labels). Every bank client builds its paths so.
public struct RequestPath: Sendable {
    public var text: String
    public var shown: String

    public init(_ text: String) {
        self.text = text
        self.shown = text
    }

    /// `more`, shown as it is.
    public func then(_ more: String) -> RequestPath {
        var copy = self
        copy.text += more
        copy.shown += more
        return copy
    }

    /// An id (from the server, so hostile): percent-encoded in the path, "…" in the label.
    public func id(_ value: String) -> RequestPath {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        var copy = self
        copy.text += value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        copy.shown += "…"
        return copy
    }

    /// "GET /accounts/…/balance".
    public func label(_ method: String) -> String { "\(method) \(shown)" }
}
