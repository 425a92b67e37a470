import ArgumentParser
import FeedModel
import Foundation
import HTTPTransport
import SourceKit

/// `qapital-tui logout NAME`: the source's own sign-in ended (`ConsentSignIn.end`): a consent
/// closed at the bank and its record and cache removed, or an OAuth token pair dropped.
struct LogoutCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "logout",
        abstract: "Sign out of a bank: close its consent or drop its token pair, and remove what was kept (\(SourceRegistry.list(SourceRegistry.withSignIn))).") }

    @Argument(help: ArgumentHelp("The bank: \(SourceRegistry.list(SourceRegistry.withSignIn)).", valueName: "source"))
    var source: String

    @Option(name: .customLong("api-url"), help: ArgumentHelp("The bank's API (default: its own; `serve --api NAME` to try it).", valueName: "url"))
    var apiURL: String?

    @Option(help: ArgumentHelp("The config file (default: $XDG_CONFIG_HOME/qapital-tui/config.toml).", valueName: "path"))
    var config: String?

    @Flag(name: .customLong("allow-insecure-http"), help: "Send the request over plain http to a host other than this machine.")
    var allowInsecureHTTP = false

    func run() async throws {
        let environment = LoginCommand.environment ?? ProcessInfo.processInfo.environment
        guard let registered = SourceRegistry.named(source), let consent = registered.bank?.consentSignIn else {
            throw ValidationError("logout wants \(SourceRegistry.list(SourceRegistry.withSignIn)), not \"\(TextSanitizer.clean(String(source.prefix(40))))\"")
        }
        let (file, base) = try Self.consentSetting(registered, config: config, apiURL: apiURL, command: "logout", environment: environment)
        let (say, note) = (LoginCommand.streams.say, LoginCommand.streams.note)
        let table: [String: String] = file?.sourceSettings[registered.name] ?? [:]
        let request = ConsentSignInRequest(apiURL: base, settings: table, environment: environment, allowInsecureHTTP: allowInsecureHTTP,
                                           options: [:], paste: false, timeout: 30, open: { _ in }, say: say, note: note,
                                           readLine: { nil })
        do throws(APIError) {
            try await consent.end(request)
        } catch {
            note(error.message)
            throw error.kind == .rejected && ["config", "key"].contains(error.request) ? ExitCode(64) : ExitCode(1)
        }
    }

    /// What `login` and `logout` of a consent source read: the config file, and the API's base
    /// URL (`--api-url`, else the source's own), each refused in one line.
    static func consentSetting(_ registered: RegisteredSource, config: String?, apiURL: String?, command: String,
                               environment: [String: String]) throws -> (file: ConfigFile?, base: URL) {
        let file: ConfigFile?
        do {
            file = try ConfigFile.load(path: config, environment: environment)
        } catch {
            throw ValidationError(error.message)
        }
        var base = registered.description.baseURL
        if let apiURL {
            do {
                base = try HTTPTransport.validate(baseURL: apiURL)
            } catch {
                throw ValidationError("--api-url: \(error.message)")
            }
        }
        guard let base else { throw ValidationError("\(command) \(registered.name) needs --api-url") }
        return (file, base)
    }
}
