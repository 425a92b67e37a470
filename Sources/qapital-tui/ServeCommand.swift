import DemoServer
import DemoData
import ArgumentParser
import FeedModel
import QapitalApp
import SourceKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `qapital-tui serve`: the demo dataset over HTTP until interrupted.
struct ServeCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the demo dataset over HTTP until interrupted.",
        discussion: """
            The demo dataset in the shapes of the API --api names: \(ServeCommand.apiList). \(ServeCommand.signInSentence) \
            Logs one line per request on stderr. Ctrl-C or \
            SIGTERM stops it: no new connections, requests under way finish (up to 5 s, then 503), exit 0.
            """
    ) }

    @Option(help: ArgumentHelp("The API to serve: \(ServeCommand.apiList)."))
    var api = "qapital"

    /// "qapital (docs/api.md) or starling (docs/starling.md)": every served source.
    static var apiList: String {
        orList(SourceRegistry.served.map { "\($0.name) (\($0.description.documentation))" })
    }

    @Option(help: "The address to listen on (an IP address or localhost).")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port).")
    var port = 8080

    @Option(name: .customLong("latency-ms"), help: "Delay every answer by this many milliseconds.")
    var latencyMs = 0

    @Option(name: .customLong("fail-every"), help: "Answer every Nth request with HTTP 500 (0: never).")
    var failEvery = 0

    @Option(name: .customLong("page-size"), help: "For an API that pages by links: records a page at most (default: the API's own).")
    var pageSize: Int?

    @Option(name: .customLong("rate-limit"), help: "For an API with a rate limit: requests an hour before each answer is 429 (default: the API's own).")
    var rateLimit: Int?

    @Option(help: ArgumentHelp("The account's currency (ISO code; default: \(ServeCommand.currencyDefaults))."))
    var currency: String?

    @Option(name: .customLong("empty-recent-days"), help: "Leave the most recent N days without activity.")
    var emptyRecentDays = 0

    @Option(name: .customLong("header-timeout"), help: "Seconds a request's header may take to arrive (then 408).")
    var headerTimeout = 10.0

    @Option(name: .customLong("idle-timeout"), help: "Seconds a kept-alive connection may stay idle.")
    var idleTimeout = 30.0

    @Option(name: .customLong("max-connections"), help: "Open connections at most (one more is answered 503).")
    var maxConnections = 1024

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard latencyMs >= 0 else { throw ValidationError("--latency-ms must not be negative") }
        guard failEvery >= 0 else { throw ValidationError("--fail-every must not be negative") }
        guard (0...36_500).contains(emptyRecentDays) else {
            throw ValidationError("--empty-recent-days must be between 0 and 36500")
        }
        if let pageSize, !(1...100).contains(pageSize) { throw ValidationError("--page-size must be between 1 and 100") }
        if let rateLimit, rateLimit < 0 { throw ValidationError("--rate-limit must not be negative") }
        if let scaAfter, scaAfter < 1 { throw ValidationError("--sca-after must be 1 or more") }
        for (name, seconds) in [("--session-timeout", sessionTimeout), ("--session-seconds", sessionSeconds)] {
            if let seconds, !(seconds >= 1 && seconds <= 86_400 * 30) {
                throw ValidationError("\(name) must be between 1 and 2592000 seconds")
            }
        }
        if sessionTimeout != nil && sessionSeconds != nil { throw ValidationError("give --session-seconds or --session-timeout, not both") }
        guard (publicKey == nil) == (applicationId == nil) else { throw ValidationError("--public-key and --application-id go together") }
        if publicKey != nil && keyOut != nil { throw ValidationError("--key-out is for the key serve makes, not with --public-key") }
        for url in redirectURLs {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
                throw ValidationError("--redirect-url wants an http or https URL such as http://127.0.0.1:8767/callback")
            }
        }
        if let authError, authError.isEmpty || authError.count > 100 || authError.contains(where: { !$0.isASCII || $0.isWhitespace }) {
            throw ValidationError("--auth-error wants a code such as access_denied")
        }
        guard SourceRegistry.named(api)?.serve != nil else {
            throw ValidationError("--api wants \(SourceRegistry.list(SourceRegistry.served)), not \"\(TextSanitizer.clean(String(api.prefix(40))))\"")
        }
        if let currency, Currency.from(code: currency) == nil {
            throw ValidationError("--currency: " + Currency.refusal(currency))
        }
        for (name, seconds) in [("--header-timeout", headerTimeout), ("--idle-timeout", idleTimeout)] {
            guard seconds.isFinite, seconds > 0, seconds <= 86_400 else {
                throw ValidationError("\(name) must be more than 0 and at most 86400 seconds")
            }
        }
        if let historyMinutes, !(historyMinutes.isFinite && historyMinutes >= 0 && historyMinutes <= 1_000_000) {
            throw ValidationError("--history-minutes must be from 0 to 1000000")
        }
        guard (1...1_000_000).contains(maxConnections) else { throw ValidationError("--max-connections must be between 1 and 1000000") }
    }

    func run() async throws {
        guard let serving = SourceRegistry.named(api)?.serve else { throw ValidationError("--api: not served") }
        let accountCurrency = currency.flatMap(Currency.from(code:)) ?? serving.currency
        let options = DemoDataset.Options(emptyRecentDays: emptyRecentDays, currency: accountCurrency)
        let backend = DemoBackend(now: Date(), options: options)
        var limits = ServeLimits()
        limits.headerTimeout = .milliseconds(Int64(headerTimeout * 1000))
        limits.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        limits.maxConnections = maxConnections
        let serverOptions = DemoHTTPServer.Options(latency: .milliseconds(latencyMs), failEvery: failEvery, logRequests: true,
                                                   limits: limits)
        let handler = serving.handler(backend, flags)
        let server = try DemoHTTPServer(handler: handler, host: host, port: UInt16(port), options: serverOptions)

        // Before the server starts, so that Ctrl-C at any moment stops it cleanly.
        let signals = StopSignals([SIGINT, SIGTERM])
        defer { signals.cancel() }
        try await server.start()
        for line in serving.greeting((await server.baseURL).absoluteString) { ServeCommand.say(line) }

        let post = signals.continuation
        Task {
            await server.waitUntilStopped()
            post.yield(0)
        }
        let received = await signals.next()
        guard received != 0 else {
            throw DemoHTTPServer.StartError(description: "the server stopped unexpectedly")
        }
        ServeCommand.say("\(received == SIGINT ? "SIGINT" : "SIGTERM"): stopping")
        let report = await server.stop(grace: ServeCommand.grace)
        ServeCommand.say("stopped (\(report.finished) \(report.finished == 1 ? "request" : "requests") under way finished, \(report.cutOff) cut off)")
    }

    /// What a served bank is signed in to with, as its greeting prints it: a test token, or for a
    /// source that signs in only through a consent at the bank, an application id, a key file and
    /// config file lines for `login NAME`.
    static var signInSentence: String {
        let consent = Set(SourceRegistry.consentOnly.map(\.name))
        let tokens = SourceRegistry.served.filter { $0.description.signIn.checksToken && !consent.contains($0.name) }
        let consents = SourceRegistry.served.filter { consent.contains($0.name) }
        var parts: [String] = []
        if !tokens.isEmpty { parts.append("\(SourceRegistry.list(tokens)) \(tokens.count == 1 ? "takes" : "take") the token printed at start (a test token, API key or setup token)") }
        if !consents.isEmpty {
            parts.append("\(SourceRegistry.list(consents)) \(consents.count == 1 ? "takes no token: it prints" : "take no token: each prints") an application id, "
                         + "the private key it wrote (0600; none with --public-key) and the config file lines for `qapital-tui login NAME`, whose bank page "
                         + "sends the browser straight back")
        }
        return parts.isEmpty ? "" : "A bank's look-alike: " + parts.joined(separator: "; ") + "."
    }

    /// "USD for qapital, GBP for starling".
    static var currencyDefaults: String {
        SourceRegistry.served.map { "\($0.serve?.currency.code ?? "USD") for \($0.name)" }.joined(separator: ", ")
    }

    @Option(name: .customLong("history-minutes"),
            help: "For a bank that limits history: minutes after a sign-in before only the last 90 days can be read (default: the bank's 5).")
    var historyMinutes: Double?

    @Flag(name: .customLong("sca-pending"),
          help: "For a bank that asks for approval in its app: new tokens wait for it (send POST /test/approve with the token to approve it).")
    var scaPending = false

    @Option(name: .customLong("sca-after"),
            help: "For a bank that asks for approval in its app: a token's approval lapses once after N requests, as when the bank asks again mid-session (approve it again with POST /test/approve).")
    var scaAfter: Int?

    @Option(name: .customLong("session-timeout"), help: "For an API whose sessions expire: seconds a session lasts (default: the API's own).")
    var sessionTimeout: Double?

    @Option(name: .customLong("session-seconds"), help: "The same as --session-timeout (Enable Banking's spelling).")
    var sessionSeconds: Double?

    @Option(name: .customLong("public-key"),
            help: ArgumentHelp("For an API that checks signed requests: the user's public key (PEM) to check them with (with --application-id).", valueName: "file"))
    var publicKey: String?

    @Option(name: .customLong("application-id"), help: ArgumentHelp("The application id --public-key belongs to.", valueName: "id"))
    var applicationId: String?

    @Option(name: .customLong("key-out"),
            help: ArgumentHelp("For an API that checks signed requests, without --public-key: where the private key it makes is written (0600).", valueName: "path"))
    var keyOut: String?

    @Option(name: .customLong("auth-error"), help: ArgumentHelp("For a consent sign-in: the bank's page sends the browser back with this error.", valueName: "code"))
    var authError: String?

    @Option(name: .customLong("redirect-url"),
            help: ArgumentHelp("For a consent sign-in: one more redirect URL the look-alike's application registers (repeatable; others are refused as the real API refuses them; its greeting lists its own).", valueName: "url"))
    var redirectURLs: [String] = []

    @Option(name: .customLong("fault"), help: "A fault the look-alike knows by name (repeatable; its greeting lists them).")
    var faults: [String] = []

    @Option(help: "For an API with a daily request budget: requests a day before it warns, then refuses (default: the API's own).")
    var budget: Int?

    @Flag(name: .customLong("v1"), help: "For an API with an older protocol version: serve its version 1 shapes.")
    var versionOne = false

    /// The flags a source's handler may read.
    var flags: ServeFlags {
        var flags = ServeFlags(historyMinutes: historyMinutes, scaPending: scaPending, scaAfter: scaAfter, pageSize: pageSize,
                               rateLimit: rateLimit, sessionTimeout: sessionSeconds ?? sessionTimeout, faults: Set(faults))
        flags.budget = budget
        flags.publicKeyFile = publicKey
        flags.applicationId = applicationId
        flags.keyOut = keyOut
        flags.authError = authError
        flags.redirectURLs = redirectURLs
        flags.versionOne = versionOne
        return flags
    }

    /// How long requests under way may take to finish once a stop signal has come.
    static let grace: Duration = .seconds(5)

    static func say(_ line: String) {
        StandardStream.error.line(line)
    }
}
