import DemoServer
import EnableBankingClient
import FeedModel
import Foundation
import HTTPTransport
import SourceKit

/// `qapital-tui login enablebanking`: the application checked, the bank chosen, `POST /auth`,
/// the consent given at the bank in a browser, the redirect back (on a loopback listener opened
/// first, or pasted with `--paste`; `state` compared in constant time), the session recorded at
/// once, then one read of every account with the user present (docs/banks.md, Enable Banking).
public enum EnableBankingLogin {
    public static let defaultRedirect = "http://127.0.0.1:8765/callback"

    public static func run(_ request: ConsentSignInRequest, now: @escaping @Sendable () -> Date = { Date() }) async throws(APIError) {
        var table = request.settings
        for (name, value) in request.options where ["aspsp", "country", "psu-type", "redirect-url"].contains(name) { table[name] = value }
        if let days = request.options["days"] { table["consent-days"] = days }
        var settings: EnableBankingSettings
        do {
            settings = try EnableBankingSettings.read(table, environment: request.environment)
        } catch {
            throw APIError(kind: .rejected, request: "config", message: error.message)
        }
        settings.configFileShown = EnableBankingStart.configFileShown(request.environment)
        guard let applicationId = settings.applicationId, let keyFile = settings.keyFile else {
            throw APIError(kind: .rejected, request: "config", message: "login enablebanking needs [enablebanking] application-id and key-file "
                           + "in the config file (or ENABLEBANKING_APPLICATION_ID and ENABLEBANKING_KEY_FILE)")
        }
        let key: EnableBankingKey
        do {
            key = try EnableBankingKey.read(path: keyFile)
        } catch {
            throw APIError(kind: .rejected, request: "key", message: error.message)
        }
        do {
            try HTTPTransport.checkTokenTransport(baseURL: request.apiURL, allowInsecureHTTP: request.allowInsecureHTTP)
        } catch {
            throw APIError(kind: .rejected, request: "sign-in", message: "Enable Banking: not sent: \(error.message)")
        }
        let client = EnableBankingClient(baseURL: request.apiURL, signer: EnableBankingSigner(key: key, applicationId: applicationId, now: now),
                                         allowInsecureHTTP: request.allowInsecureHTTP, log: request.log)
        let application: EnableBanking.Application
        do {
            application = try await client.application()
        } catch {
            throw error.error
        }
        guard application.active else {
            throw APIError(kind: .unauthorized, request: "GET /application",
                           message: "activate the application in the Control Panel by linking your accounts")
        }
        guard let country = settings.country else {
            throw APIError(kind: .rejected, request: "config", message: "login enablebanking needs --country (or [enablebanking] country), e.g. FI")
        }
        let banks: [EnableBanking.ASPSP]
        do {
            banks = try await client.aspsps(country: country, psuType: settings.psuType)
        } catch {
            throw error.error
        }
        let listed = banks.map { TextSanitizer.clean($0.name) }.sorted()
        guard let wanted = settings.aspsp, let bank = banks.first(where: { $0.name.caseInsensitiveCompare(wanted) == .orderedSame }) else {
            let shown = listed.count > 40 ? listed.prefix(40).joined(separator: ", ") + " +\(listed.count - 40)" : listed.joined(separator: ", ")
            throw APIError(kind: .rejected, request: "GET /aspsps",
                           message: (settings.aspsp.map { "no bank \"\(TextSanitizer.clean($0))\" in \(country)" } ?? "which bank? give --aspsp NAME")
                           + "; the banks in \(country): \(shown)")
        }
        let bankName = TextSanitizer.clean(bank.name)
        let redirect = settings.redirectURL ?? application.redirectURLs.first(where: isLoopback) ?? application.redirectURLs.first ?? defaultRedirect
        var days = settings.consentDays
        if let most = bank.maximumConsentValidity, most > 0 { days = min(days, Int(most / 86_400)) }
        let state = EnableBankingSignIn.newState()
        let sessionFile = EnableBankingSessionFile(fileURL: EnableBankingSessionFile.defaultFile(environment: request.environment))
        let signIn = EnableBankingSignIn(client: client, applicationId: applicationId, sessionFile: sessionFile, now: now)

        // The listener first, so that a fast bank cannot come back before it listens.
        let listening: (server: DemoHTTPServer, callback: CallbackListener)?
        if !request.paste, let url = URL(string: redirect), isLoopback(redirect) {
            let callback = CallbackListener(path: url.path.isEmpty ? "/" : url.path, state: state, bank: bankName, note: request.note)
            do {
                let server = try DemoHTTPServer(handler: callback, host: url.host == "localhost" ? "127.0.0.1" : (url.host ?? "127.0.0.1")
                                                    .trimmingCharacters(in: CharacterSet(charactersIn: "[]")),
                                                port: UInt16(url.port ?? 80))
                try await server.start()
                listening = (server, callback)
            } catch {
                throw APIError(kind: .rejected, request: "sign-in",
                               message: "cannot listen on \(TextSanitizer.clean(redirect)) (\(error)): use --paste, or another --redirect-url")
            }
        } else {
            listening = nil
        }
        let address: URL
        do {
            address = try await signIn.start(aspsp: bank.name, country: country, psuType: settings.psuType, redirectURL: redirect, days: days,
                                             state: state)
        } catch {
            await listening?.server.stop()
            throw error.error
        }
        request.say("Open this address in a browser to sign in at \(bankName):")
        request.say(address.absoluteString)
        request.open(address)

        let code: String
        if let listening {
            // The app's screen: a pasted address counts as the browser's return, same checks.
            let reader: Task<Void, Never>? = request.pasteWhileListening ? Task {
                while let line = await request.readLine() {
                    if await listening.callback.offer(line) { return }
                }
            } : nil
            let outcome = await listening.callback.wait(seconds: request.timeout)
            reader?.cancel()
            await listening.server.stop()
            switch outcome {
            case .code(let given): code = given
            case .refused(let reason):
                throw APIError(kind: .rejected, request: "sign-in", message: "\(bankName) did not give access: \(reason)")
            case .timedOut:
                throw APIError(kind: .timedOut, request: "sign-in", message: "no answer from the browser within \(Int(request.timeout)) s")
            case .cancelled:
                throw APIError(kind: .rejected, request: "sign-in", message: "the sign-in was cancelled")
            }
        } else {
            code = try await paste(request, state: state, bank: bankName)
        }

        let record: EnableBankingSessionRecord
        do {
            record = try await signIn.finish(code: code, aspsp: bank.name, country: country)
        } catch {
            throw error.error
        }
        // One read of every account with the user present fills the cache.
        var settingsNow = settings
        settingsNow.refreshAfter = 0
        settingsNow.aspsp = record.aspsp
        settingsNow.country = record.country
        let psu = EnableBankingClient.PSU(ipAddress: settings.psuIPAddress ?? EnableBankingStart.localAddress(toward: request.apiURL) ?? "127.0.0.1",
                                          userAgent: "qapital-tui/\(FeedModelInfo.version)")
        let folder = EnableBankingStart.cacheDirectory(request.environment)
        let api = EnableBankingAPI(client: client, settings: settingsNow, record: record, bank: record.aspsp, fingerprint: record.fingerprint,
                                   sessionFile: sessionFile, directory: folder, budgetDirectory: folder, psu: psu, headless: false, forced: false,
                                   now: now)
        let header = try? await api.account()
        if header == nil { request.note("no account could be read yet: the app reads them at its start") }
        let daysLeft = record.daysLeft(at: now())
        let until = EnableBankingSignIn.rfc3339(record.validUntilDate ?? now()).prefix(10)
        request.say("signed in at \(bankName) (\(record.country)): \(record.accounts.count) accounts, consent until \(until) (\(daysLeft) days)")
        for account in record.accounts {
            let number = account.accountId?.iban ?? account.accountId?.other
            request.say("  \(account.shownName)" + (number.map { " " + EnableBanking.masked($0) } ?? "")
                        + " · \(TextSanitizer.clean(account.currency ?? "?")) · \(TextSanitizer.clean(account.cashAccountType ?? "?"))")
        }
        if let problem = api.statusNote { request.note(problem) }
    }

