@testable import DemoServer
@testable import DemoData
@testable import SimpleFINClient
import FeedModel
import Foundation
@testable import SimpleFINSource
import HTTPTransport
import SourceKit
import Testing
import TestSupport

/// The SimpleFIN client and start against `serve --api simplefin` over loopback: the claim, the
/// kept access URL, the requests a session makes, the budget, and where secrets never go.
@Suite(.timeLimit(.minutes(1))) struct SimpleFINServeTests {
    static let goals = ["Vacation", "Emergency fund", "Bike"]

    /// A server, its setup token, and fresh config and cache folders.
    static func withServer(budget: Int = SimpleFINDemoAPI.defaultBudget, versionOne: Bool = false, clock: @escaping @Sendable () -> Date = { fixedNow },
                           _ body: (SimpleFINDemoAPI, String, [String: String], URL) async throws -> Void) async throws {
        let handler = SimpleFINDemoAPI(backend: DemoBackend(now: fixedNow), budget: budget, versionOne: versionOne, clock: clock)
        let server = try DemoHTTPServer(handler: handler)
        try await server.start()
        let base = await server.baseURL.absoluteString
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simplefin-\(UUID().uuidString)")
        let environment = ["XDG_CONFIG_HOME": folder.appendingPathComponent("config").path,
                           "XDG_CACHE_HOME": folder.appendingPathComponent("cache").path, "HOME": folder.path]
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try await body(handler, SimpleFINDemoAPI.setupToken(baseURL: base), environment, folder)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    static func request(_ token: String, log: RequestLog? = nil, headless: Bool = false, force: Bool = false,
                        settings: [String: String] = ["goals": goals.joined(separator: "; ")]) -> BankRequest {
        var request = BankRequest(baseURL: SimpleFINAPI.bridgeURL, token: token, allowInsecureHTTP: false, log: log, settings: settings)
        request.headless = headless
        request.force = force
        return request
    }

    /// Everything a start of the app asks for at once.
    static func look(_ api: SimpleFINAPI, now: Date = fixedNow) async throws {
        _ = try await api.account()
        _ = try await api.goals()
        _ = try await api.activities(from: now.addingTimeInterval(-14 * 86_400), to: now.addingTimeInterval(86_400))
        _ = try await api.transactions(from: now.addingTimeInterval(-7 * 86_400), to: now.addingTimeInterval(1))
    }

    @Test func theClaimHappensOnceAndIsKept() async throws {
        try await Self.withServer { handler, token, environment, folder in
            let api = try await SimpleFINStart.connect(Self.request(token), environment: environment, now: { fixedNow })
            #expect(await handler.claims == 1)
            #expect(api.access.root.absoluteString.hasSuffix("/simplefin"))
            // Kept at once, 0600 in a 0700 folder, with the token's hash.
            let file = SimpleFINAccessFile.defaultFile(environment: environment)
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let folderAttributes = try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)
            #expect((folderAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains(SimpleFINCredential.hash(ofSetupToken: token)) && !text.contains(token))
            // A restart with the same token: no second claim.
            _ = try await SimpleFINStart.connect(Self.request(token), environment: environment, now: { fixedNow })
            #expect(await handler.claims == 1)
            // And without a token: the kept access URL.
            let kept = try #require(RegisteredSource.simplefin.bank?.keptToken?(environment))
            _ = try await SimpleFINStart.connect(Self.request(kept), environment: environment, now: { fixedNow })
            #expect(await handler.claims == 1)
            // Another machine (no kept file) with the spent token: 403, "may be compromised".
            var elsewhere = environment
            elsewhere["XDG_CONFIG_HOME"] = folder.appendingPathComponent("other").path
            await #expect { try await SimpleFINStart.connect(Self.request(token), environment: elsewhere, now: { fixedNow }) } throws: { error in
                (error as? APIError)?.message.contains("may be compromised") == true
            }
            #expect(await handler.claims == 2)
        }
    }

    @Test func anotherOriginThanAPIURLsIsRefused() async throws {
        try await Self.withServer { handler, token, environment, _ in
            var request = Self.request(token)
            request.baseURL = URL(string: "https://bank.example.com/simplefin")!
            await #expect { try await SimpleFINStart.connect(request, environment: environment) } throws: { error in
                (error as? APIError)?.message.contains("not --api-url's https://bank.example.com") == true
            }
            #expect(await handler.claims == 0)
        }
    }

    /// A claim whose access URL cannot be written still opens this run, and says the token is spent.
    @Test func aClaimThatCannotBeKeptSaysSo() async throws {
        try await Self.withServer { handler, token, environment, folder in
            var blocked = environment
            let file = folder.appendingPathComponent("not-a-folder")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: file)
            blocked["XDG_CONFIG_HOME"] = file.path   // a file where the folder should be
            let api = try await SimpleFINStart.connect(Self.request(token), environment: blocked, now: { fixedNow })
            #expect(await handler.claims == 1)
            #expect(api.statusNote?.contains("the next start needs a new setup token") == true)
            #expect(api.statusNote?.contains(SimpleFINDemoAPI.password) == false)
        }
    }

    @Test func aTokenThatIsNotOneSendsNothing() async throws {
        try await Self.withServer { handler, _, environment, _ in
            for bad in ["not-a-token", Data("http://127.0.0.1:1/nothing".utf8).base64EncodedString(), "http://127.0.0.1:1/simplefin"] {
                await #expect(throws: APIError.self) { try await SimpleFINStart.connect(Self.request(bad), environment: environment) }
            }
            #expect(await handler.claims == 0)
            #expect(await handler.accountRequests == 0)
        }
    }

    /// Cold start: one request; a restart within the hour: none; `r`: one; a year back: five in all.
    @Test func requestCounts() async throws {
        try await Self.withServer { handler, token, environment, _ in
            let api = try await SimpleFINStart.connect(Self.request(token), environment: environment, now: { fixedNow })
            try await Self.look(api)
            try await Self.look(api)
            #expect(await handler.accountRequests == 1)
            #expect(api.requestsToday == 1)

            let later = fixedNow.addingTimeInterval(30 * 60)
            let restarted = try await SimpleFINStart.connect(Self.request(token), environment: environment, now: { later })
            try await Self.look(restarted, now: later)
            #expect(await handler.accountRequests == 1)

            restarted.userAskedToRefresh()
            try await Self.look(restarted, now: later)
            try await Self.look(restarted, now: later)
            #expect(await handler.accountRequests == 2)

            // A year of scrolling, two weeks at a time as the Activity tab pages.
            var to = later.addingTimeInterval(86_400)
            while to > later.addingTimeInterval(-365 * 86_400) {
                let from = to.addingTimeInterval(-14 * 86_400)
                _ = try await restarted.activities(from: from, to: to)
                to = from
            }
            #expect(await handler.accountRequests == 6)   // the cold start and `r`, then four older windows
            #expect(restarted.requestsToday == 6)
            // Over an hour later, a start asks again, once.
            let hourLater = fixedNow.addingTimeInterval(2 * 3_600)
            let third = try await SimpleFINStart.connect(Self.request(token), environment: environment, now: { hourLater })
            try await Self.look(third, now: hourLater)
            #expect(await handler.accountRequests == 7)
        }
    }

    /// `--cache-dir` holds the store and the count; `--no-cache` keeps no store, but the count
    /// still goes to the default folder (the budget holds across runs).
    @Test func theCacheFolderIsTheRunsOwn() async throws {
        try await Self.withServer { _, token, environment, folder in
            let given = folder.appendingPathComponent("given")
            var request = Self.request(token)
            request.cacheDirectory = given
            request.cacheDirectoryGiven = true
            let api = try await SimpleFINStart.connect(request, environment: environment, now: { fixedNow })
            let names = try FileManager.default.contentsOfDirectory(atPath: given.path).sorted()
            // The count's lock beside it: another process counts in the same file.
            #expect(names == ["simplefin-data-\(api.access.fingerprint).json", "simplefin-requests-\(api.access.fingerprint).json",
                              "simplefin-requests-\(api.access.fingerprint).lock"])
            var none = Self.request(token)
            none.cacheDirectory = nil
            none.cacheDirectoryGiven = true
            let later = fixedNow.addingTimeInterval(2 * 3_600)
            _ = try await SimpleFINStart.connect(none, environment: environment, now: { later })
            let standard = folder.appendingPathComponent("cache/qapital-tui")
            #expect(try FileManager.default.contentsOfDirectory(atPath: standard.path).sorted()
                == ["simplefin-requests-\(api.access.fingerprint).json", "simplefin-requests-\(api.access.fingerprint).lock"])
        }
    }

    /// Everything the app asks at once after `r` shares one request.
    @Test func oneRequestInFlight() async throws {
        try await Self.withServer { handler, token, environment, _ in
            let api = try await SimpleFINStart.connect(Self.request(token), environment: environment, now: { fixedNow })
            api.userAskedToRefresh()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<6 { group.addTask { try await Self.look(api) } }
                try await group.waitForAll()
            }
            #expect(await handler.accountRequests == 2)
        }
    }

    @Test func theWholeHistoryEndsWithAnEmptyWindow() async throws {
        try await Self.withServer { handler, token, environment, _ in
            let api = try await SimpleFINStart.connect(Self.request(token), environment: environment, now: { fixedNow })
            let page = try await api.activities(from: fixedNow.addingTimeInterval(-1_000 * 86_400), to: fixedNow)
            #expect(page.oldest > fixedNow.addingTimeInterval(-1_000 * 86_400))
            // The demo's payments and savings go back about 540 days: the newest window, five older
            // ones with rows, and one (540–630 days back) with nothing, which ends the walk.
            let walked = await handler.accountRequests
            #expect(walked == 7, "\(walked)")
            _ = try await api.activities(from: fixedNow.addingTimeInterval(-2_000 * 86_400), to: fixedNow)
            #expect(await handler.accountRequests == 7)
        }
    }

    @Test func theBridgesWarningStopsTheSession() async throws {
        try await Self.withServer(budget: 2) { handler, token, environment, _ in
            let api = try await SimpleFINStart.connect(Self.request(token), environment: environment, now: { fixedNow })
            for _ in 0..<4 {
                api.userAskedToRefresh()
                try await Self.look(api)
            }
            // Request 3 carried the warning: nothing after it.
            #expect(await handler.accountRequests == 3)
            #expect(api.statusNote?.contains("SimpleFIN warned") == true)
            #expect(api.budget.stopReason != nil)
        }
    }

    @Test func pastTwentyFourADayAsksFirst() async throws {
        try await Self.withServer(budget: 100) { handler, token, environment, _ in
            let api = try await SimpleFINStart.connect(Self.request(token), environment: environment, now: { fixedNow })
            for _ in 1..<SimpleFINBudget.daily {
                api.userAskedToRefresh()
                try await Self.look(api)
            }
            #expect(await handler.accountRequests == SimpleFINBudget.daily)
            #expect(api.statusNote?.contains("0 of SimpleFIN's 24 daily requests left") == true)
            // `r` past the budget: the question, no request.
            api.userAskedToRefresh()
            try await Self.look(api)
            #expect(await handler.accountRequests == SimpleFINBudget.daily)
            #expect(api.statusNote?.contains("press r again") == true)
            // `r` again is the yes: one request, then the question again.
            api.userAskedToRefresh()
            try await Self.look(api)
            #expect(await handler.accountRequests == SimpleFINBudget.daily + 1)
            api.userAskedToRefresh()
            try await Self.look(api)
            #expect(await handler.accountRequests == SimpleFINBudget.daily + 1)
            // Headless: a refusal without --force (nothing kept is old enough to answer from), a request with it.
            let later = fixedNow.addingTimeInterval(2 * 3_600)
            await #expect { try await SimpleFINStart.connect(Self.request(token, headless: true), environment: environment, now: { later })
                .account() } throws: { error in (error as? APIError)?.message.contains("--force") == true }
            _ = try await SimpleFINStart.connect(Self.request(token, headless: true, force: true), environment: environment, now: { later })
            #expect(await handler.accountRequests == SimpleFINBudget.daily + 2)
        }
    }

    @Test func theVersionOneShape() async throws {
        try await Self.withServer(versionOne: true) { _, token, environment, _ in
            let api = try await SimpleFINStart.connect(Self.request(token), environment: environment, now: { fixedNow })
            let goals = try await api.goals()
            #expect(goals.map { $0.name.components(separatedBy: " · ").first ?? "" } == Self.goals)
            let account = try #require(try await api.account())
            #expect(account.name == "Everyday Checking")
            #expect(api.statusNote?.contains("SimpleFIN: the bank asks to sign in again") == true)   // v1: a string, no code
        }
    }

    @Test func screensOnTheLookAlike() async throws {
        try await Self.withServer { _, token, environment, _ in
            let api = try await SimpleFINStart.connect(Self.request(token), environment: environment, now: { fixedNow })
            #expect(api.accountCurrency == .usd)
            let goals = try await api.goals()
            #expect(goals.count == 3 && goals.allSatisfy { $0.balance.currency == .usd })
            let feed = try await api.feed(goalId: goals[0].id)
            #expect(!feed.isEmpty && feed.allSatisfy { $0.amount.minorUnits > 0 })
            let page = try await api.activities(from: fixedNow.addingTimeInterval(-14 * 86_400), to: fixedNow.addingTimeInterval(86_400))
            #expect(page.activities.contains { $0.message.plainText.contains("(pending)") })
            // The custom currency and the goals are no spending account.
            #expect(!page.activities.contains { $0.message.plainText.contains("Rewards") })
            let header = try #require(try await api.account())
            #expect(header.summary.contains("Everyday Checking") && header.summary.contains("SimpleFIN Demo Bank"))
            #expect(api.statusNote?.contains("Maple Credit Union") == true)
            // Read-only: no request, a plain explanation.
            await #expect { _ = try await api.transfer(goalId: goals[0].id, transferId: UUID(), amount: Money(minorUnits: 100, currency: .usd), attempt: .init(week: "2026-W47", resent: false)) }
                throws: { error in (error as? APIError)?.kind == .rejected && (error as? APIError)?.message.contains("read-only") == true }
            await #expect { _ = try await api.createGoal(name: "x", target: nil) } throws: { error in (error as? APIError)?.kind == .rejected }
            // Without the goals setting: no goals.
            let none = try await SimpleFINStart.connect(Self.request(token, settings: [:]), environment: environment, now: { fixedNow })
            #expect(try await none.goals().isEmpty)
        }
    }

    /// The access URL's password and the claim code are in no file but the access file, and in
    /// no log line or error.
    @Test func secretsStayOut() async throws {
        try await Self.withServer(budget: 1) { _, token, environment, folder in
            let logFile = folder.appendingPathComponent("log.txt")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let log = try RequestLog(path: logFile.path)
            let api = try await SimpleFINStart.connect(Self.request(token, log: log), environment: environment, now: { fixedNow })
            for _ in 0..<8 {
                api.userAskedToRefresh()
                try await Self.look(api)
            }
            var messages = [api.statusNote ?? ""]
            do { _ = try await SimpleFINStart.connect(Self.request(token + "x", log: log), environment: environment) } catch { messages.append("\(error)") }
            let secrets = [SimpleFINDemoAPI.password, SimpleFINDemoAPI.claimCode, token]
            let accessFile = SimpleFINAccessFile.defaultFile(environment: environment).standardizedFileURL.path
            var read = 0
            for file in regularFiles(under: folder) where file.standardizedFileURL.path != accessFile {
                guard let data = try? Data(contentsOf: file), !data.isEmpty else { continue }
                read += 1
                let text = String(decoding: data, as: UTF8.self)
                for secret in secrets { #expect(!text.contains(secret), "\(file.lastPathComponent)") }
            }
            #expect(read >= 3)   // the log, the store, the request count
            let logText = try String(contentsOf: logFile, encoding: .utf8)
            #expect(logText.contains("POST /claim/…"))
            for message in messages { for secret in secrets { #expect(!message.contains(secret)) } }
        }
    }

    /// Answers every request with one status, counting them.
    actor Refusing: ServeHandler {
        let status: Int
        var count = 0
        init(status: Int) { self.status = status }
        func handle(_ request: ServeRequest) async -> ServeResponse {
            count += 1
            return ServeResponse(status: status, body: Data("no".utf8))
        }
    }

    @Test(arguments: [(402, "subscription needs paying"), (403, "revoked, or disabled after too many requests")])
    func aRefusalStopsTheSession(status: Int, words: String) async throws {
        let handler = Refusing(status: status)
        let server = try DemoHTTPServer(handler: handler)
        try await server.start()
        let port = try #require(await server.baseURL.port)
        let access = try SimpleFINAccess.parse("http://u:secret@127.0.0.1:\(port)/simplefin")
        let api = SimpleFINAPI(access: access, directory: nil, now: { fixedNow })
        for _ in 0..<3 {
            api.userAskedToRefresh()
            await #expect { _ = try await api.account() } throws: { error in (error as? APIError)?.message.contains(words) == true }
        }
        #expect(await handler.count == 1)
        #expect(api.statusNote?.contains(words) == true)
        await server.stop()
    }

    /// Redirects the claim to itself and counts what arrives.
    actor Redirecting: ServeHandler {
        var paths: [String] = []
        func handle(_ request: ServeRequest) async -> ServeResponse {
            paths.append(request.method + " " + request.path)
            var response = ServeResponse(status: 307)
            response.headers.set("Location", "/simplefin/claim/elsewhere")
            return response
        }
    }

    /// The claim is one POST: a redirect is not followed (the token would be sent twice).
    @Test func aRedirectedClaimIsNotFollowed() async throws {
        let handler = Redirecting()
        let server = try DemoHTTPServer(handler: handler)
        try await server.start()
        let claim = try #require(URL(string: await server.baseURL.absoluteString + "/simplefin/claim/once"))
        await #expect { _ = try await SimpleFINClaim.claim(claim, allowInsecureHTTP: false, log: nil) } throws: { error in
            (error as? APIError)?.message.contains("not followed") == true
        }
        #expect(await handler.paths == ["POST /simplefin/claim/once"])
        await server.stop()
    }
}
