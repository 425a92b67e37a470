import QapitalClient
import DemoData
import ArgumentParser
import FeedCache
import FeedModel
import HTTPTransport
import QapitalApp
import Foundation
import SourceKit
import TermUI
#if canImport(Glibc)
import Glibc
#endif

/// How the app starts on a bank, whichever it is (the bank's own part is its registry entry in
/// `Banks/NAME/Source`): the token given, kept from `login` or remembered, checked with the bank;
/// the account of the last run when the bank cannot be reached; else the sign-in screen.
extension AppOptions {
    /// A bank account, checked and ready: the API and, for the header, the account.
    struct BankConnection: Sendable {
        let api: any BankAPI
        let account: Account?
        /// Started from the account kept by the last run: the bank could not be reached.
        var offline = false
        var lastHeader: String?

        /// What the status bar shows: holder, numbers, balance; else the server.
        var header: String { account?.summary ?? lastHeader ?? api.sourceName }
    }

    /// Checks the token with the bank and picks the account; a refusal or a server that cannot
    /// be reached is an `APIError` in one line (the token itself never in it). `cacheDirectory`:
    /// the run's cache folder for a source that keeps its own answers (`.some(nil)`: `--no-cache`;
    /// nil: not said, the source reads the default).
    static func connect(_ bank: BankConnector, baseURL: URL, token: String, allowInsecureHTTP: Bool = false, log: RequestLog? = nil,
                        settings: [String: String] = [:], refresh: (@Sendable (String?) async -> String?)? = nil,
                        headless: Bool = false, force: Bool = false, cacheDirectory: URL?? = nil)
        async throws(APIError) -> BankConnection {
        var request = BankRequest(baseURL: baseURL, token: token, allowInsecureHTTP: allowInsecureHTTP, log: log, settings: settings,
                                  refresh: refresh)
        request.headless = headless
        request.force = force
        if let cacheDirectory {
            request.cacheDirectory = cacheDirectory
            request.cacheDirectoryGiven = true
        }
        let api = try await bank.connect(request)
        // The header: holder, numbers, balance. Without it the app still works.
        let account = try? await api.account()
        if let account { api.answerNextAsk(with: account) }  // the app's first look: one request per resource a start
        return BankConnection(api: api, account: account)
    }

    /// Signing in again while the app runs: the bank refused the token in use; a new one for the
    /// same account replaces it (and is remembered when asked).
    static func signInCapability(_ api: any BankAPI, source: SourceDescription,
                                 environment: [String: String]) -> AppCore.SignInCapability {
        let baseURL = api.baseURL
        let remembered = RememberedTokens(fileURL: RememberedTokens.defaultFile(environment: environment))
        var capability = AppCore.SignInCapability(origin: api.sourceName, isRefused: { api.tokenRefused }) { token, remember in
            do throws(APIError) {
                try await api.replaceToken(token)
            } catch {
                return SignInRefusal(error.message)
            }
            if remember { try? remembered.remember(token, for: source, at: baseURL) }
            return nil
        }
        capability.title = source.title
        capability.tokenCheck = source.tokenCheck ?? capability.tokenCheck
        capability.tokenLabel = source.tokenLabel
        capability.awaitsApproval = { api.awaitsApproval }
        return capability
    }

    /// How the app opens on a bank: on the account a token given or remembered reaches, or
    /// through the sign-in screen (no token, or a refused one: with its refusal).
    enum BankStart {
        case connected(BankConnection)
        /// `pending`: a token the customer has yet to approve in the bank's app, for the form to try again.
        case signIn(refusal: String?, pending: String? = nil)
    }

    /// Where a bank's credential comes from, in order, for the app and the commands alike: a
    /// token given (`--token`, the source's environment variables); else the OAuth pair `login
    /// NAME` kept, with the flow that refreshes it when the config names the client; else a token
    /// the app remembered for this source at this origin; else one the bank keeps itself.
    enum BankCredential {
        case given(String)
        case pair(OAuthTokenPairs.Pair, flow: (any OAuthFlow)?, pairs: OAuthTokenPairs)
        case remembered(String, RememberedTokens)
        case kept(String)
        case none

        var token: String? {
            switch self {
            case .given(let token), .remembered(let token, _), .kept(let token): token
            case .pair, .none: nil
            }
        }
    }

