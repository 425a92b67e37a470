import FeedModel
import Foundation
import HTTPTransport

extension ConsentSignIn {
    /// `login NAME` for a source that signs in with the customer's own OAuth client (Monzo):
    /// the client's id and secret from the config file's `[NAME]` table, a loopback redirect
    /// (`http://127.0.0.1:PORT/callback`, `--port`, 0: any free port) listened on, the sign-in
    /// started, the browser's return read with its `state`, the code exchanged, and the token
    /// pair kept 0600 in `oauth-tokens.json` for the API's origin, under the refreshes' lock.
    /// `logout NAME` removes the pair. The same steps the app's `L` runs.
    public static func oauth(_ support: OAuthSupport, source: SourceDescription) -> ConsentSignIn {
        var signIn = ConsentSignIn(run: { request throws(APIError) in
            try await OAuthSignIn(support: support, source: source).run(request)
        }, end: { request throws(APIError) in
            try OAuthSignIn(support: support, source: source).end(request)
        })
        signIn.replacesTokenForm = false
        signIn.keptToken = { request in
            OAuthTokenPairs(fileURL: OAuthTokenPairs.defaultFile(environment: request.environment)).pair(for: request.apiURL)?.accessToken
        }
        return signIn
    }
}

/// The steps of an OAuth sign-in (`ConsentSignIn.oauth`).
struct OAuthSignIn: Sendable {
    let support: OAuthSupport
    let source: SourceDescription

    func run(_ request: ConsentSignInRequest) async throws(APIError) {
        let name = source.name
        guard let flow = support.flow(apiURL: request.apiURL, settings: request.settings, allowInsecureHTTP: request.allowInsecureHTTP,
                                      log: request.log) else {
            throw APIError(kind: .rejected, request: "config", message: "login \(name) needs client-id and client-secret in the config "
                           + "file's [\(name)] table (make a client in the bank's developer tools, redirect URL http://127.0.0.1:PORT/callback)")
        }
        do {
            try HTTPTransport.checkTokenTransport(baseURL: request.apiURL, allowInsecureHTTP: request.allowInsecureHTTP)
        } catch {
            throw APIError(kind: .rejected, request: "config", message: "--api-url: \(error.message)")
        }
        // The redirect URL's port: --port, else the table's `port`, else any free one (a look-alike takes any).
        let port = request.options["port"] ?? request.settings["port"] ?? "0"
        guard let number = UInt16(port) else {
            throw APIError(kind: .rejected, request: "config", message: "the port must be between 0 and 65535, not \"\(TextSanitizer.clean(String(port.prefix(12))))\"")
        }
        if number == 0 && request.paste {
            throw APIError(kind: .rejected, request: "config", message: "login \(name) --paste needs --port (or port in the config file's [\(name)] "
                           + "table): the port of the redirect URL your client names")
        }
        let state = SignInRedirect.newState()
        let given = try await RedirectSignIn.run(request, redirect: "http://127.0.0.1:\(number)/callback", state: state,
                                                 bank: source.title) { redirect throws(APIError) in
            try await flow.authorizationURL(redirectURI: redirect, state: state)
        }
        let pair = try await flow.exchange(code: given.code, redirectURI: given.redirect)
        let pairs = OAuthTokenPairs(fileURL: OAuthTokenPairs.defaultFile(environment: request.environment))
        do {
            try await pairs.keepLocked(pair, for: request.apiURL)
        } catch {
            throw APIError(kind: .rejected, request: "keep", message: "signed in, but the token pair could not be kept: \(error.message)")
        }
        request.say("Signed in. The token pair is kept in \(TextSanitizer.clean(pairs.fileURL.path)) (only you can read it).")
        let elsewhere = PrivateFile.origin(of: request.apiURL) == source.baseURL.map(PrivateFile.origin(of:))
            ? "" : " --api-url " + TextSanitizer.clean(request.apiURL.absoluteString)
        if !request.pasteWhileListening {
            request.say("Approve this sign-in in the \(source.title) app, then run: qapital-tui --source \(name)\(elsewhere)")
        }
    }

    func end(_ request: ConsentSignInRequest) throws(APIError) {
        let pairs = OAuthTokenPairs(fileURL: OAuthTokenPairs.defaultFile(environment: request.environment))
        let origin = TextSanitizer.clean(PrivateFile.origin(of: request.apiURL))
        guard pairs.pair(for: request.apiURL) != nil else {
            request.say("no \(source.title) token pair is kept for \(origin): nothing to sign out of")
            return
        }
        do {
            try pairs.forget(request.apiURL)
        } catch {
            throw APIError(kind: .rejected, request: "logout", message: error.message)
        }
        request.say("signed out of \(source.title) at \(origin): its token pair is removed (revoke the client's access in the bank's app)")
    }
}
