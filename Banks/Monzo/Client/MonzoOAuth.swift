import FeedModel
import Foundation
import HTTPTransport

/// Monzo's OAuth 2.0 for the customer's own confidential client (client id and secret from
/// Monzo's developer tools): the authorisation URL, the code exchanged for a token pair, and the
/// pair refreshed (which invalidates the old one). Neither secret nor token is ever put in a
/// message: failures name the request and the server's code only.
public struct MonzoOAuth: Sendable {
    public let clientId: String
    public let clientSecret: String
    /// Where `POST /oauth2/token` goes (the API's base URL).
    public let apiURL: URL
    /// Where the customer signs in: `https://auth.monzo.com/`, or `serve --api monzo`'s `/auth/`.
    public let authURL: URL
    private let transport: HTTPTransport

    public init(clientId: String, clientSecret: String, apiURL: URL, authURL: URL? = nil, timeout: TimeInterval = 10,
                allowInsecureHTTP: Bool = false, log: RequestLog? = nil) {
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.apiURL = apiURL
        self.authURL = authURL ?? MonzoOAuth.authURL(for: apiURL)
        transport = HTTPTransport(baseURL: apiURL, token: nil, timeout: timeout, allowInsecureHTTP: allowInsecureHTTP,
                                  serverMessage: Monzo.serverMessage, log: log)
    }

    /// Monzo's own sign-in page for its API; any other server (`serve --api monzo`) serves it at `/auth/`.
    public static func authURL(for apiURL: URL) -> URL {
        if apiURL.host?.lowercased() == MonzoAPI.productionURL.host { return URL(string: "https://auth.monzo.com/")! }
        var text = apiURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + "/auth/")!
    }

    /// `https://auth.monzo.com/?client_id=…&redirect_uri=…&response_type=code&state=…`
    public func authorizationURL(redirectURI: String, state: String) -> URL {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        func encode(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }
        let query = "client_id=\(encode(clientId))&redirect_uri=\(encode(redirectURI))&response_type=code&state=\(encode(state))"
        return URL(string: authURL.absoluteString + "?" + query)!
    }

    /// The pair for an authorisation code.
    public func exchange(code: String, redirectURI: String) async throws(APIError) -> Monzo.TokenPair {
        try await token([("grant_type", "authorization_code"), ("client_id", clientId), ("client_secret", clientSecret),
                         ("redirect_uri", redirectURI), ("code", code)])
    }

    /// A new pair for the refresh token; the old pair is refused from then on.
    public func refresh(_ refreshToken: String) async throws(APIError) -> Monzo.TokenPair {
        try await token([("grant_type", "refresh_token"), ("client_id", clientId), ("client_secret", clientSecret),
                         ("refresh_token", refreshToken)])
    }

    private func token(_ fields: [(String, String)]) async throws(APIError) -> Monzo.TokenPair {
        let label = "POST /oauth2/token"
        let data = try await transport.send("POST", "/oauth2/token", body: HTTPTransport.formBody(fields),
                                            contentType: HTTPTransport.formType, label: label)
        let pair: Monzo.TokenPair
        do {
            pair = try PayloadDecoder().decode(Monzo.TokenPair.self, from: data, resource: label)
        } catch {
            throw APIError(kind: .malformed, request: label, message: error.description)
        }
        guard !pair.accessToken.isEmpty, pair.accessToken.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw APIError(kind: .malformed, request: label, message: "\(label): the answer has no usable access token")
        }
        return pair
    }
}
