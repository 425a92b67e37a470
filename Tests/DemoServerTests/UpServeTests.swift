@testable import DemoServer
@testable import DemoData
@testable import UpClient
import FeedModel
import Foundation
@testable import UpSource
import HTTPTransport
import Testing
import TestSupport

let audCurrency = Currency.from(code: "AUD")!

/// The Up client against `serve --api up` over loopback.
@Suite(.timeLimit(.minutes(1))) struct UpServeTests {
    static let token = UpDemoAPI.testToken

    static func demo(pageSize: Int = UpDemoAPI.defaultPageSize, rateLimit: Int = UpDemoAPI.defaultRateLimit) -> UpDemoAPI {
        UpDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: audCurrency)), pageSize: pageSize, rateLimit: rateLimit)
    }

    @Test func goalsAreTheSaversAndTheHeaderIsTheJointSpendingAccount() async throws {
        let backend = DemoBackend(now: fixedNow, options: .init(currency: audCurrency))
        let active = await backend.goals().filter { $0.status == .active }
        try await withUpServer(handler: UpDemoAPI(backend: backend, pageSize: 5)) { _, url in
            let target = Money(minorUnits: 123_400, currency: audCurrency)
            let api = try await UpAPI.connect(baseURL: url, token: Self.token, targets: ["Balloons": target], now: { fixedNow })
            #expect(api.accountCurrency == audCurrency)
            #expect(api.spending.id == UpDemoAPI.spendingId && api.isJoint)
            let account = try #require(try await api.account())
            #expect(account.holder == "2Up Spending (joint)")
            #expect(account.summary.hasPrefix("2Up Spending (joint) · A$"))

            // More savers than a page holds: every page followed.
            let goals = try await api.goals()
            #expect(goals.count == active.count && goals.count > 5)
            #expect(Set(goals.map(\.name)) == Set(active.map(\.name)))
            #expect(goals.allSatisfy { $0.balance.currency == audCurrency })
            #expect(goals.first { $0.name == "Balloons" }?.target == target)
            #expect(goals.filter { $0.target != nil }.count == 1)

            // A saver's own transactions: the transfers into it from the spending account.
            let balloons = try #require(goals.first { $0.name == "Balloons" })
            let feed = try await api.feed(goalId: balloons.id)
            let demoFeed = try await backend.feed(goalId: try #require(active.first { $0.name == "Balloons" }).id)
            #expect(feed.count == demoFeed.filter { !$0.amount.isZero }.count)
            #expect(feed.allSatisfy { $0.message.plainText.hasPrefix("Added from 2Up Spending") || $0.amount.isNegative })
            #expect(zip(feed, feed.dropFirst()).allSatisfy { $0.timestamp >= $1.timestamp })
            // On the joint account, who saved is named.
            let people = Set(feed.map(\.userId))
            #expect(!people.contains(UpMapping.holderId))
            for id in people { #expect(try await api.user(id: id).displayName.isEmpty == false) }
        }
    }

    /// Two-week windows back to the spending account's `createdAt`, every page of each followed.
    @Test func theActivityFeedWalksBackToCreatedAt() async throws {
        let handler = Self.demo(pageSize: 4)
        try await withUpServer(handler: handler) { server, url in
            let api = try await UpAPI.connect(baseURL: url, token: Self.token, now: { fixedNow })
            try await Self.walk(api: api, server: server)
        }
    }

    @MainActor
    static func walk(api: UpAPI, server: DemoHTTPServer) async throws {
        let probe = EventProbe<StoreEvent>()
        let feed = ActivityFeed(api: api, now: { fixedNow }, events: probe.sink)
        feed.start()
        await probe.wait(until: {
            feed.viewportChanged(cursor: feed.activities.count, screenHeight: 40)
            return feed.phase == .atEnd
        })
        #expect(feed.pager.oldest == api.createdAt)
        #expect(feed.activities.allSatisfy { $0.timestamp >= api.createdAt })
        // Everything the account has, once: the walk and one unwindowed listing agree.
        let all = try await api.activities(from: api.createdAt, to: fixedNow.addingTimeInterval(86_400)).activities
        #expect(feed.activities.count == all.count && all.count > 100)
        #expect(feed.activities.contains { $0.message.plainText.contains(" · held") })
        #expect(feed.activities.contains { $0.message.plainText.contains(" · paid €") })
        #expect(feed.activities.contains { $0.kind == .moveToGoal && $0.message.plainText.hasPrefix("Saved into ") })
        #expect(Set(feed.activities.map(\.userId)).count == 2)
    }

    @Test func roundUpsAreUpsOwn() async throws {
        try await withUpServer { _, url in
            let api = try await UpAPI.connect(baseURL: url, token: Self.token, now: { fixedNow })
            let transactions = try await api.transactions(from: fixedNow.addingTimeInterval(-56 * 86_400), to: fixedNow.addingTimeInterval(1))
            let made = transactions.filter { $0.bankRoundUp != nil }
            #expect(!made.isEmpty)
            #expect(made.allSatisfy { $0.roundsUp && $0.amount.isNegative && $0.bankRoundUp!.minorUnits > 0 })
            var boosted: [FeedModel.Transaction] = []
            for transaction in made where transaction.boost != nil { boosted.append(transaction) }
            #expect(!boosted.isEmpty && boosted.count < made.count)
            #expect(boosted.allSatisfy { $0.boost!.minorUnits == 100 && $0.bankRoundUp!.minorUnits >= 100 })
            // Whatever step the app would use, the lines are Up's round-ups as Up made them.
            for step in [nil, Int64(500)] {
                let summary = RoundUp.Summary(transactions: transactions, accountCurrency: audCurrency, step: step)
                #expect(summary.lines.count == made.count)
                #expect(summary.lines.allSatisfy { $0.roundUp == $0.transaction.bankRoundUp })
                #expect(summary.saveable.minorUnits == Money.sum(made.map { $0.bankRoundUp!.minorUnits }))
            }
            // Money in and transfers to savers round up by nothing.
            #expect(transactions.filter { !$0.amount.isNegative }.allSatisfy { $0.bankRoundUp == nil && !$0.roundsUp })
        }
    }

    @Test func aRefusedTokenIsUnauthorizedAndNeverQuoted() async throws {
        try await withUpServer { _, url in
            let secret = "up:yeah:not-the-demo-token"
            do {
                _ = try await UpAPI.connect(baseURL: url, token: secret)
                Issue.record("a wrong token was accepted")
            } catch let error as APIError {
                #expect(error.kind == .unauthorized)
                #expect(error.message == "GET /util/ping: the token was refused (HTTP 401)")
                #expect(!error.message.contains(secret))
            }
            await #expect(throws: APIError.self) { _ = try await UpAPI.connect(baseURL: url, token: nil) }
            // A token with a line break is never sent.
            do {
                _ = try await UpAPI.connect(baseURL: url, token: "up:yeah:a\nb")
                Issue.record("a broken token was sent")
            } catch let error as APIError {
                #expect(error.kind == .unauthorized && !error.message.contains("up:yeah"))
            }
        }
    }

    /// Pages inside one window: any page size gives the same records, newest first.
    @Test func pagingInsideAWindow() async throws {
        var listings: [[String]] = []
        for size in [1, 3, 100] {
            try await withUpServer(handler: Self.demo(pageSize: size)) { _, url in
                let api = try await UpAPI.connect(baseURL: url, token: Self.token, now: { fixedNow })
                let page = try await api.activities(from: fixedNow.addingTimeInterval(-14 * 86_400), to: fixedNow)
                listings.append(page.activities.map { "\($0.timestamp.timeIntervalSince1970) \($0.message.plainText) \($0.amount)" })
            }
        }
        #expect(listings.count == 3 && !listings[0].isEmpty)
        #expect(listings[0] == listings[1] && listings[1] == listings[2])
    }

    /// The rate limit: the count read from every answer and shown under 100; a 429 stops
    /// fetching (later calls fail at once, without a request) and says when to try again.
    @Test func rateLimitIsReadAndA429StopsFetching() async throws {
        let handler = Self.demo(pageSize: 100, rateLimit: 6)
        try await withUpServer(handler: handler) { _, url in
            let api = try await UpAPI.connect(baseURL: url, token: Self.token, now: { fixedNow })
            #expect(await handler.requestCount == 2)
            // The start's look at the account is the listing's answer: no request.
            #expect(try await api.account()?.effectiveBalance != nil)
            #expect(await handler.requestCount == 2)
            #expect(api.rateLimit.remaining == 4)
            #expect(api.rateLimit.statusNote == "Up: 4 requests left this hour")
            _ = try await api.goals()
            _ = try await api.goals()
            _ = try await api.goals()
            #expect(api.rateLimit.remaining == 1)
            _ = try await api.goals()
            #expect(api.rateLimit.remaining == 0)
            do {
                _ = try await api.goals()
                Issue.record("a 429 was not an error")
            } catch let error as APIError {
                #expect(error.status == 429)
                #expect(error.message.hasPrefix("GET /accounts (savers): Up's rate limit (1,000 requests an hour) is used up; try again after "))
            }
            #expect(await handler.requestCount == 7)
            // Stopped: nothing more reaches Up, whatever asks.
            for _ in 0..<5 {
                await #expect(throws: APIError.self) { _ = try await api.activities(from: fixedNow.addingTimeInterval(-86_400), to: fixedNow) }
            }
            await #expect(throws: APIError.self) { _ = try await api.account() }
            #expect(await handler.requestCount == 7)
            #expect(api.rateLimit.statusNote?.hasPrefix("Up: rate limit reached; try again after ") == true)
        }
    }

    /// A 429 with a short `Retry-After` is waited out (the scripted sleep, no real wait) and sent
    /// once more; a second 429 in a row stops fetching for the time it names, never a loop.
    @Test func a429WithAShortRetryAfterIsWaitedOutAndTriedOnce() async throws {
        let handler = Refusing429(inner: Self.demo(pageSize: 100))
        let waits = Locked<[TimeInterval]>([])
        let limit = UpRateLimit(now: { fixedNow }, sleep: { seconds in waits.withLock { $0.append(seconds) } })
        try await withUpServer(handler: handler) { _, url in
            let api = try await UpAPI.connect(baseURL: url, token: Self.token, rateLimit: limit, now: { fixedNow })
            let before = await handler.requests
            // One 429 saying 2 s: waited, sent again, answered.
            await handler.refuseNext(1, retryAfter: "2")
            #expect(try await api.goals().isEmpty == false)
            #expect(waits.withLock { $0 } == [2] && limit.stoppedUntil == nil)
            #expect(await handler.requests == before + 2)
            // Two in a row: one wait, one more try, then stopped until the time the second names.
            await handler.refuseNext(5, retryAfter: "3")
            let error = await #expect(throws: APIError.self) { _ = try await api.goals() }
            #expect(error?.status == 429)
            #expect(waits.withLock { $0 } == [2, 3])
            #expect(await handler.requests == before + 4)
            #expect(limit.stoppedUntil == fixedNow.addingTimeInterval(3))
            // Stopped: nothing more reaches Up.
            await #expect(throws: APIError.self) { _ = try await api.goals() }
            #expect(await handler.requests == before + 4 && waits.withLock { $0 }.count == 2)
        }
    }

    /// An ordinary use of the app against the look-alike with its limit (1,000 requests an hour)
    /// on: the start, every tab (each saver's detail), a year of Activity in two-week windows and
    /// the round-ups (Up's API cannot save). No 429, and under a tenth of the hour's requests, so
    /// ten such sessions in an hour would still meet none.
    @Test func anOrdinarySessionMeetsNo429() async throws {
        // Pages of 100, as Up answers the client's page[size]=100 (the look-alike's default is 10).
        let counter = CountingHandler(inner: Self.demo(pageSize: 100))
        try await withUpServer(handler: counter) { _, url in
            let api = try await UpAPI.connect(baseURL: url, token: Self.token, now: { fixedNow })
            let week = Week(containing: fixedNow, calendar: .current)
            var first = week
            for _ in 1..<12 { first = first.previous }   // RoundUpStore.historyWeeks
            async let header = api.account()
            async let listed = api.goals()
            async let shown = api.transactions(from: week.start, to: week.end)
            async let history = api.transactions(from: first.start, to: week.end)
            let goals = try await listed
            _ = try await (header, shown, history)
            for goal in goals { _ = try await api.feed(goalId: goal.id) }
            var to = ActivityPager.newestEnd(fixedNow)
            for _ in 0..<26 {
                let from = to.addingTimeInterval(-14 * 86_400)
                _ = try await api.activities(from: from, to: to)
                to = from
            }
            // A refresh (r) of the header and the goals.
            _ = try await api.account()
            _ = try await api.goals()
        }
        let requests = await counter.requests
        let refused = await counter.answered(429)
        print("Up ordinary session: \(requests) requests, \(refused) answered 429")
        #expect(refused == 0)
        #expect(requests > 30 && requests < UpDemoAPI.defaultRateLimit / 10, "\(requests) requests")
    }

    /// A server's `next` that leads elsewhere is not followed (the token stays with Up); one that
    /// comes back again ends the walk instead of looping.
    @Test func linksAreFollowedOnlyOnUpsOrigin() async throws {
        actor Scripted: ServeHandler {
            let inner = UpServeTests.demo()
            var next = ""
            var transactionRequests = 0
            func lead(to link: String) { next = link }
            func handle(_ request: ServeRequest) async -> ServeResponse {
                guard request.path.hasSuffix("/transactions") else { return await inner.handle(request) }
                transactionRequests += 1
                let body = #"{"data": [], "links": {"prev": null, "next": "\#(next)"}}"#
                return .data(Data(body.utf8), contentType: "application/json")
            }
        }
        let handler = Scripted()
        try await withUpServer(handler: handler) { _, url in
            let api = try await UpAPI.connect(baseURL: url, token: Self.token, now: { fixedNow })
            await handler.lead(to: "http://127.0.0.2:\(url.port!)/api/v1/accounts/x/transactions")
            do {
                _ = try await api.transactions(from: fixedNow.addingTimeInterval(-86_400), to: fixedNow)
                Issue.record("a link to another origin was followed")
            } catch let error as APIError {
                #expect(error.message.contains("leads away"))
            }
            #expect(await handler.transactionRequests == 1)
            await handler.lead(to: url.absoluteString + "/accounts/x/transactions?page%5Bafter%5D=same")
            #expect(try await api.transactions(from: fixedNow.addingTimeInterval(-86_400), to: fixedNow).isEmpty)
            // The first page, then the link once; the same link again is not followed.
            #expect(await handler.transactionRequests == 3)
        }
    }
}

/// The handler on the seam itself, without a socket.
@Suite struct UpDemoAPIHandlerTests {
    static let auth: ServeHeaders = ["authorization": "Bearer \(UpDemoAPI.testToken)", "Host": "127.0.0.1:9"]

    @Test func theTokenIsRequiredAndErrorsAreTheEnvelope() async throws {
        let api = UpServeTests.demo()
        let refused = await api.handle(ServeRequest(method: "GET", target: "/api/v1/util/ping"))
        #expect(refused.status == 401)
        #expect(Up.serverMessage(refused.body)?.hasPrefix("Not Authorized: The request was not authenticated") == true)
        #expect(refused.headers["X-RateLimit-Remaining"] == nil)
        let ping = await api.handle(ServeRequest(method: "GET", target: "/api/v1/util/ping", headers: Self.auth))
        #expect(ping.status == 200 && ping.headers["X-RateLimit-Remaining"] == "999")
        let post = await api.handle(ServeRequest(method: "POST", target: "/api/v1/accounts", headers: Self.auth))
        #expect(post.status == 405)
        let badDate = await api.handle(ServeRequest(method: "GET", target: "/api/v1/accounts/\(UpDemoAPI.spendingId)/transactions?filter%5Bsince%5D=yesterday",
                                                    headers: Self.auth))
        #expect(badDate.status == 400)
        #expect(Up.serverMessage(badDate.body) == "Invalid Filter: not an RFC 3339 date-time: \"yesterday\" (filter[since])")
        let missing = await api.handle(ServeRequest(method: "GET", target: "/api/v1/accounts/nope", headers: Self.auth))
        #expect(missing.status == 404)
    }

    @Test func nextLinksCarryTheQueryAndAnOpaqueCursor() async throws {
        let api = UpServeTests.demo(pageSize: 2)
        let answer = await api.handle(ServeRequest(method: "GET", target: "/api/v1/accounts?filter%5BaccountType%5D=SAVER&page%5Bsize%5D=100",
                                                   headers: Self.auth))
        let page = try PayloadDecoder().decode(Up.ListDocument<Up.AccountResource>.self, from: answer.body, resource: "GET")
        #expect(page.data.count == 2 && page.data.allSatisfy(\.isSaver))
        let next = try #require(page.links?.next)
        #expect(next.hasPrefix("http://127.0.0.1:9/api/v1/accounts?filter%5BaccountType%5D=SAVER&page%5Bafter%5D="))
        #expect(next.hasSuffix("&page%5Bsize%5D=100"))
    }
}

/// `serve --api up` behind the server's fault flags: an injected 500 is one line, and the next
/// request works (nothing in the client retries it by itself).
@Suite(.timeLimit(.minutes(1))) struct UpServeFaultTests {
    @Test func anInjectedFailureIsOneLineAndNotRetried() async throws {
        let handler = UpServeTests.demo()
        // ping, the accounts' two pages, then the savers' first page: the fourth request fails.
        let server = try DemoHTTPServer(handler: handler, options: .init(failEvery: 4))
        try await server.start()
        do {
            let url = URL(string: await server.baseURL.absoluteString + UpDemoAPI.basePath)!
            let api = try await UpAPI.connect(baseURL: url, token: UpDemoAPI.testToken, now: { fixedNow })
            #expect(await handler.requestCount == 3)
            do {
                _ = try await api.goals()
                Issue.record("the injected failure did not come")
            } catch let error as APIError {
                #expect(error.message == "GET /accounts (savers): HTTP 500")
            }
            #expect(await handler.requestCount == 3)
            #expect(try await api.goals().count == 11)
            #expect(await handler.requestCount == 5)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

/// Forwards to Up's look-alike, except that the next requests it is told to refuse are answered
/// 429 with a `Retry-After` and Up's envelope.
actor Refusing429: ServeHandler {
    let inner: UpDemoAPI
    private var refusing = 0
    private var retryAfter = ""
    private(set) var requests = 0

    init(inner: UpDemoAPI) { self.inner = inner }

    func refuseNext(_ count: Int, retryAfter: String) {
        refusing = count
        self.retryAfter = retryAfter
    }

    func handle(_ request: ServeRequest) async -> ServeResponse {
        requests += 1
        guard refusing > 0 else { return await inner.handle(request) }
        refusing -= 1
        var response = ServeResponse.data(Data(#"{"errors":[{"status":"429","title":"Too Many Requests","detail":"Slow down."}]}"#.utf8),
                                          contentType: "application/json", status: 429)
        response.headers.set("Retry-After", retryAfter)
        return response
    }
}