    func bankCredential(_ bank: BankConnector, source: SourceDescription, baseURL: URL, environment: [String: String],
                        settings: [String: String], log: RequestLog?) -> BankCredential {
        if let given = resolvedToken(environment, for: source) { return .given(given) }
        let pairs = OAuthTokenPairs(fileURL: OAuthTokenPairs.defaultFile(environment: environment))
        if let support = bank.oauth, let pair = pairs.pair(for: baseURL) {
            let flow = support.flow(apiURL: baseURL, settings: settings, allowInsecureHTTP: allowInsecureHTTP, log: log)
            return .pair(pair, flow: flow, pairs: pairs)
        }
        let remembered = RememberedTokens(fileURL: RememberedTokens.defaultFile(environment: environment))
        if let token = remembered.token(for: source, at: baseURL) { return .remembered(token, remembered) }
        if let token = bank.keptToken?(environment) { return .kept(token) }
        return .none
    }

    /// The token from the flags, the environment or the remembered file, checked with the bank;
    /// without one, or when the bank refuses it, the sign-in screen asks for one.
    /// After a token given on the command line or in the environment comes the pair `login NAME`
    /// kept (refreshed first when it is about to expire, or once when the bank refuses it; the
    /// client's id and secret from `sourceSettings`, the config file's table), then a remembered token.
    func startBank(_ source: Source, environment: [String: String], log: RequestLog? = nil,
                   sourceSettings: [String: String] = [:]) async throws -> BankStart {
        guard let bank = source.registered.bank, let baseURL = source.baseURL else { throw ValidationError("not a bank") }
        let credential = bankCredential(bank, source: source.description, baseURL: baseURL, environment: environment,
                                        settings: sourceSettings, log: log)
        if case .pair(let pair, let flow, let pairs) = credential {
            do {
                return try await startFromPair(pair, bank: bank, flow: flow, pairs: pairs, baseURL: baseURL, log: log,
                                               settings: sourceSettings)
            } catch let error as APIError {
                if error.isConnectivity, let offline = offlineStart(bank, baseURL: baseURL, token: pair.accessToken,
                                                                     environment: environment, log: log, settings: sourceSettings) {
                    return offline
                }
                throw ValidationError(error.message)
            }
        }
        guard let token = credential.token else { return .signIn(refusal: nil) }
        do {
            return .connected(try await AppOptions.connect(bank, baseURL: baseURL, token: token, allowInsecureHTTP: allowInsecureHTTP, log: log,
                                                           settings: sourceSettings,
                                                           cacheDirectory: .some(cacheDirectoryURL(environment: environment))))
        } catch where error.kind == .unauthorized {
            if error.awaitsApproval { return .signIn(refusal: error.message, pending: token) }
            // A remembered token that is refused now is dropped.
            if case .remembered(_, let remembered) = credential { try? remembered.forget(source.description, at: baseURL) }
            // Never signed in is no error: the sign-in screen says what to do.
            return .signIn(refusal: error.request == APIError.notSignedInYet ? nil : error.message)
        } catch {
            // Unreachable: the account of the last run, and its cache, if there are both.
            if error.isConnectivity, let offline = offlineStart(bank, baseURL: baseURL, token: token, environment: environment, log: log,
                                                                     settings: sourceSettings) {
                return offline
            }
            throw ValidationError(error.message)
        }
    }

    /// The account the last run opened on `baseURL`, for starting while the bank cannot be
    /// reached (the token cannot be checked then; requests will check it once it can).
    func offlineStart(_ bank: BankConnector, baseURL: URL, token: String, environment: [String: String],
                      log: RequestLog?, settings: [String: String] = [:]) -> BankStart? {
        guard let directory = cacheDirectoryURL(environment: environment),
              let kept = bank.offline?(BankRequest(baseURL: baseURL, token: token, allowInsecureHTTP: allowInsecureHTTP, log: log,
                                                   settings: settings),
                                       directory) else { return nil }
        return .connected(BankConnection(api: kept.api, account: nil, offline: true, lastHeader: kept.header))
    }

