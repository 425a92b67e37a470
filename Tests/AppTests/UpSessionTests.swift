@testable import DemoServer
@testable import DemoData
@testable import UpClient
import FeedCache
import FeedModel
import Foundation
@testable import UpSource
import HTTPTransport
import Testing
import TestSupport
@testable import QapitalApp
import TermUI
@testable import qapital_tui

let audCurrency = Currency.from(code: "AUD")!

/// A session of the app on `serve --api up`, counted at the server; the token in no file.
@Suite(.timeLimit(.minutes(1))) struct UpSessionTests {
    static let token = UpDemoAPI.testToken

    static func demo(pageSize: Int = UpDemoAPI.defaultPageSize, rateLimit: Int = UpDemoAPI.defaultRateLimit) -> UpDemoAPI {
        UpDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: audCurrency)), pageSize: pageSize, rateLimit: rateLimit)
    }

    /// A whole session of ordinary use (start, every tab, a year of activity scrolled, a goal
    /// opened, round-ups weeks back) counted at the server: far inside Up's 1,000 an hour.
    @Test func aSessionStaysFarInsideTheRateLimit() async throws {
        let handler = Self.demo(pageSize: 100)
        try await withUpServer(handler: handler) { _, url in
            let api = try await UpAPI.connect(baseURL: url, token: Self.token, now: { fixedNow })
            let count = try await Self.session(api)
            let requests = await handler.requestCount
            #expect(count > 365 / 14)
            #expect(requests < 150, "a session made \(requests) requests")
            #expect(api.rateLimit.remaining == UpDemoAPI.defaultRateLimit - requests)
        }
    }

    /// Returns the number of activity windows walked.
    @MainActor
    static func session(_ api: UpAPI) async throws -> Int {
        let app = AppHarness(api: api, width: 120, height: 30, currency: audCurrency)
        var lines = await app.start()
        #expect(lines.joined().contains("Balloons"))
        lines = await app.press(.enter)
        lines = await app.press(.escape, .char("2"))
        // A year and the window it ends in: whatever the pager has fetched ahead when the walk
        // stops, more than 365 / 14 whole windows lie behind (a year to the day could end a
        // window short, by when the prefetch came in).
        let yearAgo = fixedNow.addingTimeInterval(-Double(365 / 14 + 1) * ActivityPager.windowLength)
        var presses = 0
        while (app.core.feed.activities.last?.timestamp ?? fixedNow) > yearAgo, presses < 200 {
            lines = await app.press(.char("G"))
            presses += 1
        }
        #expect((app.core.feed.activities.last?.timestamp ?? fixedNow) <= yearAgo)
        lines = await app.press(.char("3"))
        for _ in 0..<4 { lines = await app.press(.char("[")) }
        lines = await app.press(.char("4"), .char("1"))
        return Int(fixedNow.timeIntervalSince(app.core.feed.activities.last?.timestamp ?? fixedNow) / ActivityPager.windowLength)
    }

    /// The offline cache and the request log of an Up session hold no token.
    @Test func theTokenIsInNoFileTheCacheOrTheLogWrites() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("up-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let logPath = directory.appendingPathComponent("requests.log").path
        try await withUpServer { _, url in
            let log = try RequestLog(path: logPath)
            let api = try await UpAPI.connect(baseURL: url, token: Self.token, log: log, now: { fixedNow })
            let cacheDirectory = directory.appendingPathComponent("cache")
            let opened = SQLiteCache.open(directory: cacheDirectory, baseURL: url, token: api.spending.id, accountCurrency: api.accountCurrency)
            let cache = try #require(opened.cache)
            let cached = CachingSavingsAPI(remote: api, cache: cache)
            let goals = try await cached.goals()
            for goal in goals.prefix(3) { _ = try await cached.feed(goalId: goal.id) }
            for week in 0..<4 {
                let to = fixedNow.addingTimeInterval(-Double(week) * ActivityPager.windowLength)
                _ = try await cached.activities(from: to.addingTimeInterval(-ActivityPager.windowLength), to: to)
            }
            _ = try await cached.transactions(from: fixedNow.addingTimeInterval(-7 * 86_400), to: fixedNow)
            #expect(await cache.goals()?.value.count == goals.count)
            // A refusal is logged too, without the token.
            _ = try? await UpAPI.connect(baseURL: url, token: "up:yeah:wrong-one", log: log)
        }
        let token = Data(UpDemoAPI.testToken.utf8)
        let written = regularFiles(under: directory)
        for file in written {
            #expect(!file.lastPathComponent.contains("up:demo"))
            let bytes = try Data(contentsOf: file)
            #expect(bytes.range(of: token) == nil, "the token is in \(file.lastPathComponent)")
            #expect(bytes.range(of: Data("up:yeah:wrong-one".utf8)) == nil)
        }
        #expect(written.count >= 2)
        let logText = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(logText.contains("GET /util/ping 200") && logText.contains("GET /util/ping 401"))
        #expect(logText.contains("page[size]=…"))
    }
}

/// Up refusing the token in the middle of a session: the sign-in form over the app (checked with
/// `GET /util/ping`); a new token carries on.
@Suite(.timeLimit(.minutes(1))) struct UpSignInAgainTests {
    actor Revocable: ServeHandler {
        let inner = UpSessionTests.demo()
        var revoked = false
        static let second = "up:yeah:second-token"

        func revoke() { revoked = true }

        func handle(_ request: ServeRequest) async -> ServeResponse {
            var request = request
            if request.headers["Authorization"] == "Bearer \(Self.second)" {
                request.headers.set("Authorization", "Bearer \(UpDemoAPI.testToken)")
            } else if revoked {
                request.headers.set("Authorization", "Bearer revoked")
            }
            return await inner.handle(request)
        }
    }

    @Test func aRefusedTokenOpensSignInAndANewOneCarriesOn() async throws {
        let handler = Revocable()
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("up-again-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: config) }
        try await withUpServer(handler: handler) { _, url in
            let api = try await UpAPI.connect(baseURL: url, token: UpDemoAPI.testToken, now: { fixedNow })
            try await Self.run(api, handler: handler, config: config)
        }
    }

    @MainActor
    static func run(_ api: UpAPI, handler: Revocable, config: URL) async throws {
        let capability = AppOptions.signInCapability(api, source: UpAPI.source, environment: ["XDG_CONFIG_HOME": config.path])
        let app = AppHarness(api: api, width: 100, height: 30, capabilities: .init(signIn: capability), currency: audCurrency)
        var lines = await app.start()
        #expect(lines.contains { $0.contains("Balloons") })
        await handler.revoke()
        lines = await app.press(.char("r"))
        #expect(api.tokenRefused)
        #expect(lines.contains { $0.contains("Sign in to 127.0.0.1:") }, "\(lines.joined(separator: "\n"))")
        _ = await app.type("up:yeah:wrong")
        lines = await app.press(.enter)
        #expect(lines.contains { $0.contains("✗ GET /util/ping: the token was refused (HTTP 401)") }, "\(lines.joined(separator: "\n"))")
        await app.press(.ctrl("u"))
        _ = await app.type(Revocable.second)
        lines = await app.press(.enter)
        #expect(!api.tokenRefused)
        #expect(lines.contains { $0.contains("Signed in.") })
        #expect(!lines.joined().contains(Revocable.second) && !lines.joined().contains("up:yeah:wrong"))
        #expect(try await api.goals().count == 11)
    }
}
