@testable import DemoData
@testable import DemoServer
@testable import EnableBankingClient
@testable import EnableBankingSource
import FeedModel
import Foundation
import HTTPTransport
import SourceKit
import Testing
import TestSupport

/// The Enable Banking client and start against `serve --api enablebanking` over loopback: the
/// JWT checked, the sign-in, the reads, paging, the budget across processes, the consent's end,
/// and where the key, the JWT and the session id never go.
@Suite(.timeLimit(.minutes(2))) struct EnableBankingServeTests {
    static let applicationId = "0377783c-3414-4bb1-a7d4-0c3eb54cd4b0"

    /// The look-alike's savings accounts: the demo's first two active goals.
    static var goalNames: [String] {
        get async {
            await DemoBackend(now: fixedNow).goals().filter { $0.status == .active }.prefix(2).map(\.name)
        }
    }

    /// What one test works with: the look-alike, its URL, the key file, folders and a clock both sides read.
    struct World {
        let handler: EnableBankingDemoAPI
        let base: URL
        let keyPath: String
        let key: EnableBankingKey
        let environment: [String: String]
        let folder: URL
        let clock: Locked<Date>
        let goals: [String]

        var settings: [String: String] {
            ["application-id": EnableBankingServeTests.applicationId, "key-file": keyPath, "aspsp": EnableBankingDemoAPI.bankName,
             "country": "FI", "goals": goals.joined(separator: "; "), "refresh-after": "1h"]
        }

        func request(headless: Bool = false, force: Bool = false, log: RequestLog? = nil, settings extra: [String: String] = [:],
                     token: String = EnableBankingStart.keptMarker) -> BankRequest {
            var request = BankRequest(baseURL: base, token: token, allowInsecureHTTP: false, log: log,
                                      settings: settings.merging(extra) { $1 })
            request.headless = headless
            request.force = force
            request.cacheDirectory = folder.appendingPathComponent("cache")
            request.cacheDirectoryGiven = true
            return request
        }

        func connect(headless: Bool = false, force: Bool = false, log: RequestLog? = nil,
                     settings extra: [String: String] = [:]) async throws(APIError) -> EnableBankingAPI {
            let clock = self.clock
            return try await EnableBankingStart.connect(request(headless: headless, force: force, log: log, settings: extra),
                                                        environment: environment, now: { clock.withLock { $0 } })
        }

        func client(log: RequestLog? = nil) -> EnableBankingClient {
            let clock = self.clock
            return EnableBankingClient(baseURL: base, signer: EnableBankingSigner(key: key, applicationId: EnableBankingServeTests.applicationId,
                                                                                  now: { clock.withLock { $0 } }), log: log)
        }

        /// A sign-in as `login enablebanking` makes it: `POST /auth`, the bank's page followed
        /// like a browser (302 to the redirect URL), the code exchanged and recorded.
        func signIn(log: RequestLog? = nil) async throws -> EnableBankingSessionRecord {
            let clock = self.clock
            let signIn = EnableBankingSignIn(client: client(log: log), applicationId: EnableBankingServeTests.applicationId,
                                             sessionFile: EnableBankingSessionFile(fileURL: EnableBankingSessionFile.defaultFile(environment: environment)),
                                             now: { clock.withLock { $0 } })
            let state = EnableBankingSignIn.newState()
            let page = try await signIn.start(aspsp: EnableBankingDemoAPI.bankName, country: "FI", psuType: "personal",
                                              redirectURL: "http://127.0.0.1:8765/callback", days: 90, state: state)
            let browser = HTTPTransport(baseURL: base, token: nil, followsRedirects: false)
            let answer = try await browser.answer("GET", absolute: page, label: "the bank's page")
            #expect(answer.status == 302)
            let location = try #require(answer.header("Location"))
            #expect(location.hasPrefix("http://127.0.0.1:8765/callback?"))
            // Another state is not this sign-in's.
            #expect(EnableBankingSignIn.callback(location, state: state + "x") == .foreign)
            guard case .code(let code) = EnableBankingSignIn.callback(location, state: state) else {
                Issue.record("no code in \(location)")
                throw CancellationError()
            }
            return try await signIn.finish(code: code, aspsp: EnableBankingDemoAPI.bankName, country: "FI")
        }
    }

    static func withWorld(pageSize: Int = 7, budget: Int = 4, sessionSeconds: Double? = nil, authError: Bool = false,
                          maximumConsentSeconds: Int = 180 * 86_400, _ body: (World) async throws -> Void) async throws {
        let clock = Locked(fixedNow)
        let key = try EnableBankingKey.generate()
        let handler = try EnableBankingDemoAPI(backend: DemoBackend(now: fixedNow), publicKeyPEM: key.publicKeyPEM, applicationId: applicationId,
                                               budget: budget, pageSize: pageSize, sessionSeconds: sessionSeconds, authError: authError,
                                               maximumConsentSeconds: maximumConsentSeconds, clock: { clock.withLock { $0 } })
        let server = try DemoHTTPServer(handler: handler)
        try await server.start()
        let base = await server.baseURL
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("enablebanking-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let keyPath = folder.appendingPathComponent("app.pem").path
        #expect(EnableBankingFiles.writePrivate(Data(key.privateKeyPEM.utf8), to: URL(fileURLWithPath: keyPath)))
        let environment = ["XDG_CONFIG_HOME": folder.appendingPathComponent("config").path,
                           "XDG_CACHE_HOME": folder.appendingPathComponent("cache").path, "HOME": folder.path]
        defer { try? FileManager.default.removeItem(at: folder) }
        let world = World(handler: handler, base: base, keyPath: keyPath, key: key, environment: environment, folder: folder, clock: clock,
                          goals: await goalNames)
        do {
            try await body(world)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Everything a start of the app asks for at once.
    static func look(_ api: EnableBankingAPI) async throws {
        _ = try await api.account()
        _ = try await api.goals()
        _ = try await api.activities(from: fixedNow.addingTimeInterval(-400 * 86_400), to: fixedNow.addingTimeInterval(86_400))
        _ = try await api.transactions(from: fixedNow.addingTimeInterval(-7 * 86_400), to: fixedNow.addingTimeInterval(1))
    }

    @Test func signInThenTheWholeAppOnItsData() async throws {
        try await Self.withWorld { world in
            let record = try await world.signIn()
            #expect(record.accounts.count == 4 && record.aspsp == EnableBankingDemoAPI.bankName)
            let api = try await world.connect()
            let account = try #require(try await api.account())
            #expect(account.name == "Everyday Account")
            #expect(account.holder == "Everyday Account · Mock ASPSP · 90 days left")
            #expect(account.summary.hasPrefix("Everyday Account · Mock ASPSP · 90 days left · ••0785"))
            let goals = try await api.goals()
            #expect(goals.map { $0.name.components(separatedBy: " ••").first ?? "" } == world.goals)
            #expect(goals.count == 2 && goals.allSatisfy { $0.balance.minorUnits > 0 })
            let page = try await api.activities(from: fixedNow.addingTimeInterval(-400 * 86_400), to: fixedNow.addingTimeInterval(86_400))
            // Every row once across pages (page size 7) and accounts; the JPY card's rows in yen.
            #expect(page.activities.count > 100)
            #expect(Set(page.activities.map(\.id)).count == page.activities.count)
            #expect(page.activities.contains { $0.amount.currency == .jpy })
            #expect(page.activities.contains { $0.kind == .moveToGoal })
            #expect(page.activities.contains { $0.message.plainText.hasSuffix("(pending) · Everyday Account") })
            // Read-only: nothing is written to the bank.
            await #expect(throws: APIError.self) { try await api.createGoal(name: "x", target: nil) }
        }
    }

    /// `goals = "Baloons; Dog"` showed Dog alone and Balloons became a spending account with no
    /// word: the status bar now names the entry that matches nothing, with the accounts.
    @Test func aGoalNameThatMatchesNoAccountIsSaidInTheStatusBar() async throws {
        try await Self.withWorld { world in
            _ = try await world.signIn()
            let api = try await world.connect(settings: ["goals": "Baloons; Dog", "spending": "Everyday Account; Travle Card"])
            #expect(try await api.goals().map { $0.name.components(separatedBy: " ••").first ?? "" } == ["Dog"])
            let note = try #require(api.statusNote)
            #expect(note.contains("[enablebanking] goals \"Baloons\" and spending \"Travle Card\" name no account in "), "\(note)")
            #expect(note.hasSuffix("(accounts: Everyday Account, Balloons, Dog, Travel Card)"), "\(note)")
            #expect(!note.contains("No goals: add"))
            // Spelt right: nothing to say.
            #expect(try await world.connect().statusNote == nil)
        }
    }

    /// The pending rows of a first read are booked on the next, never kept twice.
    @Test func pendingRowsAreReplacedByBookedOnTheNextRead() async throws {
        try await Self.withWorld { world in
            _ = try await world.signIn()
            let api = try await world.connect()
            let everyday = try #require(api.store.accounts.first)
            #expect(!everyday.pending.isEmpty)
            let total = everyday.booked.count + everyday.pending.count
            api.userAskedToRefresh()
            try await Self.look(api)
            let after = try #require(api.store.accounts.first)
            #expect(after.pending.isEmpty && after.booked.count == total)
            #expect(Set(after.booked.map(\.id)).count == after.booked.count)
        }
    }

    /// A token changed after signing, or signed by another key, is refused by the look-alike.
    @Test func aTamperedTokenIsRefused() async throws {
        try await Self.withWorld { world in
            let signer = EnableBankingSigner(key: world.key, applicationId: Self.applicationId, now: { fixedNow })
            let good = try signer.authorization(token: nil)
            struct Fixed: RequestSigner { let value: String; func authorization(token: String?) throws -> String { value } }
            func status(_ authorization: String) async throws -> Int {
                let transport = HTTPTransport(baseURL: world.base, token: nil, scheme: .signed(Fixed(value: authorization)))
                let answer = try await transport.answer("GET", "/application", label: "GET /application")
                return answer.status
            }
            #expect(try await status(good) == 200)
            var parts = good.split(separator: ".").map(String.init)
            parts[1] = EnableBankingJWT.base64URL(Data(#"{"iss":"enablebanking.com","aud":"api.enablebanking.com","iat":1795000000,"exp":1795086000}"#.utf8))
            #expect(try await status(parts.joined(separator: ".")) == 401)
            let other = EnableBankingSigner(key: try EnableBankingKey.generate(), applicationId: Self.applicationId, now: { fixedNow })
            #expect(try await status(try other.authorization(token: nil)) == 401)
            #expect(await world.handler.refusedTokens == 2)
        }
    }

    /// `--public-key FILE --application-id ID`: the user's own key checks the JWTs, nothing is
    /// written; without them the pair made goes to `--key-out` (0600).
    @Test func theLookAlikeTakesTheUsersPublicKeyOrWritesItsOwn() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("eb-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["HOME": folder.path, "XDG_CONFIG_HOME": folder.appendingPathComponent("config").path]
        let key = try EnableBankingKey.generate()
        let publicPath = folder.appendingPathComponent("public.pem")
        try Data(key.publicKeyPEM.utf8).write(to: publicPath)
        var flags = ServeFlags()
        flags.publicKeyFile = publicPath.path
        flags.applicationId = "11111111-2222-4333-8444-555555555555"
        let handler = EnableBankingStart.lookAlike(backend: DemoBackend(now: Date()), flags: flags, environment: environment)
        func status(_ applicationId: String, _ signing: EnableBankingKey) async throws -> Int {
            let token = try EnableBankingJWT.token(key: signing, applicationId: applicationId, issuedAt: Int64(Date().timeIntervalSince1970))
            return await handler.handle(ServeRequest(method: "GET", path: "/application", headers: ["Authorization": "Bearer " + token])).status
        }
        #expect(try await status("11111111-2222-4333-8444-555555555555", key) == 200)
        #expect(try await status(Self.applicationId, key) == 401)
        #expect(try await status("11111111-2222-4333-8444-555555555555", try EnableBankingKey.generate()) == 401)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("config/qapital-tui/enablebanking-demo-key.pem").path))

        var own = ServeFlags()
        own.keyOut = folder.appendingPathComponent("made.pem").path
        let made = EnableBankingStart.lookAlike(backend: DemoBackend(now: Date()), flags: own, environment: environment)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("made.pem").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let written = try EnableBankingKey.read(path: folder.appendingPathComponent("made.pem").path)
        let token = try EnableBankingJWT.token(key: written, applicationId: EnableBankingStart.demoApplicationId,
                                               issuedAt: Int64(Date().timeIntervalSince1970))
        #expect(await made.handle(ServeRequest(method: "GET", path: "/application", headers: ["Authorization": "Bearer " + token])).status == 200)
    }

    /// Four reads a day per account, counted in one file by every process: the fifth headless
    /// start refuses in one line and sends nothing; `--force` reads, and the bank's 429 marks
    /// the account without losing what is kept.
    @Test func theBudgetHoldsAcrossProcesses() async throws {
        try await Self.withWorld { world in
            _ = try await world.signIn()
            // Four runs, each its own API over the same files, as four processes would be.
            for _ in 0..<4 {
                _ = try await world.connect(headless: true, settings: ["refresh-after": "0s"])
            }
            do throws(APIError) {
                _ = try await world.connect(headless: true, settings: ["refresh-after": "0s"])
                Issue.record("a fifth unattended read went out")
            } catch {
                #expect(error.message == "4 of 4 reads of Everyday Account used today: --force reads anyway")
                #expect(error.request == EnableBankingBudget.label)
            }
            // Forced: the look-alike (four unattended reads too) answers 429; the cache stays.
            let forced = try await world.connect(headless: false, force: true, settings: ["refresh-after": "0s"])
            #expect(forced.budget.note == "4 of 4 reads today")
            #expect(!forced.store.accounts[0].booked.isEmpty)
            // A day later the count has rolled over.
            world.clock.withLock { $0 = $0.addingTimeInterval(86_401) }
            let later = try await world.connect(headless: true, settings: ["refresh-after": "0s"])
            #expect(later.budget.usedToday(later.store.accounts[0].account.key) == 1)
        }
    }

    @Test func aBankLimitMarksTheAccountAndTheRestGoOn() async throws {
        try await Self.withWorld(budget: 1) { world in
            _ = try await world.signIn()
            _ = try await world.connect(headless: true, settings: ["refresh-after": "0s"])
            let api = try await world.connect(headless: false, force: true, settings: ["refresh-after": "0s"])
            // PSU headers went with the app's read: the look-alike did not count it.
            #expect(api.store.accounts.allSatisfy { $0.problem == nil })
            // The bank's 429 to a headless command: its answer is the refusal in the bank's words
            // (exit 1), not old data; that account is marked, what is kept stays, and nothing more
            // is read for a command that cannot answer.
            do throws(APIError) {
                _ = try await world.connect(headless: true, force: true, settings: ["refresh-after": "0s"])
                Issue.record("a headless command past the bank's limit answered with old data")
            } catch {
                #expect(error.request == EnableBankingAPI.bankLimitLabel)
                #expect(error.message.contains("the bank's daily limit of reads is used up (ASPSP_RATE_LIMIT_EXCEEDED)"))
            }
            // Marked: the next forced read sends nothing to it until the count rolls over; the app
            // shows its cache and reads the rest (with PSU headers: the look-alike lets them go).
            let again = try await world.connect(headless: false, force: true, settings: ["refresh-after": "0s"])
            #expect(again.statusNote?.contains("used up until") == true)
            #expect(again.store.accounts.first?.problem == "the bank's daily limit is used up")
            #expect(again.store.accounts.dropFirst().allSatisfy { $0.problem == nil })
            #expect(!again.store.accounts[0].booked.isEmpty)
        }
    }

    /// Past `valid_until` nothing is sent: headless exits with the way out; the app shows what
    /// is kept, marked. An early `EXPIRED_SESSION` is recorded the same way.
    @Test func theConsentsEnd() async throws {
        try await Self.withWorld { world in
            let record = try await world.signIn()
            _ = try await world.connect()
            // Twelve days before: warned. At `valid_until`: ended, nothing sent.
            let end = try #require(record.validUntilDate)
            #expect(end == fixedNow.addingTimeInterval(90 * 86_400))
            // A part of a day counts as one: 12 days less a minute is 12 days.
            world.clock.withLock { $0 = end.addingTimeInterval(-12 * 86_400 + 60) }
            let warned = try await world.connect(settings: ["refresh-after": "1000d"])
            #expect(warned.statusNote?.contains("The consent with Mock ASPSP ends in 12 days: press L or run qapital-tui login enablebanking") == true)
            #expect(try await warned.account()?.holder?.hasSuffix("Mock ASPSP · 12 days left") == true)
            world.clock.withLock { $0 = end.addingTimeInterval(-1) }
            #expect(try await world.connect(settings: ["refresh-after": "1000d"]).statusNote?.contains("ends in 1 day:") == true)
            world.clock.withLock { $0 = end }
            do throws(APIError) {
                _ = try await world.connect(headless: true)
                Issue.record("a read went out past the consent")
            } catch {
                #expect(error.kind == .unauthorized)
                #expect(error.message.contains("consent ended") && error.message.contains("login enablebanking"))
            }
            let app = try await world.connect()
            #expect(try await app.account()?.holder?.hasSuffix("· consent ended \(EnableBankingAPI.Session.day(end))") == true)
            #expect(app.statusNote?.contains("consent ended") == true)
            #expect(try await app.activities(from: fixedNow.addingTimeInterval(-30 * 86_400), to: end).activities.isEmpty == false)
        }
    }

    @Test func anEarlyEndAtTheBankIsRecorded() async throws {
        try await Self.withWorld(sessionSeconds: 3_600) { world in
            let record = try await world.signIn()
            _ = try await world.connect()
            // The bank ends the session before the consent said (the look-alike's session lasts an hour).
            world.clock.withLock { $0 = $0.addingTimeInterval(7_200) }
            let sessionFile = EnableBankingSessionFile(fileURL: EnableBankingSessionFile.defaultFile(environment: world.environment))
            do throws(APIError) {
                _ = try await world.connect(headless: true, settings: ["refresh-after": "0s"])
                Issue.record("the early end was not said")
            } catch {
                #expect(error.kind == .unauthorized && error.message.contains("EXPIRED_SESSION"))
            }
            let kept = try #require(sessionFile.record(for: record.fingerprint))
            #expect(kept.endedEarly == "EXPIRED_SESSION" && kept.sessionId == record.sessionId)
            // From then on nothing is sent: the app shows what is kept, marked.
            let app = try await world.connect()
            #expect(app.statusNote?.contains("consent ended") == true)
        }
    }

    /// The key, the JWT and the session id are in no file written but the session record (the
    /// id only), in no log line and no message.
    @Test func secretsStayOut() async throws {
        try await Self.withWorld { world in
            let logFile = world.folder.appendingPathComponent("log.txt")
            let log = try RequestLog(path: logFile.path)
            let record = try await world.signIn(log: log)
            let api = try await world.connect(log: log)
            for _ in 0..<6 {
                api.userAskedToRefresh()
                try await Self.look(api)
            }
            var messages = [api.statusNote ?? "", "\(api.client.transport.scheme)"]
            do throws(APIError) {
                _ = try await world.connect(headless: true, log: log, settings: ["refresh-after": "0s"])
            } catch {
                messages.append(error.message)
            }
            let signer = EnableBankingSigner(key: world.key, applicationId: Self.applicationId, now: { fixedNow })
            let jwt = String(try signer.authorization(token: nil).dropFirst("Bearer ".count))
            let keyBody = world.key.privateKeyPEM.split(separator: "\n")[1...3].map(String.init)
            let sessionPath = EnableBankingSessionFile.defaultFile(environment: world.environment).standardizedFileURL.path
            var read = 0
            for file in regularFiles(under: world.folder) where file.standardizedFileURL.path != world.keyPath {
                guard let data = try? Data(contentsOf: file), !data.isEmpty else { continue }
                read += 1
                let text = String(decoding: data, as: UTF8.self)
                for line in keyBody { #expect(!text.contains(line), "\(file.lastPathComponent)") }
                #expect(!text.contains(jwt.prefix(60)), "\(file.lastPathComponent)")
                #expect(!text.contains("eyJ0eXAiOiJKV1Qi"), "\(file.lastPathComponent)")
                if file.standardizedFileURL.path != sessionPath {
                    #expect(!text.contains(record.sessionId), "\(file.lastPathComponent)")
                }
                // Every file written is the user's alone.
                let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
                #expect(mode.map { $0 & 0o077 == 0 } ?? false, "\(file.lastPathComponent)")
            }
            #expect(read >= 4)   // the log, the session record, the store, the read count
            let logText = try String(contentsOf: logFile, encoding: .utf8)
            #expect(logText.contains("POST /sessions") && logText.contains("GET /accounts/"))
            for message in messages {
                #expect(!message.contains(record.sessionId) && !message.contains("eyJ0eXAiOiJKV1Qi"))
            }
        }
    }

    /// `--token` is refused: the credential is the key; a key others may read sends nothing.
    @Test func aTokenOrAnOpenKeyIsRefused() async throws {
        try await Self.withWorld { world in
            _ = try await world.signIn()
            do throws(APIError) {
                _ = try await EnableBankingStart.connect(world.request(token: "abc"), environment: world.environment)
                Issue.record("a token was taken")
            } catch {
                #expect(error.message.contains("takes no token"))
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: world.keyPath)
            do throws(APIError) {
                _ = try await world.connect()
                Issue.record("an open key was used")
            } catch {
                #expect(error.message == "the Enable Banking key file \(world.keyPath) may be read by others: run chmod 600 \(world.keyPath)")
            }
        }
    }

    @Test func aRefusedConsentAtTheBankComesBackAsAnError() async throws {
        try await Self.withWorld(authError: true) { world in
            let signIn = EnableBankingSignIn(client: world.client(), applicationId: Self.applicationId,
                                             sessionFile: EnableBankingSessionFile(fileURL: EnableBankingSessionFile.defaultFile(environment: world.environment)))
            let state = EnableBankingSignIn.newState()
            let page = try await signIn.start(aspsp: EnableBankingDemoAPI.bankName, country: "FI", psuType: "personal",
                                              redirectURL: "http://127.0.0.1:8765/callback", days: 90, state: state)
            let answer = try await HTTPTransport(baseURL: world.base, token: nil, followsRedirects: false).answer("GET", absolute: page, label: "page")
            #expect(EnableBankingSignIn.callback(try #require(answer.header("Location")), state: state) == .refused("access_denied: The user cancelled"))
        }
    }

    // MARK: - login enablebanking

    /// What a login printed and noted, and what the user types.
    final class Lines: Sendable {
        let said = Locked<[String]>([])
        let noted = Locked<[String]>([])
        /// Every line said, as it is said.
        let stream: AsyncStream<String>
        private let continuation: AsyncStream<String>.Continuation
        let keyboard: Keyboard

        init(input: [String] = []) {
            (stream, continuation) = AsyncStream<String>.makeStream()
            keyboard = Keyboard(lines: input, ended: !input.isEmpty)
        }

        /// The address the login printed (the line after "Open this address…").
        func address() async throws -> URL {
            for await line in stream where line.hasPrefix("http") { return try #require(URL(string: line)) }
            throw CancellationError()
        }

        func request(_ world: World, paste: Bool, options: [String: String] = [:], timeout: TimeInterval = 60,
                     open: @escaping @Sendable (URL) -> Void = { _ in }) -> ConsentSignInRequest {
            ConsentSignInRequest(apiURL: world.base, settings: world.settings, environment: world.environment, allowInsecureHTTP: false,
                                 options: options, paste: paste, timeout: timeout, open: open,
                                 say: { line in
                                     self.said.withLock { $0.append(line) }
                                     self.continuation.yield(line)
                                 },
                                 note: { line in self.noted.withLock { $0.append(line) } },
                                 readLine: { await self.keyboard.next() })
        }
    }

    /// Standard input in a test: lines as they are typed, a reader waiting for the next.
    actor Keyboard {
        private var lines: [String]
        private var ended: Bool
        private var waiting: [CheckedContinuation<String?, Never>] = []

        init(lines: [String], ended: Bool) {
            self.lines = lines
            self.ended = ended
        }

        func type(_ typed: [String]) {
            lines += typed
            while !waiting.isEmpty, !lines.isEmpty { waiting.removeFirst().resume(returning: lines.removeFirst()) }
        }

        func next() async -> String? {
            if !lines.isEmpty { return lines.removeFirst() }
            if ended { return nil }
            return await withCheckedContinuation { waiting.append($0) }
        }
    }

    /// The bank's page followed like a browser: where it sends the browser back.
    static func bankRedirect(_ world: World, _ page: URL) async throws -> String {
        let answer = try await HTTPTransport(baseURL: world.base, token: nil, followsRedirects: false).answer("GET", absolute: page, label: "page")
        return try #require(answer.header("Location"))
    }

    /// `--paste`: a foreign address is refused and asked again, this sign-in's is taken; the
    /// session is recorded, the accounts read once, the summary printed.
    @Test func loginWithPaste() async throws {
        try await Self.withWorld { world in
            // The address is printed before anything is read: the pasted lines are made from it.
            let lines = Lines()
            let task = Task {
                try await EnableBankingLogin.run(lines.request(world, paste: true), now: { world.clock.withLock { $0 } })
            }
            let location = try await Self.bankRedirect(world, try await lines.address())
            let forged = location.replacingOccurrences(of: "state=", with: "state=x")
            await lines.keyboard.type(["", forged, location])
            try await task.value
            let said = lines.said.withLock { $0 }
            #expect(said[0] == "Open this address in a browser to sign in at Mock ASPSP:")
            #expect(said.contains { $0.hasPrefix("signed in at Mock ASPSP (FI): 4 accounts, consent until ") && $0.hasSuffix("(180 days)") })
            #expect(said.contains("  Everyday Account ••0785 · USD · CACC"))
            #expect(lines.noted.withLock { $0 }.contains("refused: not from this sign-in; paste the address of this sign-in"))
            // Recorded, and read once with the user present.
            let api = try await world.connect()
            #expect(api.store.accounts.allSatisfy { $0.lastRead != nil })
            #expect(api.budget.usedToday(api.store.accounts[0].account.key) == 1)
        }
    }

    /// The bank's `maximum_consent_validity` caps `--days`: a bank that allows 30 days gets a
    /// consent of 30 days, said as such right after the sign-in (a part of a day counts as one).
    @Test func theBanksMaximumConsentCapsTheDaysAsked() async throws {
        try await Self.withWorld(maximumConsentSeconds: 30 * 86_400) { world in
            let lines = Lines()
            // A clock with a fraction of a second: `valid_until` is whole seconds, so a little under 30 days.
            world.clock.withLock { $0 = fixedNow.addingTimeInterval(0.4) }
            let task = Task {
                try await EnableBankingLogin.run(lines.request(world, paste: true, options: ["days": "90"]), now: { world.clock.withLock { $0 } })
            }
            let location = try await Self.bankRedirect(world, try await lines.address())
            await lines.keyboard.type([location])
            try await task.value
            #expect(lines.said.withLock { $0 }.contains { $0.hasPrefix("signed in at Mock ASPSP (FI): 4 accounts, consent until ") && $0.hasSuffix("(30 days)") },
                    "\(lines.said.withLock { $0 })")
            let record = try #require(EnableBankingSessionFile(fileURL: EnableBankingSessionFile.defaultFile(environment: world.environment))
                .newest(origin: EnableBankingFiles.origin(world.base), applicationId: Self.applicationId, aspsp: nil, country: nil))
            let end = try #require(record.validUntilDate)
            #expect(end <= fixedNow.addingTimeInterval(30 * 86_400 + 1) && end > fixedNow.addingTimeInterval(29 * 86_400))
        }
    }

    /// A redirect URL the application did not register: `POST /auth` is refused with
    /// `REDIRECT_URI_NOT_ALLOWED` and the way out; the application lists the ones it has.
    @Test func anUnregisteredRedirectIsRefused() async throws {
        try await Self.withWorld { world in
            let application = try await world.client().application()
            #expect(application.redirectURLs == EnableBankingDemoAPI.registeredRedirects && application.active)
            let lines = Lines()
            do {
                try await EnableBankingLogin.run(lines.request(world, paste: true, options: ["redirect-url": "https://example.org/back"]),
                                                 now: { world.clock.withLock { $0 } })
                Issue.record("an unregistered redirect was taken")
            } catch let error as APIError {
                #expect(error.message.contains("(REDIRECT_URI_NOT_ALLOWED)") && error.message.contains("--redirect-url"), "\(error.message)")
            }
            #expect(!lines.said.withLock { $0 }.contains { $0.hasPrefix("Open this address") })
        }
    }

    @Test func loginWithPasteEndsWithItsInput() async throws {
        try await Self.withWorld { world in
            let lines = Lines(input: ["http://127.0.0.1:8765/callback?code=abc&state=not-this-one"])
            await #expect(throws: APIError.self) {
                try await EnableBankingLogin.run(lines.request(world, paste: true), now: { world.clock.withLock { $0 } })
            }
            #expect(EnableBankingSessionFile(fileURL: EnableBankingSessionFile.defaultFile(environment: world.environment))
                .newest(origin: EnableBankingFiles.origin(world.base), applicationId: Self.applicationId, aspsp: nil, country: nil) == nil)
        }
    }

    /// The loopback redirect: the listener is up before the address is printed; a return with
    /// another state gets 400 and the wait goes on; this sign-in's code ends it.
    @Test func loginThroughTheLoopbackRedirect() async throws {
        try await Self.withWorld { world in
            let port = Int.random(in: 20_000...60_000)
            let redirect = "http://127.0.0.1:\(port)/callback"
            await world.handler.register(redirect: redirect)
            let lines = Lines()
            let browser = Locked<Task<[Int], Error>?>(nil)
            let request = lines.request(world, paste: false, options: ["redirect-url": redirect]) { page in
                // The browser: the bank's page, then back to the listener, first with another state.
                browser.withLock { $0 = Task {
                    let location = try await Self.bankRedirect(world, page)
                    let listener = HTTPTransport(baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: nil, followsRedirects: false)
                    let forged = try await listener.answer("GET", absolute: URL(string: location.replacingOccurrences(of: "state=", with: "state=x"))!,
                                                           label: "forged")
                    let right = try await listener.answer("GET", absolute: URL(string: location)!, label: "right")
                    return [forged.status, right.status]
                } }
            }
            try await EnableBankingLogin.run(request, now: { world.clock.withLock { $0 } })
            #expect(lines.said.withLock { $0 }.contains { $0.hasPrefix("signed in at Mock ASPSP (FI): 4 accounts") })
            #expect(lines.noted.withLock { $0 }.contains("refused a return that is not from this sign-in"))
            #expect(try await browser.withLock { $0 }?.value == [400, 200])
            _ = try await world.connect()
        }
    }

    /// The bank's refusal comes back on the redirect: said, nothing recorded.
    @Test func loginRefusedAtTheBank() async throws {
        try await Self.withWorld(authError: true) { world in
            let lines = Lines()
            let task = Task {
                try await EnableBankingLogin.run(lines.request(world, paste: true), now: { world.clock.withLock { $0 } })
            }
            let location = try await Self.bankRedirect(world, try await lines.address())
            await lines.keyboard.type([location])
            do {
                try await task.value
                Issue.record("signed in without a code")
            } catch let error as APIError {
                #expect(error.message == "Mock ASPSP did not give access: access_denied: The user cancelled")
            }
        }
    }

    /// `logout enablebanking`: the consent closed at the bank, its record and cache removed; a
    /// second logout has nothing to do.
    @Test func logoutClosesTheConsentAndRemovesWhatWasKept() async throws {
        try await Self.withWorld { world in
            let record = try await world.signIn()
            let cache = world.folder.appendingPathComponent("cache/qapital-tui")
            // The default cache folder ($XDG_CACHE_HOME) is where logout looks: read there once.
            _ = try await EnableBankingStart.connect(BankRequest(baseURL: world.base, token: EnableBankingStart.keptMarker, allowInsecureHTTP: false,
                                                                 log: nil, settings: world.settings),
                                                     environment: world.environment, now: { world.clock.withLock { $0 } })
            let data = cache.appendingPathComponent("enablebanking-data-\(record.fingerprint).json")
            #expect(FileManager.default.fileExists(atPath: data.path))
            let lines = Lines()
            try await EnableBankingLogin.end(lines.request(world, paste: false), now: { world.clock.withLock { $0 } })
            #expect(lines.said.withLock { $0 } == ["signed out of Mock ASPSP (FI): the consent is closed, its record and cache removed"])
            let sessionFile = EnableBankingSessionFile(fileURL: EnableBankingSessionFile.defaultFile(environment: world.environment))
            #expect(sessionFile.record(for: record.fingerprint) == nil)
            #expect(!FileManager.default.fileExists(atPath: data.path))
            // Closed at the bank: its accounts answer CLOSED_SESSION.
            let answer = try await world.client().transport.answer("GET", "/accounts/\(record.accounts[0].uid)/balances", label: "balances")
            #expect(answer.status == 401 && String(decoding: answer.body, as: UTF8.self).contains("CLOSED_SESSION"))
            let again = Lines()
            try await EnableBankingLogin.end(again.request(world, paste: false), now: { world.clock.withLock { $0 } })
            #expect(again.said.withLock { $0 } == ["no Enable Banking session is kept for this application: nothing to sign out of"])
        }
    }
}