    /// Opens the bank with a kept OAuth pair: refreshed before it expires, or once on a refusal;
    /// each new pair written over the old one at once (a refresh makes the old one useless). A
    /// refresh the bank refuses ends that sign-in: the pair is dropped and the sign-in form shown.
    /// Any other failure is thrown as the `APIError` it is.
    func startFromPair(_ kept: OAuthTokenPairs.Pair, bank: BankConnector, flow: (any OAuthFlow)?, pairs: OAuthTokenPairs,
                       baseURL: URL, log: RequestLog?, settings: [String: String] = [:], now: Date = Date()) async throws -> BankStart {
        let refresher = flow.map { PairRefresher(pair: kept, flow: $0, pairs: pairs, baseURL: baseURL) }
        func ended(_ error: APIError) -> BankStart {
            .signIn(refusal: "The sign-in has ended (\(error.message)): run qapital-tui login again, or paste a token.")
        }
        if kept.needsRefresh(now: now), let refresher, case .failure(let error) = await refresher.refreshNow(), !error.isConnectivity {
            return ended(error)
        }
        let token = await refresher?.pair.accessToken ?? kept.accessToken
        var refresh: (@Sendable (String?) async -> String?)?
        if let refresher {
            refresh = { @Sendable (refused: String?) async -> String? in await refresher.fresh(after: refused) }
        }
        switch await connecting(bank, baseURL: baseURL, token: token, log: log, settings: settings, refresh: refresh) {
        case .success(let connection):
            return .connected(connection)
        case .failure(let error):
            guard error.kind == .unauthorized else { throw error }
            let current = await refresher?.pair.accessToken ?? token
            if error.awaitsApproval { return .signIn(refusal: error.message, pending: current) }
            if let refusal = await refresher?.refusal { return ended(refusal) }
            return .signIn(refusal: error.message)
        }
    }

    private func connecting(_ bank: BankConnector, baseURL: URL, token: String, log: RequestLog?, settings: [String: String],
                            refresh: (@Sendable (String?) async -> String?)?) async -> Result<BankConnection, APIError> {
        do throws(APIError) {
            return .success(try await AppOptions.connect(bank, baseURL: baseURL, token: token, allowInsecureHTTP: allowInsecureHTTP,
                                                         log: log, settings: settings, refresh: refresh))
        } catch {
            return .failure(error)
        }
    }

    /// The sign-in screen, the first screen of the app's loop: a token the bank accepts opens the
    /// app on its account (and is kept when asked).
    @MainActor
    func bankSignIn(_ source: Source, refusal: String?, pending: String? = nil, settings: Settings, environment: [String: String])
        -> SignInScreen<BankConnection>? {
        guard let bank = source.registered.bank, let baseURL = source.baseURL else { return nil }
        let origin = baseURL.host.map { host in baseURL.port.map { "\(host):\($0)" } ?? host } ?? baseURL.absoluteString
        let remembered = RememberedTokens(fileURL: RememberedTokens.defaultFile(environment: environment))
        let (allowInsecureHTTP, log, sourceSettings) = (self.allowInsecureHTTP, settings.log, settings.sourceSettings)
        let cacheDirectory = cacheDirectoryURL(environment: environment)
        let description = source.description
        let form = SignInForm(origin: origin, refusal: refusal, title: description.title,
                              tokenCheck: description.tokenCheck ?? "a request to the bank", tokenLabel: description.tokenLabel, token: pending)
        return SignInScreen(form: form, check: { token in
            do throws(APIError) {
                return .success(try await AppOptions.connect(bank, baseURL: baseURL, token: token, allowInsecureHTTP: allowInsecureHTTP, log: log,
                                                             settings: sourceSettings, cacheDirectory: .some(cacheDirectory)))
            } catch {
                return .failure(SignInRefusal(error.message))
            }
        }, open: { accepted in
            let core = openBank(accepted.value, source: source, settings: settings, environment: environment, events: accepted.events)
            if accepted.remember {
                do throws(RememberedTokens.Failure) {
                    try remembered.remember(accepted.token, for: description, at: baseURL)
                } catch {
                    core.showNotice("The token was not remembered: \(error.message)")
                }
            }
            return core
        })
    }

