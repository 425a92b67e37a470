@testable import DemoServer
@testable import DemoData
@testable import MonzoClient
import FeedModel
import Foundation
@testable import MonzoSource
import HTTPTransport
import Testing
import TestSupport
@testable import qapital_tui

/// A clock the tests move by hand, shared by the server and the client.
final class TestClock: Sendable {
    private let date: Locked<Date>
    init(_ start: Date) { date = Locked(start) }
    var now: Date { date.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Passes requests to a handler, keeping their targets; can lose the answer of the first request
/// whose path matches (the request is carried out, the client hears a 500).
actor RecordingHandler: ServeHandler {
    let inner: any ServeHandler
    private(set) var targets: [String] = []
    private var loseNext: String?

    init(_ inner: any ServeHandler) { self.inner = inner }

    func loseAnswer(toPathEndingWith suffix: String) { loseNext = suffix }

    func handle(_ request: ServeRequest) async -> ServeResponse {
        targets.append(request.method + " " + request.target)
        let answer = await inner.handle(request)
        if let suffix = loseNext, request.path.hasSuffix(suffix) {
            loseNext = nil
            return .error(500, "the answer was lost on the way")
        }
        return answer
    }
}

/// Passes requests to a handler, except that the next requests it is told to refuse are
/// answered 429 in Monzo's error shape, with a `Retry-After` when given one.
actor MonzoRefusing: ServeHandler {
    let inner: any ServeHandler
    private var refusing = 0
    private var retryAfter: String?
    private(set) var requests = 0

    init(_ inner: any ServeHandler) { self.inner = inner }

    func refuseNext(_ count: Int, retryAfter: String?) {
        refusing = count
        self.retryAfter = retryAfter
    }

    func handle(_ request: ServeRequest) async -> ServeResponse {
        requests += 1
        guard refusing > 0 else { return await inner.handle(request) }
        refusing -= 1
        var response = ServeResponse.data(Data(#"{"code":"too_many_requests","message":"Too many requests"}"#.utf8),
                                          contentType: "application/json", status: 429)
        if let retryAfter { response.headers.set("Retry-After", retryAfter) }
        return response
    }
}

func withMonzoServer(_ handler: any ServeHandler, isolation: isolated (any Actor)? = #isolation,
                     _ body: (URL) async throws -> Void) async throws {
    let server = try DemoHTTPServer(handler: handler)
    try await server.start()
    do {
        try await body(await server.baseURL)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// The Monzo client against `serve --api monzo` over loopback.
@Suite(.timeLimit(.minutes(1))) struct MonzoServeTests {
    static let token = MonzoDemoAPI.testToken

    func demo(_ options: MonzoDemoAPI.Options = .init(), clock: TestClock? = nil) -> (MonzoDemoAPI, DemoBackend) {
        let backend = DemoBackend(now: fixedNow, options: .init(currency: .gbp))
        let api = if let clock { MonzoDemoAPI(backend: backend, options: options, clock: { clock.now }) }
            else { MonzoDemoAPI(backend: backend, options: options) }
        return (api, backend)
    }

    @Test func accountPotsAndActivity() async throws {
        let (handler, backend) = demo()
        try await withMonzoServer(handler) { url in
            let api = try await MonzoAPI.connect(baseURL: url, token: Self.token)
            #expect(api.accountId == MonzoDemoAPI.accountId && api.accountCurrency == .gbp)
            let account = try #require(try await api.account())
            #expect(account.summary.hasPrefix("Mikael · 04-00-04 12345678 · £"))
            #expect(account.summary.contains("with pots)"))

            let goals = try await api.goals()
            let active = await backend.goals().filter { $0.status == .active }
            #expect(goals.map(\.name) == active.map(\.name), "deleted pots (archived goals) are hidden")
            #expect(goals.allSatisfy { $0.id.rawValue.hasPrefix("pot_") && $0.balance.currency == .gbp })
            #expect(goals.contains { $0.target != nil })
            // Issue 50.7: "with pots" is the balance and the pots the list shows, nothing hidden.
            #expect(await backend.goals().contains { $0.status != .active && $0.balance.minorUnits > 0 }, "the demo has a deleted pot with money")
            let pots = goals.reduce(Int64(0)) { $0 + $1.balance.minorUnits }
            let available = try #require(account.effectiveBalance).minorUnits
            #expect(account.totalBalance?.minorUnits == available + pots)

            let balloons = try #require(goals.first { $0.name == "Balloons" })
            let feed = try await api.feed(goalId: balloons.id)
            #expect(!feed.isEmpty && feed.allSatisfy { $0.amount.minorUnits > 0 })

            let page = try await api.activities(from: fixedNow.addingTimeInterval(-14 * 86_400), to: fixedNow)
            #expect(page.oldest == api.createdAt)
            #expect(page.activities.contains { $0.kind == .moveToGoal })
            #expect(page.activities.contains { $0.message.plainText.hasSuffix("· pending") })
            #expect(page.activities.contains { $0.message.plainText.contains("· paid €") })
            #expect(zip(page.activities, page.activities.dropFirst()).allSatisfy { $0.timestamp >= $1.timestamp })
            await #expect(throws: APIError.self) { _ = try await api.createGoal(name: "New", target: nil) }
        }
    }

    /// Monzo publishes no limit figures: a read answered 429 with a short `Retry-After` is waited
    /// out (the scripted sleep, no real wait) and sent once more; a second 429, or one that names
    /// no wait, is said in one line at once. Never a loop.
    @Test func a429IsWaitedOutOnceWhenMonzoSaysHowLong() async throws {
        let (inner, _) = demo()
        let handler = MonzoRefusing(inner)
        let waits = Locked<[TimeInterval]>([])
        try await withMonzoServer(handler) { url in
            let api = try await MonzoAPI.connect(baseURL: url, token: Self.token, sleep: { seconds in waits.withLock { $0.append(seconds) } })
            let before = await handler.requests
            await handler.refuseNext(1, retryAfter: "2")
            #expect(try await api.goals().isEmpty == false)
            var sent = await handler.requests
            #expect(waits.withLock { $0 } == [2] && sent == before + 2)
            await handler.refuseNext(5, retryAfter: "2")
            let twice = await #expect(throws: APIError.self) { _ = try await api.goals() }
            #expect(twice?.status == 429 && twice?.message.hasPrefix("GET /pots: HTTP 429") == true, "\(twice?.message ?? "")")
            sent = await handler.requests
            #expect(waits.withLock { $0 } == [2, 2] && sent == before + 4)
            await handler.refuseNext(5, retryAfter: nil)
            let unsaid = await #expect(throws: APIError.self) { _ = try await api.goals() }
            sent = await handler.requests
            #expect(unsaid?.status == 429 && waits.withLock { $0 }.count == 2 && sent == before + 5)
            await handler.refuseNext(5, retryAfter: "3600")
            await #expect(throws: APIError.self) { _ = try await api.goals() }
            sent = await handler.requests
            #expect(waits.withLock { $0 }.count == 2 && sent == before + 6)
        }
    }

    /// One window with more than 100 transactions is read in pages, each from the last id.
    @Test func pagingPastAHundredInOneWindow() async throws {
        let (inner, _) = demo()
        let handler = RecordingHandler(inner)
        try await withMonzoServer(handler) { url in
            let api = try await MonzoAPI.connect(baseURL: url, token: Self.token)
            let all = try await api.transactionsIn(from: api.createdAt, to: fixedNow.addingTimeInterval(86_400))
            #expect(all.count > 2 * MonzoAPI.pageLimit)
            #expect(Set(all.map(\.id)).count == all.count)
            #expect(zip(all, all.dropFirst()).allSatisfy { $0.created <= $1.created })
            let pages = await handler.targets.filter { $0.hasPrefix("GET /transactions") }
            #expect(pages.count == all.count / MonzoAPI.pageLimit + 1)
            #expect(pages.dropFirst().allSatisfy { $0.contains("since=tx_") }, "later pages go on from the last id")
            #expect(pages.allSatisfy { $0.contains("limit=100") && $0.contains("expand%5B%5D=merchant") }, "\(pages.prefix(2))")
        }
    }

    /// A deposit whose answer is lost is retried with the same dedupe_id; a second run (another
    /// connection: another machine) saving the same week sends the same id: money moves once.
    @Test func depositsMoveMoneyOnce() async throws {
        let (inner, backend) = demo()
        let handler = RecordingHandler(inner)
        try await withMonzoServer(handler) { url in
            let api = try await MonzoAPI.connect(baseURL: url, token: Self.token)
            let goal = try #require(try await api.goals().first { $0.name == "Balloons" })
            let identity = SaveIdentity(source: "monzo " + url.absoluteString, account: api.accountId)
            let week = Week(containing: fixedNow, calendar: Week.calendar(in: TimeZone(identifier: "UTC")!))
            let key = identity.weekKey(week)
            let amount = Money(minorUnits: 321, currency: .gbp)

            await handler.loseAnswer(toPathEndingWith: "/deposit")
            await #expect(throws: APIError.self) { _ = try await api.transfer(goalId: goal.id, transferId: key, amount: amount, attempt: .init(week: "2026-W47", resent: false)) }
            let retried = try await api.transfer(goalId: goal.id, transferId: key, amount: amount, attempt: .init(week: "2026-W47", resent: false))
            #expect(retried.balance == goal.balance + amount)

            let secondRun = try await MonzoAPI.connect(baseURL: url, token: Self.token)
            let again = try await secondRun.transfer(goalId: goal.id, transferId: identity.weekKey(week), amount: amount, attempt: .init(week: "2026-W47", resent: false))
            #expect(again.balance == goal.balance + amount)
            #expect(await inner.depositCount == 1)
            let balloons = try #require(await backend.goals().first { $0.name == "Balloons" })
            #expect(balloons.balance == goal.balance + amount)
            let deposits = await handler.targets.filter { $0.hasSuffix("/deposit") }
            #expect(deposits.count == 3)
            // The deposit shows in the account's feed as a pot transfer, once.
            let rows = try await api.activities(from: Date().addingTimeInterval(-3600), to: Date().addingTimeInterval(3600)).activities
            #expect(rows.filter { $0.kind == .moveToGoal && $0.saved == amount }.count == 1)
        }
    }

    /// A new token waits for the customer's approval in the app: refused with what to do, and
    /// accepted once approved (no polling: the next check is the user's).
    @Test func approvalPendingThenApproved() async throws {
        let (handler, _) = demo(.init(scaPending: true))
        try await withMonzoServer(handler) { url in
            do throws(APIError) {
                _ = try await MonzoAPI.connect(baseURL: url, token: Self.token)
                Issue.record("a token not approved yet was accepted")
            } catch {
                #expect(error.kind == .unauthorized)
                #expect(error.message == "GET /ping/whoami: approve this sign-in in the Monzo app, then try again (HTTP 403)")
            }
            // The app opens on the sign-in form with the token in it, for Enter to try again.
            let options = try AppOptions.parse(["--source", "monzo", "--api-url", url.absoluteString, "--no-cache"])
            let settings = try options.settings(environment: ["MONZO_TOKEN": Self.token, "XDG_CONFIG_HOME": "/nonexistent-qt"])
            guard case .signIn(let refusal, let pending) = try await options.startBank(settings.source, environment: ["MONZO_TOKEN": Self.token, "XDG_CONFIG_HOME": "/nonexistent-qt"]) else {
                Issue.record("started without approval")
                return
            }
            #expect(refusal?.contains(MonzoAPI.approvalNeeded) == true)
            #expect(pending == Self.token)

            let approve = try await HTTPTransport(baseURL: url, token: Self.token).send("POST", "/test/approve")
            #expect(String(decoding: approve, as: UTF8.self).contains("true"))
            let api = try await MonzoAPI.connect(baseURL: url, token: Self.token)
            #expect(try await api.goals().count > 0)
        }
    }

    /// `serve --api monzo --sca-after N`: after N requests the token's approval lapses once, as
    /// when Monzo asks the customer again mid-session. The client keeps the token (not refused),
    /// says it awaits approval, asks nothing by itself, and works again once approved.
    @Test func approvalLapsingMidSessionKeepsTheToken() async throws {
        let (handler, _) = demo(.init(approvalLapsesAfter: 4))
        try await withMonzoServer(handler) { url in
            let api = try await MonzoAPI.connect(baseURL: url, token: Self.token)  // whoami, accounts, (balance)
            _ = try await api.goals()
            #expect(!api.awaitsApproval)
            var refusal: APIError?
            for _ in 0..<3 where refusal == nil {
                do { _ = try await api.goals() } catch let error as APIError { refusal = error }
            }
            let error = try #require(refusal, "the approval never lapsed")
            #expect(error.kind == .unauthorized && error.awaitsApproval)
            #expect(error.message == "GET /pots: approve this sign-in in the Monzo app, then try again (HTTP 403)")
            #expect(api.awaitsApproval)
            #expect(!api.tokenRefused, "the token is good: only the customer's approval is missing")
            // Still refused until approved; then the same token works, and the state clears.
            await #expect(throws: APIError.self) { _ = try await api.goals() }
            #expect(api.awaitsApproval)
            #expect(await handler.approve(Self.token))
            #expect(try await api.goals().count > 0)
            #expect(!api.awaitsApproval && !api.tokenRefused)
            // It lapses once: the demo stays usable after.
            for _ in 0..<5 { _ = try await api.goals() }
        }
    }

    /// Five minutes after a sign-in only the last 90 days can be read: the feed ends at the edge
    /// with a row that says why, whether the client knows it by its own clock or the bank says so.
    @Test func theNinetyDayEdge() async throws {
        let clock = TestClock(fixedNow)
        let (handler, _) = demo(.init(historyWindow: 60), clock: clock)
        try await withMonzoServer(handler) { url in
            let api = try await MonzoAPI.connect(baseURL: url, token: Self.token, now: { clock.now })
            let old = (from: fixedNow.addingTimeInterval(-200 * 86_400), to: fixedNow.addingTimeInterval(-186 * 86_400))
            // In the first minutes everything can be read.
            let early = try await api.activities(from: old.from, to: old.to)
            #expect(early.oldest == api.createdAt)
            #expect(!early.activities.contains { $0.message.plainText.hasPrefix("Older activity") })

            // Past the server's (shortened) window but within the client's 5 minutes: the bank refuses
            // the old window with a 403 that is the edge, not a sign-in problem.
            clock.advance(120)
            let refused = try await api.activities(from: old.from, to: old.to)
            #expect(refused.activities.count == 1)
            #expect(refused.activities.first?.kind == .void)
            #expect(refused.activities.first?.message.plainText
                    == "Older activity · Monzo's API gives only the last 90 days once a sign-in is 5 minutes old")
            #expect(!api.tokenRefused)

            // Past 5 minutes the client knows the edge itself: the window across it ends there.
            clock.advance(300)
            let edge = try #require(api.historyEdge)
            let across = try await api.activities(from: edge.addingTimeInterval(-7 * 86_400), to: edge.addingTimeInterval(7 * 86_400))
            #expect(across.oldest == edge)
            let row = try #require(across.activities.last)
            #expect(row.timestamp == edge && row.kind == .void && row.amount.isZero)
            #expect(across.activities.dropLast().allSatisfy { $0.timestamp >= edge })
            // Recent windows are as before.
            let recent = try await api.activities(from: fixedNow.addingTimeInterval(-14 * 86_400), to: fixedNow)
            #expect(!recent.activities.contains { $0.message.plainText.hasPrefix("Older activity") })
        }
    }

    @Test func oauthCodeForAPairRefreshReplacesIt() async throws {
        let (handler, _) = demo()
        try await withMonzoServer(handler) { url in
            let redirect = "http://127.0.0.1:45678/callback"
            let query = "client_id=\(MonzoDemoAPI.clientId)&redirect_uri=\(redirect)&response_type=code&state=abc123"
            let page = await handler.handle(ServeRequest(method: "GET", target: "/auth/?" + query))
            #expect(page.status == 302)
            let location = try #require(page.headers["Location"])
            #expect(location.hasPrefix(redirect + "?code=") && location.hasSuffix("&state=abc123"))
            let code = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)

            let transport = HTTPTransport(baseURL: url, token: nil, serverMessage: Monzo.serverMessage)
            func exchange(_ fields: [(String, String)]) async throws(APIError) -> Monzo.TokenPair {
                let data = try await transport.send("POST", "/oauth2/token", body: HTTPTransport.formBody(fields),
                                                    contentType: HTTPTransport.formType)
                do {
                    return try JSONDecoder().decode(Monzo.TokenPair.self, from: data)
                } catch {
                    throw APIError(kind: .malformed, request: "POST /oauth2/token", message: "bad pair")
                }
            }
            let client = [("client_id", MonzoDemoAPI.clientId), ("client_secret", MonzoDemoAPI.clientSecret)]
            let pair = try await exchange([("grant_type", "authorization_code")] + client + [("redirect_uri", redirect), ("code", code)])
            #expect(pair.expiresIn == 21_600)
            _ = try await MonzoAPI.connect(baseURL: url, token: pair.accessToken)
            // A code works once.
            await #expect(throws: APIError.self) {
                _ = try await exchange([("grant_type", "authorization_code")] + client + [("redirect_uri", redirect), ("code", code)])
            }
            let refresh = try #require(pair.refreshToken)
            let next = try await exchange([("grant_type", "refresh_token")] + client + [("refresh_token", refresh)])
            #expect(next.accessToken != pair.accessToken)
            _ = try await MonzoAPI.connect(baseURL: url, token: next.accessToken)
            // The old pair is refused from then on.
            await #expect(throws: APIError.self) { _ = try await MonzoAPI.connect(baseURL: url, token: pair.accessToken) }
            do throws(APIError) {
                _ = try await exchange([("grant_type", "refresh_token")] + client + [("refresh_token", refresh)])
                Issue.record("a used refresh token was accepted")
            } catch {
                #expect(error.message.contains("invalid_grant"))
            }
        }
    }
}