    /// `qapital-tui logout enablebanking`: every session kept for this origin and application (at
    /// the table's bank and country when it names them) closed at the bank (`DELETE`), its
    /// record removed, and its cache and read count with it. A close the bank refuses is said;
    /// the record goes anyway (nothing can use it once the user asked it gone).
    public static func end(_ request: ConsentSignInRequest, now: @escaping @Sendable () -> Date = { Date() }) async throws(APIError) {
        let settings: EnableBankingSettings
        do {
            settings = try EnableBankingSettings.read(request.settings, environment: request.environment)
        } catch {
            throw APIError(kind: .rejected, request: "config", message: error.message)
        }
        guard let applicationId = settings.applicationId, let keyFile = settings.keyFile else {
            throw APIError(kind: .rejected, request: "config", message: "logout enablebanking needs [enablebanking] application-id and key-file "
                           + "in the config file (or ENABLEBANKING_APPLICATION_ID and ENABLEBANKING_KEY_FILE)")
        }
        let key: EnableBankingKey
        do {
            key = try EnableBankingKey.read(path: keyFile)
        } catch {
            throw APIError(kind: .rejected, request: "key", message: error.message)
        }
        let origin = EnableBankingFiles.origin(request.apiURL)
        let sessionFile = EnableBankingSessionFile(fileURL: EnableBankingSessionFile.defaultFile(environment: request.environment))
        var ended = 0
        while let record = sessionFile.newest(origin: origin, applicationId: applicationId, aspsp: settings.aspsp, country: settings.country) {
            if record.endedEarly == nil, !record.hasEnded(at: now()) {
                let client = EnableBankingClient(baseURL: request.apiURL, signer: EnableBankingSigner(key: key, applicationId: applicationId, now: now),
                                                 allowInsecureHTTP: request.allowInsecureHTTP, log: request.log)
                do {
                    try await client.closeSession(id: record.sessionId)
                } catch {
                    request.note("the bank did not close the consent (\(error.error.message)); its record is removed anyway")
                }
            }
            guard sessionFile.keep(nil, for: record.fingerprint) else {
                throw APIError(kind: .rejected, request: "logout", message: "the session record could not be removed from \(sessionFile.fileURL.path)")
            }
            if let folder = EnableBankingStart.cacheDirectory(request.environment) {
                for name in ["enablebanking-data-\(record.fingerprint).json", "enablebanking-reads-\(record.fingerprint).json",
                             "enablebanking-reads-\(record.fingerprint).lock"] {
                    try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
                }
            }
            request.say("signed out of \(TextSanitizer.clean(record.aspsp)) (\(TextSanitizer.clean(record.country))): the consent is closed, "
                        + "its record and cache removed")
            ended += 1
        }
        if ended == 0 { request.say("no Enable Banking session is kept for this application: nothing to sign out of") }
    }

