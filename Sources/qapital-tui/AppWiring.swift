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

/// The composition root (gitui's `app.rs` beside `args.rs`): from the settings the options made
/// (`AppOptions`), the source's API behind its offline cache, who saves the round-ups, the
/// `AppCore` and the loop on the terminal. A bank's start-up, before this, is `BankStartup.swift`.
extension AppOptions {
    /// Puts the offline cache in front of a server's API (the demo keeps none): one file per
    /// base URL and `partition` (Qapital's token, Starling's account uid; the file name holds
    /// only a hash of it). Returns the API to use, what the cache adds (given to the app, never
    /// found by downcasting), and a note when the cache could not be used as it was.
    func withOfflineCache(_ remote: any SavingsAPI, baseURL: URL, partition: String?, currency: Currency,
                          environment: [String: String])
        -> (api: any SavingsAPI, capabilities: AppCore.Capabilities, note: String?) {
        // Without a cache, `r` still reaches the source (one that keeps its own answers asks again).
        let uncached = AppCore.Capabilities(refreshCache: { remote.userAskedToRefresh() })
        guard let directory = cacheDirectoryURL(environment: environment) else { return (remote, uncached, nil) }
        let opened = SQLiteCache.open(directory: directory, baseURL: baseURL, token: partition, accountCurrency: currency)
        guard let cache = opened.cache else { return (remote, uncached, opened.note) }
        let caching = CachingSavingsAPI(remote: remote, cache: cache)
        let capabilities = AppCore.Capabilities(cache: cache, connectivity: caching.connectivity, refreshCache: { caching.refresh() })
        return (caching, capabilities, opened.note)
    }

    /// Who saves a week's round-ups (the transfer's key comes from it and the week) and where
    /// the saved weeks are kept: a file beside the offline cache, or for the demo and with
    /// `--no-cache` this run only (the key still makes a second save of a whole week move nothing).
    /// The identity is the source's name and base URL, and the account as the server names it: a
    /// bank's account id; the Qapital API names none, so the owner of the goal saved into stands
    /// for it. Never the token: signing in again is the same account.
    ///
    /// `kind` "rules" gives the savings rules' record instead, beside it (`RuleRecord`).
    func roundUpSaver(_ source: Source, account: String?, environment: [String: String], kind: String = "roundups") -> RoundUpSaver {
        guard let base = source.baseURL else {
            guard let directory = DemoSavesFile.defaultDirectory(environment: environment) else {
                return RoundUpSaver(identity: .demo, record: MemoryRoundUpRecord())
            }
            return RoundUpSaver(identity: .demo, record: RoundUpRecordFile(directory: directory, identity: .demo, kind: kind))
        }
        let identity = SaveIdentity.forSaving(sourceName: source.description.name, baseURL: AppOptions.sourceText(base),
                                              account: source.description.signIn.checksToken ? account ?? "" : nil)
        guard let directory = cacheDirectoryURL(environment: environment) else {
            return RoundUpSaver(identity: identity, record: MemoryRoundUpRecord())
        }
        return RoundUpSaver(identity: identity, record: RoundUpRecordFile(directory: directory, identity: identity, kind: kind))
    }

