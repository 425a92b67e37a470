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
