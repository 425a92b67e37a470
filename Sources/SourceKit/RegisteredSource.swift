import DemoData
import DemoServer
import FeedModel
import Foundation
import HTTPTransport

/// One source as the app knows it: its description, the schemes its pictures come from, how the
/// app opens it, and how `serve` speaks it. Each source declares its own in its own target (a
/// bank's in `Banks/NAME/Source`), and the executable's `SourceRegistry.all` lists them: the
/// command line, the config file, `serve`, `login`, the cache and the help read that list and
/// nothing else (docs/architecture.md, "Recipe: add a data source").
public struct RegisteredSource: Sendable {
    public let description: SourceDescription
    /// The URL schemes whose pictures the app fetches for this source.
    public let pictureSchemes: Set<String>
    public let open: Opening
    /// `serve --api NAME`; nil when the source is not served (the demo runs in process).
    public let serve: Serving?
    /// Lines for the main `--help`'s examples ("qapital-tui --source NAME --sandbox", what it does).
    public let examples: [Example]

    public init(description: SourceDescription, pictureSchemes: Set<String>, open: Opening, serve: Serving?,
                examples: [Example] = []) {
        self.description = description
        self.pictureSchemes = pictureSchemes
        self.open = open
        self.serve = serve
        self.examples = examples
    }

    public var name: String { description.name }

    public enum Opening: Sendable {
        /// Made from the settings at once, no token checked (the demo, the Qapital API): the API
        /// and where it notes the records it skipped.
        case direct(@Sendable (DirectRequest) -> (api: any SavingsAPI, skipped: SkippedRecords?))
        /// A bank: the token is checked and the account chosen before the app opens.
        case bank(BankConnector)
    }

    public var bank: BankConnector? {
        if case .bank(let connector) = open { return connector }
        return nil
    }

    /// One line of the help's examples: the arguments after `qapital-tui` and what they do.
    public struct Example: Sendable {
        public let arguments: String
        public let what: String

        public init(_ arguments: String, _ what: String) {
            self.arguments = arguments
            self.what = what
        }
    }
}

/// What a source made at once is made from.
public struct DirectRequest: Sendable {
    public var baseURL: URL?
    public var token: String?
    public var currency: Currency
    public var allowInsecureHTTP: Bool
    public var log: RequestLog?

    public init(baseURL: URL?, token: String?, currency: Currency, allowInsecureHTTP: Bool, log: RequestLog?) {
        self.baseURL = baseURL
        self.token = token
        self.currency = currency
        self.allowInsecureHTTP = allowInsecureHTTP
        self.log = log
    }
}

/// What a bank is opened with: where, the token, the run's request log, and the config file's
/// `[NAME]` table.
public struct BankRequest: Sendable {
    public var baseURL: URL
    public var token: String
    public var allowInsecureHTTP: Bool
    public var log: RequestLog?
    public var settings: [String: String] = [:]
    /// For a token from an OAuth pair: a fresh token when the bank refuses this one (401).
    public var refresh: (@Sendable (String?) async -> String?)?
    /// A headless command: nobody to ask, so a source's question (past its own request budget)
    /// is a refusal, unless `force` (`--force`) says yes beforehand.
    public var headless = false
    public var force = false
    /// The run's cache folder (`--cache-dir`, else the default; nil with `--no-cache`): where a
    /// source that keeps its own answers keeps them. Unset by callers that predate it: nil.
    public var cacheDirectory: URL?
    /// Whether the caller said where the cache is (false: a source reads the default itself).
    public var cacheDirectoryGiven = false

    public init(baseURL: URL, token: String, allowInsecureHTTP: Bool, log: RequestLog?, settings: [String: String] = [:],
                refresh: (@Sendable (String?) async -> String?)? = nil) {
        self.baseURL = baseURL
        self.token = token
        self.allowInsecureHTTP = allowInsecureHTTP
        self.log = log
        self.settings = settings
        self.refresh = refresh
    }
}