    /// The app on a checked bank account: its header, its cache, signing in again.
    @MainActor
    func openBank(_ connected: BankConnection, source: Source, settings: Settings, environment: [String: String],
                  events: EventQueue = EventQueue()) -> AppCore {
        var settings = settings
        settings.skippedRecords = connected.api.skippedRecords
        settings.currency = connected.api.accountCurrency
        if !connected.offline, let directory = cacheDirectoryURL(environment: environment) {
            source.registered.bank?.keep?(connected.api, connected.header, directory)
        }
        let api = connected.api
        var consent: ConsentSignInCapability?
        if let steps = source.registered.bank?.consentSignIn, let baseURL = source.baseURL {
            let request = consentRequest(baseURL: baseURL, settings: settings, environment: environment)
            let title = source.description.title
            consent = ConsentSignInCapability(title: source.description.title, browse: AppOptions.browser(settings)) { channel in
                do throws(APIError) {
                    let asked = request(channel)
                    try await steps.run(asked)
                    // The token the sign-in kept (an OAuth pair's), or "": the source takes up
                    // the session it just recorded (no token replaces a consent).
                    let token = steps.keptToken?(asked) ?? ""
                    while true {
                        do throws(APIError) {
                            try await api.replaceToken(token)
                            return nil
                        } catch where error.awaitsApproval {
                            // A new token works once approved in the bank's app: the user says when.
                            channel.note(error.message)
                            channel.say("Approve this sign-in in the \(title) app, then press Enter here.")
                            guard await channel.readLine() != nil else { return SignInRefusal("Cancelled before the sign-in was approved.") }
                        }
                    }
                } catch {
                    return SignInRefusal(error.message)
                }
            }
            if !steps.replacesTokenForm {
                consent?.words = .oauth(source.description.title, section: source.description.name)
                consent?.replacesTokenForm = false
            }
        }
        return openApp(settings, api: api, sourceName: connected.header, partition: api.accountId,
                       signIn: AppOptions.signInCapability(api, source: source.description, environment: environment),
                       consentSignIn: consent, sourceNote: { api.statusNote }, environment: environment, events: events)
    }

    /// Opens an address in a browser, unless `--no-browser`.
    static func browser(_ settings: Settings) -> @Sendable (URL) -> Void {
        if settings.noBrowser { return { _ in } }
        return { LoginCommand.openInBrowser($0) }
    }

    /// What the app's sign-in screen hands a source's consent steps: the same request `login
    /// NAME` makes, with the screen standing in for the terminal (it listens on the redirect and
    /// takes a pasted address as well).
    func consentRequest(baseURL: URL, settings: Settings, environment: [String: String])
        -> @Sendable (ConsentSignInChannel) -> ConsentSignInRequest {
        let (table, allowInsecureHTTP, log) = (settings.sourceSettings, self.allowInsecureHTTP, settings.log)
        let cacheDirectory = cacheDirectoryURL(environment: environment)
        return { channel in
            var request = ConsentSignInRequest(apiURL: baseURL, settings: table, environment: environment, allowInsecureHTTP: allowInsecureHTTP,
                                               options: [:], paste: false, timeout: 600, open: { channel.open($0) },
                                               say: { channel.say($0) }, note: { channel.note($0) }, readLine: { await channel.readLine() },
                                               log: log)
            request.pasteWhileListening = true
            request.cacheDirectory = .some(cacheDirectory)
            return request
        }
    }

    /// The sign-in before the app for a source that signs in through a consent at the bank:
    /// Enter runs its steps (as `login NAME`), then the bank is opened on the session recorded.
    @MainActor
    func consentSignIn(_ source: Source, refusal: String?, settings: Settings, environment: [String: String])
        -> ConsentSignInScreen<BankConnection>? {
        guard let bank = source.registered.bank, let steps = bank.consentSignIn, let baseURL = source.baseURL else { return nil }
        let request = consentRequest(baseURL: baseURL, settings: settings, environment: environment)
        let (allowInsecureHTTP, log, sourceSettings) = (self.allowInsecureHTTP, settings.log, settings.sourceSettings)
        let cacheDirectory = cacheDirectoryURL(environment: environment)
        let token = bank.keptToken?(environment) ?? ""
        return ConsentSignInScreen(title: source.description.title, refusal: refusal, browse: AppOptions.browser(settings), run: { channel in
            do throws(APIError) {
                try await steps.run(request(channel))
                return .success(try await AppOptions.connect(bank, baseURL: baseURL, token: token, allowInsecureHTTP: allowInsecureHTTP,
                                                             log: log, settings: sourceSettings, cacheDirectory: .some(cacheDirectory)))
            } catch {
                return .failure(SignInRefusal(error.message))
            }
        }, open: { connection, events in
            openBank(connection, source: source, settings: settings, environment: environment, events: events)
        })
    }
}
