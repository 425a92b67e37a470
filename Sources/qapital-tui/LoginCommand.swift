import ArgumentParser
import DemoServer
import FeedModel
import Foundation
import SourceKit
import HTTPTransport
#if canImport(Glibc)
import Glibc
#endif

/// `qapital-tui login NAME`: signs in with the customer's own OAuth client. Prints the bank's
/// sign-in address (and opens it with xdg-open where there is one), waits for one callback on
/// 127.0.0.1, checks its state, exchanges the code and keeps the token pair (0600).
struct LoginCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "login",
        abstract: "Sign in to a bank with your own OAuth client or application (\(SourceRegistry.list(SourceRegistry.withSignIn))).",
        discussion: """
            The client's id and secret come from the config file's table for the bank ([NAME] client-id = "…", \
            client-secret = "…"), with http://127.0.0.1:PORT/callback as its redirect URL. The token pair is kept \
            in $XDG_CONFIG_HOME/qapital-tui/oauth-tokens.json (mode 0600) and refreshed before it expires. \
            Then approve the sign-in in the bank's app. A source that signs in through a consent at the bank \
            (an account-information provider) reads its own table and --aspsp, --country, --psu-type, \
            --redirect-url, --days and --paste (docs/banks.md).
            """) }

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

    @Option(help: "The port the callback listens on, on 127.0.0.1 (0: any free port; the client's redirect URL must match).")
    var port = 0

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

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        if let timeout, !(timeout.isFinite && timeout > 0 && timeout <= 3_600) { throw ValidationError("--timeout must be more than 0 and at most 3600 seconds") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        if let registered = SourceRegistry.named(source), let consent = registered.bank?.consentSignIn {
            try await runConsent(consent, registered: registered, environment: environment)
            return
        }
        let (flow, apiURL) = try prepare(environment: environment)
        let browse = !noBrowser
        let pair = try await LoginFlow(flow: flow, port: UInt16(port), timeout: waitSeconds(consent: false)).run(
            open: { @Sendable url in if browse { LoginCommand.openInBrowser(url) } },
            say: { StandardStream.error.line($0) })
        let pairs = OAuthTokenPairs(fileURL: OAuthTokenPairs.defaultFile(environment: environment))
        do {
            try await pairs.keepLocked(pair, for: apiURL)
        } catch {
            throw ValidationError(error.message)
        }
        StandardStream.error.line("Signed in. The token pair is kept in \(TextSanitizer.clean(pairs.fileURL.path)) (only you can read it).")
        let title = SourceRegistry.named(source)?.description.title ?? source
        StandardStream.error.line("Approve this sign-in in the \(TextSanitizer.clean(title)) app, then run: qapital-tui --source \(source.lowercased())"
                                  + (self.apiURL.map { " --api-url " + TextSanitizer.clean($0) } ?? ""))
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
        let (browse, streams) = (!noBrowser, LoginCommand.streams)
        let open: @Sendable (URL) -> Void = { url in
            if browse { streams.open(url) }
        }
        let table: [String: String] = file?.sourceSettings[registered.name] ?? [:]
        let request = ConsentSignInRequest(apiURL: base, settings: table, environment: environment, allowInsecureHTTP: allowInsecureHTTP,
                                           options: options, paste: paste, timeout: waitSeconds(consent: true), open: open, say: streams.say,
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
            default:
                streams.note(error.message)
                throw ExitCode(1)
            }
        }
    }

    /// The flow and the API's base URL, from the registry and the config file.
    func prepare(environment: [String: String]) throws -> (any OAuthFlow, URL) {
        guard let registered = SourceRegistry.named(source), let oauth = registered.bank?.oauth else {
            throw ValidationError("login wants \(SourceRegistry.list(SourceRegistry.withSignIn)), not \"\(TextSanitizer.clean(String(source.prefix(40))))\"")
        }
        let name = registered.name
        let file: ConfigFile?
        do {
            file = try ConfigFile.load(path: config, environment: environment)
        } catch {
            throw ValidationError(error.message)
        }
        let table = file?.sourceSettings[name] ?? [:]
        guard let clientId = table["client-id"], !clientId.isEmpty, let secret = table["client-secret"], !secret.isEmpty else {
            throw ValidationError("login \(name) needs client-id and client-secret in the config file's [\(name)] table "
                                  + "(make a client in the bank's developer tools, redirect URL http://127.0.0.1:PORT/callback)")
        }
        var base = registered.description.baseURL
        if let apiURL {
            do {
                let url = try HTTPTransport.validate(baseURL: apiURL)
                try HTTPTransport.checkTokenTransport(baseURL: url, allowInsecureHTTP: allowInsecureHTTP)
                base = url
            } catch {
                throw ValidationError("--api-url: \(error.message)")
            }
        }
        guard let base else { throw ValidationError("login \(name) needs --api-url") }
        return (oauth.make(base, clientId, secret, allowInsecureHTTP, nil), base)
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

/// One OAuth sign-in: a loopback listener for one callback, the state checked, the code exchanged.
struct LoginFlow: Sendable {
    let flow: any OAuthFlow
    var port: UInt16 = 0
    var timeout: TimeInterval = 300

    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    /// Prints the address to sign in at, opens it, waits for the callback, exchanges the code.
    func run(open: @Sendable (URL) -> Void, say: @Sendable (String) -> Void) async throws -> OAuthTokenPairs.Pair {
        let state = OAuthState.make()
        let callback = CallbackHandler(state: state)
        let server = try DemoHTTPServer(handler: callback, host: "127.0.0.1", port: port)
        try await server.start()
        let redirect = (await server.baseURL).absoluteString.trimmingSuffix("/") + "/callback"
        let address: URL
        do {
            address = try await flow.authorizationURL(redirectURI: redirect, state: state)
        } catch {
            await server.stop()
            throw error
        }
        say("Sign in at: \(address.absoluteString)")
        say("Waiting for the bank to send you back to \(redirect) …")
        open(address)
        let outcome = await callback.wait(seconds: timeout)
        await server.stop()
        switch outcome {
        case .code(let code):
            do {
                return try await flow.exchange(code: code, redirectURI: redirect)
            } catch {
                throw ValidationError(error.message)
            }
        case .refused(let reason):
            throw ValidationError("not signed in: \(reason)")
        }
    }
}

/// A fresh `state`: 32 random bytes, hex.
enum OAuthState {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Compared in constant time.
    static func matches(_ received: String?, _ sent: String) -> Bool {
        guard let received else { return false }
        let left = Array(received.utf8), right = Array(sent.utf8)
        guard left.count == right.count else { return false }
        return zip(left, right).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Answers the one callback of a sign-in: `/callback?code=…&state=…`. The first callback decides;
/// a state that is not the one sent refuses the sign-in.
actor CallbackHandler: ServeHandler {
    enum Outcome: Sendable, Equatable {
        case code(String)
        case refused(String)
    }

    private let state: String
    private var outcome: Outcome?
    private var waiters: [CheckedContinuation<Outcome, Never>] = []

    init(state: String) { self.state = state }

    func handle(_ request: ServeRequest) async -> ServeResponse {
        guard request.path == "/callback", request.method == "GET" else { return .error(404, "not found") }
        guard outcome == nil else { return page(409, "This sign-in is over; go back to the terminal.") }
        let values = CallbackHandler.queryValues(request.rawQuery)
        let result: Outcome
        if !OAuthState.matches(values["state"], state) {
            result = .refused("the callback's state is not the one sent (a stale or forged sign-in)")
        } else if let error = values["error"] {
            result = .refused("the bank said \(TextSanitizer.clean(String(error.prefix(60))))")
        } else if let code = values["code"], !code.isEmpty, code.count <= 2_048 {
            result = .code(code)
        } else {
            result = .refused("the callback has no code")
        }
        finish(result)
        if case .code = result { return page(200, "Signed in: go back to the terminal.") }
        return page(400, "Not signed in: go back to the terminal.")
    }

    /// The query's values, percent-decoded; a name given twice counts as not given (no guessing).
    static func queryValues(_ rawQuery: String) -> [String: String] {
        var values: [String: String] = [:]
        var twice = Set<String>()
        for pair in rawQuery.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts[0].removingPercentEncoding,
                  let value = (parts.count > 1 ? parts[1] : "").replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            else { continue }
            if values[name] != nil { twice.insert(name) }
            values[name] = value
        }
        for name in twice { values[name] = nil }
        return values
    }

    private func page(_ status: Int, _ text: String) -> ServeResponse {
        .data(Data("<!doctype html><title>qapital-tui</title><p>\(text)</p>\n".utf8), contentType: "text/html; charset=utf-8",
              status: status)
    }

    private func finish(_ result: Outcome) {
        guard outcome == nil else { return }
        outcome = result
        for waiter in waiters { waiter.resume(returning: result) }
        waiters = []
    }

    /// The callback's outcome, or a refusal after `seconds`.
    func wait(seconds: TimeInterval) async -> Outcome {
        if let outcome { return outcome }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
            await self?.finish(.refused("no callback within \(Int(seconds)) s"))
        }
        let result = await withCheckedContinuation { waiters.append($0) }
        timer.cancel()
        return result
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
