import ArgumentParser
import FeedModel
import Foundation
import SourceKit
import HTTPTransport

/// `qapital-tui login NAME`: runs the source's own sign-in (`ConsentSignIn`: a consent at the
/// bank, or the customer's own OAuth client) with the config file's `[NAME]` table and the
/// command's options. Each prints the bank's address (and opens it with $BROWSER or xdg-open),
/// takes the browser's return on 127.0.0.1 (or a pasted address), checks its state, and keeps
/// what it got (0600).
struct LoginCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "login",
        abstract: "Sign in to a bank with your own OAuth client or application (\(SourceRegistry.list(SourceRegistry.withSignIn))).",
        discussion: LoginCommand.discussion) }

    /// Each way in, said for the sources that sign in that way (from the registry).
    static var discussion: String {
        var paragraphs: [String] = []
        let oauth = SourceRegistry.withOAuthClient
        if !oauth.isEmpty {
            paragraphs.append("""
                \(SourceRegistry.list(oauth)) (your own OAuth client, beside a token): the client's id and secret come from the \
                config file's table for the bank ([NAME] client-id = "…", client-secret = "…"), with \
                http://127.0.0.1:PORT/callback as its redirect URL (--port). The token pair is kept in \
                $XDG_CONFIG_HOME/qapital-tui/oauth-tokens.json (mode 0600) and refreshed before it expires. Then approve the \
                sign-in in the bank's app.
                """)
        }
        let consent = SourceRegistry.consentOnly
        if !consent.isEmpty {
            paragraphs.append("""
                \(SourceRegistry.list(consent)) (a consent given at the bank; no token): your application's \
                id and key file come from the config file's table ([NAME] application-id, key-file) or the environment; \
                --aspsp, --country, --psu-type, --redirect-url and --days win over the table's aspsp, country, psu-type, \
                redirect-url and consent-days. The bank's address is printed (and opened, unless --no-browser); the browser \
                comes back to a loopback redirect URL listened on, or --paste reads the address it was sent to. The session is \
                kept (mode 0600) until the consent ends; --timeout defaults to 600 s. Exit 77: the key or application refused, or \
                the application not active; 64: a bad option or key file (docs/cli.md).
                """)
        }
        return paragraphs.joined(separator: "\n\n")
    }

    @Argument(help: ArgumentHelp("The bank: \(SourceRegistry.list(SourceRegistry.withSignIn)).", valueName: "source"))
    var source: String

    @Option(help: ArgumentHelp("The bank, as the provider lists it (a consent sign-in).", valueName: "name"))
    var aspsp: String?

    @Option(help: ArgumentHelp("The bank's country, two letters (a consent sign-in).", valueName: "cc"))
    var country: String?

    @Option(name: .customLong("psu-type"), help: ArgumentHelp("personal or business (a consent sign-in).", valueName: "type"))
    var psuType: String?

    @Option(name: .customLong("redirect-url"), help: ArgumentHelp("Where the bank sends the browser back (a consent sign-in).", valueName: "url"))
    var redirectURL: String?

    @Option(help: ArgumentHelp("Days the consent lasts (a consent sign-in; capped by the bank).", valueName: "n"))
    var days: Int?

    @Flag(help: "Paste the address the browser was sent back to, instead of listening for it (a remote machine).")
    var paste = false

    @Option(name: .customLong("api-url"), help: ArgumentHelp("The bank's API (default: its own; `serve --api NAME` to try it).", valueName: "url"))
    var apiURL: String?

    @Option(help: ArgumentHelp("The config file (default: $XDG_CONFIG_HOME/qapital-tui/config.toml).", valueName: "path"))
    var config: String?

    @Option(help: "The port the callback listens on, on 127.0.0.1, for an OAuth client (default: the table's port, else any free port; the client's redirect URL must match).")
    var port: Int?

    @Option(help: "Seconds to wait for the callback (default 300; 600 for a consent sign-in).")
    var timeout: Double?

    /// How long the callback is waited for: a consent at the bank takes longer than an OAuth approval.
    func waitSeconds(consent: Bool) -> TimeInterval { timeout ?? (consent ? 600 : 300) }

    @Flag(name: .customLong("no-browser"), help: "Only print the address; do not run $BROWSER or xdg-open.")
    var noBrowser = false

    @Flag(name: .customLong("allow-insecure-http"), help: "Send the client secret over plain http to a host other than this machine.")
    var allowInsecureHTTP = false

    /// Where a sign-in's lines go, how it opens the browser and reads a pasted line: the
    /// terminal and xdg-open, unless a test sets its own for the length of a task.
    struct Streams: Sendable {
        var say: @Sendable (String) -> Void = { _ = StandardStream.output.line($0) }
        var note: @Sendable (String) -> Void = { _ = StandardStream.error.line($0) }
        var open: @Sendable (URL) -> Void = { LoginCommand.openInBrowser($0) }
        var readLine: @Sendable () async -> String? = { Swift.readLine(strippingNewline: true) }
    }

    @TaskLocal static var streams = Streams()
    /// The environment the sign-in reads (where it keeps what it got): the process's, unless a test sets one.
    @TaskLocal static var environment: [String: String]?

    func validate() throws {
        if let port, !(0...65_535).contains(port) { throw ValidationError("--port must be between 0 and 65535") }
        if let timeout, !(timeout.isFinite && timeout > 0 && timeout <= 3_600) { throw ValidationError("--timeout must be more than 0 and at most 3600 seconds") }
    }

    func run() async throws {
        let environment = LoginCommand.environment ?? ProcessInfo.processInfo.environment
        guard let registered = SourceRegistry.named(source), let signIn = registered.bank?.consentSignIn else {
            throw ValidationError("login wants \(SourceRegistry.list(SourceRegistry.withSignIn)), not \"\(TextSanitizer.clean(String(source.prefix(40))))\"")
        }
        try await runConsent(signIn, registered: registered, environment: environment)
    }

    /// A source's own consent sign-in: its table and the command's options handed over; a
    /// refusal of the key or the application exits 77, anything else the command did wrong 64, the rest 1.
    func runConsent(_ consent: ConsentSignIn, registered: RegisteredSource, environment: [String: String]) async throws {
        let (file, base) = try LogoutCommand.consentSetting(registered, config: config, apiURL: apiURL, command: "login",
                                                            environment: environment)
        var options: [String: String] = [:]
        options["aspsp"] = aspsp
        options["country"] = country
        options["psu-type"] = psuType
        options["redirect-url"] = redirectURL
        options["days"] = days.map(String.init)
        options["port"] = port.map(String.init)
        let (browse, streams) = (!noBrowser, LoginCommand.streams)
        let open: @Sendable (URL) -> Void = { url in
            if browse { streams.open(url) }
        }
        let table: [String: String] = file?.sourceSettings[registered.name] ?? [:]
        let request = ConsentSignInRequest(apiURL: base, settings: table, environment: environment, allowInsecureHTTP: allowInsecureHTTP,
                                           options: options, paste: paste, timeout: waitSeconds(consent: registered.bank?.oauth == nil), open: open, say: streams.say,
                                           note: streams.note, readLine: streams.readLine)
        do throws(APIError) {
            try await consent.run(request)
        } catch {
            switch error.kind {
            case .rejected where ["config", "key", "GET /aspsps"].contains(error.request):
                throw ValidationError(error.message)
            case .unauthorized:
                streams.note(error.message)
                throw ExitCode(77)
            case _ where error.isConnectivity && error.request != "sign-in":
                streams.note(error.message)
                throw ExitCode(69)
            default:
                streams.note(error.message)
                throw ExitCode(1)
            }
        }
    }

    /// `$BROWSER URL` (its first entry, found on the PATH) when set, else `xdg-open URL` where
    /// there is one; the address is printed either way. The process started, if one was.
    @discardableResult
    static func openInBrowser(_ url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> Process? {
        let process = Process()
        if let browser = environment["BROWSER"]?.split(separator: ":").first.map(String.init), !browser.isEmpty {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [browser, url.absoluteString]
        } else {
            let candidates = ["/usr/bin/xdg-open", "/usr/local/bin/xdg-open", "/bin/xdg-open"]
            guard let tool = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = [url.absoluteString]
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return (try? process.run()) == nil ? nil : process
    }
}
