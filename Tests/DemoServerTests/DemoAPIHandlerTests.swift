@testable import DemoServer
import FeedModel
import Foundation
import Testing
@testable import DemoData

/// The server's strict reading of `from` and `to`, without a socket.
@Suite struct DemoAPIHandlerTests {
    static func message(_ query: String) -> String? {
        do {
            _ = try DemoAPIHandler.window(query)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func bothTimestampFormsAreAccepted() throws {
        let window = try DemoAPIHandler.window("from=2016-10-04T00%3A00%3A00%2B00%3A00&to=2016-10-18T00:00:00.000Z")
        #expect(window.from == Timestamp.parse("2016-10-04T00:00:00+00:00"))
        #expect(window.to == Timestamp.parse("2016-10-18T00:00:00Z"))
    }

    @Test func anOffsetOtherThanZeroIsHonoured() throws {
        let window = try DemoAPIHandler.window("from=2016-10-04T02:00:00%2B02:00&to=2016-10-04T00:00:00Z")
        #expect(window.from == window.to)
    }

    @Test(arguments: [
        ("to=2016-10-18T00:00:00Z", "from is missing"),
        ("from=2016-10-04T00:00:00Z", "to is missing"),
        ("from=2016-10-04T00:00:00+00:00&to=2016-10-18T00:00:00Z", "from: not a date"),
        ("from=yesterday&to=2016-10-18T00:00:00Z", "from: not a date"),
        ("from=2016-13-45T00:00:00Z&to=2016-10-18T00:00:00Z", "from: not a date"),
        ("from=&to=2016-10-18T00:00:00Z", "from: not a date"),
        ("from=2016-10-04%ZZ&to=2016-10-18T00:00:00Z", "malformed percent-encoding"),
        ("from=2016-10-04T00:00:00Z&from=2016-10-05T00:00:00Z&to=2016-10-18T00:00:00Z", "from given twice"),
        ("from=2016-10-18T00:00:00Z&to=2016-10-04T00:00:00Z", "from is after to"),
    ])
    func malformedWindowsAreRefused(query: String, expected: String) {
        let message = DemoAPIHandlerTests.message(query)
        #expect(message?.hasPrefix(expected) == true, "\(query) → \(message ?? "accepted")")
    }

    @Test func logLineNamesMethodTargetStatusAndMilliseconds() {
        let line = DemoHTTPServer.logLine(method: "GET", target: "/activities?from=a%2B00&to=b\u{1B}[2J",
                                          status: 500, elapsed: .milliseconds(1234))
        #expect(line == "GET /activities?from=a%2B00&to=b 500 1234ms")
    }

    @Test func theSeamSplitsTheTargetAndMatchesHeadersInAnyCase() async {
        let request = ServeRequest(method: "GET", target: "/activities?from=a%2B00&to=b?c",
                                   headers: ["HOST": "127.0.0.1:9", "X-A": "1", "x-a": "2"])
        #expect(request.path == "/activities")
        #expect(request.rawQuery == "from=a%2B00&to=b?c")
        #expect(request.target == "/activities?from=a%2B00&to=b?c")
        #expect(request.headers["host"] == "127.0.0.1:9")
        #expect(request.headers.values("X-a") == ["1", "2"])
        #expect(request.headers["nope"] == nil)

        let answer = await DemoAPIHandler(backend: DemoBackend(now: Date(timeIntervalSince1970: 1_795_000_000)))
            .handle(ServeRequest(method: "GET", target: "/nothing"))
        #expect(answer.status == 404)
        #expect(answer.headers["content-type"] == ServeResponse.jsonType)
        #expect(String(decoding: answer.body, as: UTF8.self) == #"{"error":"no such endpoint: /nothing"}"#)
    }

    /// docs/api.md's words: an unknown goal or user is answered with what was not found.
    @Test func anUnknownGoalOrUserIsNamedAsDocsAPISays() async {
        let handler = DemoAPIHandler(backend: DemoBackend(now: Date(timeIntervalSince1970: 1_795_000_000)))
        for (target, said) in [("/savingsgoals/99/feed", "GET /savingsgoals/99/feed: not found"), ("/users/42", "GET /users/42: not found")] {
            let answer = await handler.handle(ServeRequest(method: "GET", target: target))
            #expect(answer.status == 404)
            #expect(String(decoding: answer.body, as: UTF8.self) == #"{"error":"\#(said)"}"#, "\(target)")
        }
        let docs = try? String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/api.md").standardized, encoding: .utf8)
        #expect(docs?.contains(#"404 {"error": "GET /savingsgoals/99/feed: not found"}"#) == true)
        #expect(docs?.contains(#"404 {"error":"GET /users/42: not found"}"#) == true)
    }

    @Test func theLedgerKeepsOnlyTheLastRequests() {
        let ledger = RequestLedger()
        let total = RequestLedger.capacity * 3 + 7
        for number in 1...total {
            ledger.record(.init(method: "GET", target: "/\(number)", status: 200))
        }
        #expect(ledger.storedCount == RequestLedger.capacity)
        #expect(ledger.answered == total)
        let kept = ledger.entries
        #expect(kept.first?.target == "/\(total - RequestLedger.capacity + 1)")
        #expect(kept.last?.target == "/\(total)")
    }

    @Test func keptAnswersAreBoundedAndFollowTheRevision() {
        let cache = AnswerCache()
        let answer = ServeResponse.error(200, "x")
        for number in 0..<(AnswerCache.capacity * 2 + 3) {
            cache.keep(answer, for: "/\(number)", revision: 1)
        }
        #expect(cache.count <= AnswerCache.capacity)
        #expect(cache.answer(for: "/\(AnswerCache.capacity * 2 + 2)", revision: 1) != nil)
        #expect(cache.answer(for: "/\(AnswerCache.capacity * 2 + 2)", revision: 2) == nil, "a new revision misses")
        cache.keep(answer, for: "/new", revision: 2)
        #expect(cache.count == 1)
        cache.keep(answer, for: "/late", revision: 1)
        #expect(cache.answer(for: "/late", revision: 1) == nil, "an answer older than what was seen is not kept")
    }

    @Test func aGoalCreatedIsInTheNextAnswerOfTheSameTarget() async {
        let handler = DemoAPIHandler(backend: DemoBackend(now: Date(timeIntervalSince1970: 1_795_000_000)))
        let list = ServeRequest(method: "GET", target: "/savingsgoals", headers: ["Host": "127.0.0.1:1"])
        let before = await handler.handle(list)
        #expect(await handler.handle(list).body == before.body)
        let created = await handler.handle(ServeRequest(method: "POST", target: "/savingsgoals", body: Data(#"{"name": "Boat"}"#.utf8)))
        #expect(created.status == 201)
        let after = await handler.handle(list)
        #expect(String(decoding: after.body, as: UTF8.self).contains(#""name":"Boat""#))
    }
}