    /// A base URL as a key names it: lowercased, without a trailing slash.
    static func sourceText(_ url: URL) -> String {
        var text = url.absoluteString.lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The app on `api`: a server's API behind the offline cache (one per base URL and
    /// `partition`), what the source can do besides, the core.
    @MainActor
    func openApp(_ settings: Settings, api: any SavingsAPI, sourceName: String, partition: String?,
                 signIn: AppCore.SignInCapability? = nil, consentSignIn: ConsentSignInCapability? = nil, sourceNote: (@Sendable () -> String?)? = nil,
                 environment: [String: String], events: EventQueue = EventQueue()) -> AppCore {
        var cached: (api: any SavingsAPI, capabilities: AppCore.Capabilities, note: String?) = (api, AppCore.Capabilities(), nil)
        if let base = settings.source.baseURL {
            cached = withOfflineCache(api, baseURL: base, partition: partition, currency: settings.currency, environment: environment)
        }
        var capabilities = cached.capabilities
        capabilities.signIn = signIn
        capabilities.consentSignIn = consentSignIn
        if let bank = api as? any BankAPI {
            capabilities.readQuestion = { bank.readQuestion }
            capabilities.readAnyway = { bank.readPastBudget() }
        }
        capabilities.sourceNote = sourceNote
        capabilities.skippedRecords = settings.skippedRecords
        capabilities.roundUpSaver = roundUpSaver(settings.source, account: partition, environment: environment)
        capabilities.rulesBook = rulesBook(settings, api: cached.api, saver: capabilities.roundUpSaver, account: partition,
                                           timeZone: .current, environment: environment)
        if let log = settings.log { capabilities.errorLog = { log.note("error: " + $0) } }
        var configuration = AppCore.Configuration(sourceName: sourceName, colors: settings.colors, currency: settings.currency,
                                                  images: settings.images, pictureSchemes: settings.pictureSchemes,
                                                  keys: settings.keys, roundUpStep: settings.roundUpStep)
        configuration.noGoalCreation = settings.source.description.noGoalCreation
        configuration.noMoneyMoves = settings.source.description.noMoneyMoves
        configuration.noRuleMoves = settings.source.description.noRuleMoves
        configuration.historyBeginning = settings.source.description.historyBeginning
        configuration.pictureCellPixels = settings.pictureCellPixels
        configuration.screenReader = settings.screenReader
        let core = AppCore(api: cached.api, configuration: configuration, capabilities: capabilities,
                           achievements: settings.achievements, events: events)
        if let note = cached.note { core.showNotice(note) }
        return core
    }

    @MainActor
    func run(screen: ScreenOptions) async throws {
        let environment = ProcessInfo.processInfo.environment
        var settings = try settings(environment: environment, screen: screen)
        guard isatty(STDOUT_FILENO) == 1 else {
            throw ValidationError("standard output is not a terminal; qapital-tui is a full-screen app")
        }
        // Keys (and the probe's replies) from the terminal even when stdin is not one, as less and fzf do.
        guard ControllingTerminal.takeStandardInput() else {
            throw ValidationError("standard input is not a terminal and there is no terminal (/dev/tty) to read keys from")
        }
        let probe = TerminalProbe.run(environment: environment, overrides: settings.terminal)
        let capabilities = TerminalCapabilities.resolve(replies: probe.replies, environment: environment, overrides: settings.terminal,
                                                        size: TerminalProbe.windowSize())
        if settings.images && NcursesTerminal.drawsPictures(capabilities.graphics) { settings.pictureCellPixels = capabilities.pictureCellPixels }
        let terminal = NcursesTerminal(theme: settings.colors ? settings.theme : .noColor, capabilities: capabilities,
                                       placesCursor: settings.screenReader)
        let runner: AppRunner
        if settings.source.registered.bank != nil {
            switch try await startBank(settings.source, environment: environment, log: settings.log,
                                       sourceSettings: settings.sourceSettings) {
            case .connected(let connection):
                runner = AppRunner(core: openBank(connection, source: settings.source, settings: settings, environment: environment),
                                   terminal: terminal)
            case .signIn(let refusal, _) where settings.source.registered.bank?.consentSignIn?.replacesTokenForm == true:
                guard let screen = consentSignIn(settings.source, refusal: refusal, settings: settings, environment: environment) else { return }
                runner = AppRunner(consentSignIn: screen, terminal: terminal)
            case .signIn(let refusal, let pending):
                guard let screen = bankSignIn(settings.source, refusal: refusal, pending: pending, settings: settings,
                                              environment: environment) else { return }
                runner = AppRunner(signIn: screen, terminal: terminal)
            }
        } else if let api = settings.api {
            runner = AppRunner(core: openApp(settings, api: api, sourceName: api.sourceName,
                                             partition: resolvedToken(environment, for: settings.source.description),
                                             environment: environment), terminal: terminal)
        } else {
            return
        }
        terminal.start(colors: settings.colors, pendingInput: probe.input)
        await runner.run()
        terminal.stop()
        if let signal = runner.quitSignal {
            throw ExitCode(128 + signal)
        }
        // Left the sign-in (Esc) without signing in: not a success (docs/cli.md, 77).
        if runner.core == nil { throw HeadlessExit.notSignedIn }
    }
}