    /// Reads the address the browser was sent to from standard input until it is this sign-in's.
    static func paste(_ request: ConsentSignInRequest, state: String, bank: String) async throws(APIError) -> String {
        request.say("Then paste here the whole address the browser was sent to (it may show an error page):")
        while let line = await request.readLine() {
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            switch EnableBankingSignIn.callback(line, state: state) {
            case .code(let code): return code
            case .refused(let reason): throw APIError(kind: .rejected, request: "sign-in", message: "\(bank) did not give access: \(reason)")
            case .foreign: request.note("refused: not from this sign-in; paste the address of this sign-in")
            case .unreadable: request.note("no code in that address; paste the whole address")
            }
        }
        throw APIError(kind: .rejected, request: "sign-in", message: "not signed in: no address was pasted")
    }

    /// `http` on 127.0.0.1, localhost or [::1]: a listener here can take the redirect.
    static func isLoopback(_ text: String) -> Bool {
        guard let url = URL(string: text), url.scheme?.lowercased() == "http", let host = url.host?.lowercased() else { return false }
        return ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
    }
}

/// Answers the browser's return on the redirect's path: another `state` is refused (400) and
/// the wait goes on; this sign-in's code or error ends it.
actor CallbackListener: ServeHandler {
    enum Outcome: Sendable, Equatable {
        case code(String)
        case refused(String)
        case timedOut
        /// The task waiting was cancelled (Esc on the app's sign-in screen).
        case cancelled
    }

    private let path: String
    private let state: String
    private let bank: String
    private let note: @Sendable (String) -> Void
    private var outcome: Outcome?
    private var waiters: [CheckedContinuation<Outcome, Never>] = []

    init(path: String, state: String, bank: String, note: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.state = state
        self.bank = bank
        self.note = note
    }

    func handle(_ request: ServeRequest) async -> ServeResponse {
        guard request.method == "GET", request.path == path else { return .error(404, "not found") }
        guard outcome == nil else { return page(409, "This sign-in is over; go back to the terminal.") }
        switch EnableBankingSignIn.callback("?" + request.rawQuery, state: state) {
        case .foreign, .unreadable:
            note("refused a return that is not from this sign-in")
            return page(400, "refused: not from this sign-in")
        case .refused(let reason):
            finish(.refused(reason))
            return page(200, "\(bank) did not give access: \(reason). Go back to the terminal.")
        case .code(let code):
            finish(.code(code))
            return page(200, "signed in, close this tab")
        }
    }

    /// An address pasted in the app: what the browser's return would do, without the page.
    /// Whether it ended the wait (another sign-in's or an unreadable address does not).
    func offer(_ line: String) -> Bool {
        guard outcome == nil else { return true }
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return false }
        switch EnableBankingSignIn.callback(line, state: state) {
        case .foreign:
            note("refused: not from this sign-in; paste the address of this sign-in")
            return false
        case .unreadable:
            note("no code in that address; paste the whole address")
            return false
        case .refused(let reason):
            finish(.refused(reason))
        case .code(let code):
            finish(.code(code))
        }
        return true
    }

    private func page(_ status: Int, _ text: String) -> ServeResponse {
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        return .data(Data("<!doctype html><title>qapital-tui</title><p>\(escaped)</p>\n".utf8), contentType: "text/html; charset=utf-8",
                     status: status)
    }

    private func finish(_ result: Outcome) {
        guard outcome == nil else { return }
        outcome = result
        for waiter in waiters { waiter.resume(returning: result) }
        waiters = []
    }

    /// This sign-in's outcome, or `.timedOut` after `seconds`, or `.cancelled` when the task
    /// waiting is (the listener is then stopped by the caller, as after any outcome).
    func wait(seconds: TimeInterval) async -> Outcome {
        if let outcome { return outcome }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
            await self?.finish(.timedOut)
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { waiters.append($0) }
        } onCancel: {
            Task { await self.finish(.cancelled) }
        }
        timer.cancel()
        return result
    }
}
