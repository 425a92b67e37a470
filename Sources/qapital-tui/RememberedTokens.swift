import FeedModel
import Foundation
import SourceKit

/// Tokens kept between runs, only when the user asks ("remember" on the sign-in screen): one
/// JSON file, mode 0600, in a 0700 directory under `$XDG_CONFIG_HOME/qapital-tui/` (default
/// `~/.config/qapital-tui/`). Each token is kept for its source and origin (scheme, host and
/// port) and only ever read back for both, so a production token never goes to a test server,
/// and one bank's token never goes to another bank's server on the same port (issue 50.2); a
/// refusal by one source forgets only that source's token.
///
/// Files of earlier versions keyed a token by its origin alone: such a token is still read, but
/// only for the source whose own API lives at that origin (Starling's for api.starlingbank.com),
/// never for a look-alike on this machine, where any source may listen.
struct RememberedTokens {
    let fileURL: URL

    /// `$XDG_CONFIG_HOME/qapital-tui/starling-tokens.json`, else `~/.config/qapital-tui/…`.
    static func defaultFile(environment: [String: String]) -> URL {
        ConfigFolder.url(environment: environment).appendingPathComponent("starling-tokens.json")
    }

    /// `https://api.starlingbank.com:443`: what a token is kept for.
    static func origin(of url: URL) -> String { PrivateFile.origin(of: url) }

    /// `starling https://api.starlingbank.com:443`: the key a token is kept under.
    static func key(_ source: SourceDescription, _ baseURL: URL) -> String { "\(source.name) \(origin(of: baseURL))" }

    /// The key an earlier version kept `source`'s token under, when `baseURL` is the source's own
    /// API (its production or sandbox origin); nil elsewhere.
    static func legacyKey(_ source: SourceDescription, _ baseURL: URL) -> String? {
        let own = [source.baseURL, source.sandboxURL].compactMap { $0.map(origin(of:)) }
        let here = origin(of: baseURL)
        return own.contains(here) ? here : nil
    }

    /// The token kept for `source` at `baseURL`'s origin; nil when there is none, or the file is
    /// not the user's own with mode 0600 (then it is not trusted, and not read).
    func token(for source: SourceDescription, at baseURL: URL) -> String? {
        guard let tokens = read() else { return nil }
        let kept = tokens[RememberedTokens.key(source, baseURL)] ?? RememberedTokens.legacyKey(source, baseURL).flatMap { tokens[$0] }
        return kept.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Keeps `token` for `source` at `baseURL`'s origin (replacing the one kept before). Throws
    /// a one-line message that never quotes the token.
    func remember(_ token: String, for source: SourceDescription, at baseURL: URL) throws(Failure) {
        var tokens = read() ?? [:]
        tokens[RememberedTokens.key(source, baseURL)] = token
        if let legacy = RememberedTokens.legacyKey(source, baseURL) { tokens.removeValue(forKey: legacy) }
        try write(tokens)
    }

    /// Drops the token kept for `source` at `baseURL`'s origin (a refused one); no other source's.
    func forget(_ source: SourceDescription, at baseURL: URL) throws(Failure) {
        guard var tokens = read() else { return }
        let keys = [RememberedTokens.key(source, baseURL)] + [RememberedTokens.legacyKey(source, baseURL)].compactMap { $0 }
        guard keys.contains(where: { tokens[$0] != nil }) else { return }
        for key in keys { tokens.removeValue(forKey: key) }
        try write(tokens)
    }

    typealias Failure = PrivateFile.Failure

    private func read() -> [String: String]? {
        guard let data = PrivateFile.read(fileURL) else { return nil }
        return try? JSONDecoder().decode([String: String].self, from: data)
    }

    private func write(_ tokens: [String: String]) throws(Failure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(tokens) else { throw Failure(message: "cannot write the token file") }
        try PrivateFile.write(data, to: fileURL)
    }
}
