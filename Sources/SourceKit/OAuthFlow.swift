import FeedModel
import Foundation
import HTTPTransport

/// A source's OAuth flow for the customer's own client: what `login NAME` and a refresh need
/// from it.
public protocol OAuthFlow: Sendable {
    /// Where the customer signs in. May ask the server first (an aggregator makes a signed
    /// `POST /auth` for the chosen bank), so it may fail: nothing is opened then.
    func authorizationURL(redirectURI: String, state: String) async throws(APIError) -> URL
    func exchange(code: String, redirectURI: String) async throws(APIError) -> OAuthTokenPair
    func refresh(_ refreshToken: String) async throws(APIError) -> OAuthTokenPair
}

/// How a source makes its OAuth flow from the config file's `client-id` and `client-secret`.
public struct OAuthSupport: Sendable {
    public let make: @Sendable (_ apiURL: URL, _ clientId: String, _ clientSecret: String, _ allowInsecureHTTP: Bool,
                                _ log: RequestLog?) -> any OAuthFlow

    public init(make: @escaping @Sendable (URL, String, String, Bool, RequestLog?) -> any OAuthFlow) {
        self.make = make
    }

    /// The flow for the config file's `[NAME]` table, the one place its `client-id` and
    /// `client-secret` are read (the sign-in, and the refresh at every start); nil without both.
    public func flow(apiURL: URL, settings: [String: String], allowInsecureHTTP: Bool, log: RequestLog?) -> (any OAuthFlow)? {
        guard let clientId = settings["client-id"], !clientId.isEmpty,
              let secret = settings["client-secret"], !secret.isEmpty else { return nil }
        return make(apiURL, clientId, secret, allowInsecureHTTP, log)
    }
}

/// An access token and the refresh token that renews it, as `login NAME` keeps them.
public struct OAuthTokenPair: Codable, Equatable, Sendable {
    public var accessToken: String
    public var refreshToken: String?
    /// When the access token stops working (nil: not said).
    public var expiresAt: Date?

    public init(accessToken: String, refreshToken: String?, expiresAt: Date?) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    /// The same tokens (the file keeps times to the second, so a pair read back is not `==`).
    public func sameTokens(as other: OAuthTokenPair) -> Bool {
        accessToken == other.accessToken && refreshToken == other.refreshToken
    }

    /// Whether it should be refreshed before use: expired, or within `margin` of it.
    public func needsRefresh(now: Date, margin: TimeInterval = 300) -> Bool {
        guard let expiresAt else { return false }
        return now.addingTimeInterval(margin) >= expiresAt
    }
}

/// A sign-in a source runs through its own steps (a consent given at the bank in a browser, a
/// redirect back, a session recorded), for `login NAME`: the source reads its own table of the
/// config file and the command's options, says what it does, and throws what stops it.
public struct ConsentSignIn: Sendable {
    public let run: @Sendable (ConsentSignInRequest) async throws(APIError) -> Void
    /// `logout NAME`: the consent closed at the bank, and what the source kept of it removed.
    public let end: @Sendable (ConsentSignInRequest) async throws(APIError) -> Void
    /// Whether the app opens on this sign-in when it has no credential (a source that takes no
    /// token); false: the token form comes first, and `L` offers this sign-in (Monzo's OAuth).
    public var replacesTokenForm = true
    /// Where `run` keeps the access token it got, for the app to take it up at once (nil: the
    /// source's own record, which its API takes up by itself).
    public var keptToken: (@Sendable (ConsentSignInRequest) -> String?)?

    public init(run: @escaping @Sendable (ConsentSignInRequest) async throws(APIError) -> Void,
                end: @escaping @Sendable (ConsentSignInRequest) async throws(APIError) -> Void) {
        self.run = run
        self.end = end
    }
}

/// What `login NAME` gives a source's own sign-in.
public struct ConsentSignInRequest: Sendable {
    /// The API (its own, or `--api-url`).
    public var apiURL: URL
    /// The config file's `[NAME]` table.
    public var settings: [String: String]
    public var environment: [String: String]
    public var allowInsecureHTTP: Bool
    /// The command's options by their long names (`aspsp`, `country`, `psu-type`, `redirect-url`,
    /// `days`), only those given: they win over the table.
    public var options: [String: String]
    /// `--paste`: the address the browser was sent to is read from standard input.
    public var paste: Bool
    /// The app's sign-in screen: the loopback redirect is listened on and a pasted address
    /// (`readLine`) taken as well, whichever comes first.
    public var pasteWhileListening = false
    /// Seconds to wait for the browser to come back.
    public var timeout: TimeInterval
    /// Opens an address in a browser (nothing with `--no-browser`).
    public var open: @Sendable (URL) -> Void
    /// A line on standard output (flushed): what the user must act on.
    public var say: @Sendable (String) -> Void
    /// A line on standard error: what happens.
    public var note: @Sendable (String) -> Void
    /// The next line of standard input (nil at its end); it waits for the user.
    public var readLine: @Sendable () async -> String?
    public var log: RequestLog?
    /// The run's cache folder when the caller says it (`--cache-dir`; nil inside: `--no-cache`);
    /// nil: the source reads the default itself.
    public var cacheDirectory: URL??

    public init(apiURL: URL, settings: [String: String], environment: [String: String], allowInsecureHTTP: Bool, options: [String: String],
                paste: Bool, timeout: TimeInterval, open: @escaping @Sendable (URL) -> Void, say: @escaping @Sendable (String) -> Void,
                note: @escaping @Sendable (String) -> Void, readLine: @escaping @Sendable () async -> String?, log: RequestLog? = nil) {
        self.apiURL = apiURL
        self.settings = settings
        self.environment = environment
        self.allowInsecureHTTP = allowInsecureHTTP
        self.options = options
        self.paste = paste
        self.timeout = timeout
        self.open = open
        self.say = say
        self.note = note
        self.readLine = readLine
        self.log = log
    }
}
