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
        let redirect = settings.redirectURL ?? application.redirectURLs.first(where: SignInRedirect.isLoopback) ?? application.redirectURLs.first ?? defaultRedirect
        var days = settings.consentDays
        if let most = bank.maximumConsentValidity, most > 0 { days = min(days, Int(most / 86_400)) }
        let state = EnableBankingSignIn.newState()
        let sessionFile = EnableBankingSessionFile(fileURL: EnableBankingSessionFile.defaultFile(environment: request.environment))
        let signIn = EnableBankingSignIn(client: client, applicationId: applicationId, sessionFile: sessionFile, now: now)

        let (psuType, consentDays) = (settings.psuType, days)
        let start: @Sendable (String) async throws(APIError) -> URL = { redirect throws(APIError) in
            do throws(EnableBankingFailure) {
                return try await signIn.start(aspsp: bank.name, country: country, psuType: psuType, redirectURL: redirect, days: consentDays,
                                              state: state)
            } catch {
                throw error.error
            }
        }
        let code = try await RedirectSignIn.run(request, redirect: redirect, state: state, bank: bankName, start: start).code

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
        let folder = request.cacheDirectory ?? EnableBankingStart.cacheDirectory(request.environment)
        let api = EnableBankingAPI(client: client, settings: settingsNow, record: record, bank: record.aspsp, fingerprint: record.fingerprint,
                                   sessionFile: sessionFile, directory: folder,
                                   // With --no-cache the reads are still counted (the bank's limit holds regardless).
                                   budgetDirectory: folder ?? EnableBankingStart.cacheDirectory(request.environment), psu: psu,
                                   headless: false, forced: false, now: now)
        let header = try? await api.account()
        if header == nil { request.note("no account could be read yet: the app reads them at its start") }
        let daysLeft = record.daysLeft(at: now())
        let until = EnableBankingSignIn.rfc3339(record.validUntilDate ?? now()).prefix(10)
        request.say("signed in at \(bankName) (\(record.country)): \(record.accounts.count) accounts, consent until \(until) (\(daysLeft == 1 ? "1 day" : "\(daysLeft) days"))")
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
}