/// How a bank is opened.
public struct BankConnector: Sendable {
    /// Checks the token with the bank and picks the account; a refusal is `.unauthorized`.
    public let connect: @Sendable (BankRequest) async throws(APIError) -> any BankAPI
    /// The account the last run opened, for starting while the bank cannot be reached (nil: no
    /// offline start for this bank); `keep` writes what it needs after each connection.
    public var offline: (@Sendable (BankRequest, _ cacheDirectory: URL) -> (api: any BankAPI, header: String)?)?
    public var keep: (@Sendable (any BankAPI, _ header: String, _ cacheDirectory: URL) -> Void)?
    /// `login NAME` and refreshing its token pair (nil: tokens only).
    public var oauth: OAuthSupport?
    /// A credential the source keeps itself (SimpleFIN-style: what a one-time claim gave), used
    /// when none is given or remembered; read from the environment's config directory.
    public var keptToken: (@Sendable ([String: String]) -> String?)?
    /// `login NAME` through the source's own steps (a consent at the bank and a redirect back; nil: none).
    public var consentSignIn: ConsentSignIn?

    public init(connect: @escaping @Sendable (BankRequest) async throws(APIError) -> any BankAPI,
                offline: (@Sendable (BankRequest, URL) -> (api: any BankAPI, header: String)?)? = nil,
                keep: (@Sendable (any BankAPI, String, URL) -> Void)? = nil,
                oauth: OAuthSupport? = nil, keptToken: (@Sendable ([String: String]) -> String?)? = nil,
                consentSignIn: ConsentSignIn? = nil) {
        self.connect = connect
        self.offline = offline
        self.keep = keep
        self.oauth = oauth
        self.keptToken = keptToken
        self.consentSignIn = consentSignIn
    }
}

/// `serve --api NAME`: the demo dataset in the source's shapes.
public struct Serving: Sendable {
    /// The demo's currency unless `serve --currency` says otherwise.
    public let currency: Currency
    public let handler: @Sendable (DemoBackend, ServeFlags) -> any ServeHandler
    /// What `serve` prints once it listens at `baseURL` (a test token, how to try it).
    public let greeting: @Sendable (_ baseURL: String) -> [String]

    public init(currency: Currency, handler: @escaping @Sendable (DemoBackend, ServeFlags) -> any ServeHandler,
                greeting: @escaping @Sendable (String) -> [String]) {
        self.currency = currency
        self.handler = handler
        self.greeting = greeting
    }
}

/// The `serve` flags a source's look-alike may read; nil where the user gave none (the
/// look-alike's own default).
public struct ServeFlags: Sendable {
    /// `--history-minutes`: how long after a sign-in the whole history is served (a bank that
    /// limits history to 90 days after that; nil: the bank's own 5 minutes).
    public var historyMinutes: Double?
    /// `--sca-pending`: new tokens wait for the customer's approval in the app (strong customer
    /// authentication) until `POST /test/approve` is sent with them.
    public var scaPending = false
    /// `--sca-after`: after N requests a token's approval lapses once (the bank asking again mid-session).
    public var scaAfter: Int?
    /// `--page-size`: records a page at most, for an API that pages by links.
    public var pageSize: Int?
    /// `--rate-limit`: requests an hour before each answer is 429.
    public var rateLimit: Int?
    /// `--session-timeout`: seconds a session lasts, for an API whose sessions expire.
    public var sessionTimeout: Double?
    /// `--fault NAME` (repeatable): faults a look-alike knows by name (its greeting lists them).
    public var faults: Set<String> = []
    /// `--budget`: requests a day before a daily budget warns, then refuses.
    public var budget: Int?
    /// `--v1`: the protocol's older (version 1) shapes.
    public var versionOne = false
    /// `--public-key FILE` and `--application-id ID`: a look-alike that checks signed requests
    /// with the user's own public key (PEM) and application id instead of a pair it makes.
    public var publicKeyFile: String?
    public var applicationId: String?
    /// `--key-out PATH`: where a look-alike writes the private key it makes (0600).
    public var keyOut: String?
    /// `--auth-error CODE`: the look-alike's bank page sends the browser back with this `error`.
    public var authError: String?
    /// `--redirect-url URL` (repeatable): more redirect URLs a consent sign-in's look-alike
    /// registers for its application, besides those its greeting lists.
    public var redirectURLs: [String] = []

    public init(historyMinutes: Double? = nil, scaPending: Bool = false, scaAfter: Int? = nil, pageSize: Int? = nil,
                rateLimit: Int? = nil, sessionTimeout: Double? = nil, faults: Set<String> = []) {
        self.historyMinutes = historyMinutes
        self.scaPending = scaPending
        self.scaAfter = scaAfter
        self.pageSize = pageSize
        self.rateLimit = rateLimit
        self.sessionTimeout = sessionTimeout
        self.faults = faults
    }
}
