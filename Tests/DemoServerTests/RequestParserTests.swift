@testable import DemoServer
import Foundation
import Testing

/// `serve`'s request reading without a socket: the head scanner fed a byte at a time finds the
/// same end as fed at once, limits fire as soon as they are passed, and the head parser is strict.
@Suite struct RequestParserTests {
    static let limits = ServeLimits()

    /// Feeds `text` to a scanner `step` bytes at a time, as a connection would.
    static func scan(_ text: String, step: Int, limits: ServeLimits = limits) -> (HeadScanner.Outcome, fedBytes: Int) {
        let bytes = Array(text.utf8)
        var scanner = HeadScanner(limits: limits)
        var fed = 0
        while fed < bytes.count {
            fed = min(fed + step, bytes.count)
            let outcome = bytes[..<fed].withUnsafeBytes { scanner.scan($0) }
            if outcome != .incomplete { return (outcome, fed) }
        }
        return (.incomplete, fed)
    }

    static func parse(_ text: String, limits: ServeLimits = limits) -> Result<RequestHead, HTTPFailure> {
        Array(text.utf8).withUnsafeBytes { RequestParser.parseHead($0, limits: limits) }
    }

    @Test(arguments: [1, 2, 7, 4096])
    func theHeadEndsAtItsBlankLineHoweverItArrives(step: Int) {
        let head = "GET /savingsgoals HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n\r\n"
        let (outcome, _) = Self.scan(head + "GET /next", step: step)
        #expect(outcome == .complete(end: head.utf8.count))
        let bare = "GET / HTTP/1.0\n\n"
        #expect(Self.scan(bare + "x", step: step).0 == .complete(end: bare.utf8.count))
    }

    @Test func aLongRequestLineIsRefusedOnceItPassesTheLimitWithoutWaitingForItsEnd() {
        var limits = Self.limits
        limits.maxRequestLine = 100
        let (outcome, fed) = Self.scan("GET /" + String(repeating: "a", count: 10_000), step: 1, limits: limits)
        #expect(outcome == .failure(HTTPFailure(status: 414, message: "the request line is longer than 100 bytes")))
        #expect(fed <= 103)
    }

    @Test func largeHeaderFieldsAreRefusedOnceTheyPassTheLimit() {
        var limits = Self.limits
        limits.maxHeaderBytes = 200
        let (outcome, fed) = Self.scan("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 1 << 20), step: 1, limits: limits)
        #expect(outcome == .failure(HTTPFailure(status: 431, message: "the header fields are larger than 200 bytes")))
        #expect(fed <= 16 + 203)
        // Also when the whole oversized head arrives in one piece.
        let whole = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 300) + "\r\n\r\n"
        #expect(Self.scan(whole, step: whole.utf8.count, limits: limits).0 == .failure(HTTPFailure(status: 431,
                message: "the header fields are larger than 200 bytes")))
    }

    @Test func aHeadIsParsedWithItsFramingAndConnection() throws {
        let head = try Self.parse("POST /savingsgoals/1/transfers?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length:  12 \r\nX-Empty:\r\n\r\n").get()
        #expect(head.method == "POST")
        #expect(head.target == "/savingsgoals/1/transfers?x=1")
        #expect(head.minorVersion == 1)
        #expect(head.framing == .length(12))
        #expect(head.keepAlive)
        #expect(head.fields.map(\.name) == ["Host", "Content-Length", "X-Empty"])
        #expect(head.fields.map(\.value) == ["a", "12", ""])

        let close = try Self.parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, Close\r\n\r\n").get()
        #expect(!close.keepAlive)
        let old = try Self.parse("GET / HTTP/1.0\r\n\r\n").get()
        #expect(!old.keepAlive)
        let oldKept = try Self.parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").get()
        #expect(oldKept.keepAlive)
        let chunked = try Self.parse("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\nExpect: 100-continue\r\n\r\n").get()
        #expect(chunked.framing == .chunked)
        #expect(chunked.expectsContinue)
        let absolute = try Self.parse("GET http://127.0.0.1:8080/users/1?a=b HTTP/1.1\r\nHost: a\r\n\r\n").get()
        #expect(absolute.target == "/users/1?a=b")
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n", 413),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 2\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        ("GET / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{7F}b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\n: empty name\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nX : space before colon\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n", 417),
        ("GET /\u{1B}[2J HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET * HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET / HTTP/1.10\r\nHost: a\r\n\r\n", 400),
        ("GET / HTTP/3.0\r\nHost: a\r\n\r\n", 505),
    ])
    func badHeadsAreRefusedWithTheirStatus(text: String, status: Int) {
        switch Self.parse(text) {
        case .success(let head): Issue.record("accepted: \(head)")
        case .failure(let failure): #expect(failure.status == status, "\(failure.message)")
        }
    }

    @Test func moreThanAHundredFieldsIs431() {
        let fields = (0..<101).map { "X-\($0): v\r\n" }.joined()
        #expect((try? Self.parse("GET / HTTP/1.1\r\nHost: a\r\n" + fields + "\r\n").get()) == nil)
        if case .failure(let failure) = Self.parse("GET / HTTP/1.1\r\nHost: a\r\n" + fields + "\r\n") {
            #expect(failure.status == 431)
        }
    }

    /// A new goal may carry a 10 MB photo as base64: its request may be 15 MB, every other 1 MB.
    @Test func aGoalWithAPhotoMayBeLargerThanOtherRequests() {
        func status(_ method: String, _ target: String, length: Int) -> Int {
            switch Self.parse("\(method) \(target) HTTP/1.1\r\nHost: a\r\nContent-Length: \(length)\r\n\r\n") {
            case .success(let head): head.framing == .length(length) ? 200 : 0
            case .failure(let failure): failure.status
            }
        }
        let photo = 10 * 1024 * 1024 * 4 / 3 + 200  // 10 MB as base64, and the name
        #expect(status("POST", "/savingsgoals", length: photo) == 200)
        #expect(status("POST", "/api/savingsgoals?x=1", length: photo) == 200)
        #expect(status("PUT", "/api/v2/account/a1/savings-goals", length: photo) == 200)
        #expect(status("POST", "/savingsgoals", length: 15 * 1024 * 1024 + 1) == 413)
        // Anything else keeps the 1 MB limit.
        #expect(status("POST", "/savingsgoals/1/transfers", length: photo) == 413)
        #expect(status("GET", "/savingsgoals", length: 1024 * 1024 + 1) == 413)
        #expect(status("PUT", "/api/v2/account/a1/savings-goals/g1/add-money/t1", length: photo) == 413)
        #expect(Self.limits.maxBody(method: "POST", target: "/savingsgoals") == 15 * 1024 * 1024)
        #expect(Self.limits.maxBody(method: "GET", target: "/savingsgoals") == 1024 * 1024)
    }

    /// Runs a chunked body through the reader `step` bytes at a time.
    static func dechunk(_ text: String, step: Int, limits: ServeLimits = limits) -> Result<Data, HTTPFailure> {
        let bytes = Array(text.utf8)
        var reader = ChunkedBodyReader(limits: limits)
        var start = 0
        var end = 0
        while true {
            let outcome = bytes[start..<end].withUnsafeBytes { reader.step($0) }
            switch outcome {
            case .failure(let failure): return .failure(failure)
            case .done: return .success(reader.body)
            case .progress(let consumed, let needMore):
                start += consumed
                if needMore {
                    guard end < bytes.count else { return .failure(HTTPFailure(status: 0, message: "ran out")) }
                    end = min(end + step, bytes.count)
                }
            }
        }
    }

    @Test(arguments: [1, 3, 1000])
    func chunkedBodiesAreJoinedHoweverTheyArrive(step: Int) throws {
        let body = try Self.dechunk("5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nTrailer: x\r\n\r\n", step: step).get()
        #expect(String(decoding: body, as: UTF8.self) == "hello, world")
    }

    @Test func chunkedBodiesOverTheLimitOrMalformedAreRefused() {
        var limits = Self.limits
        limits.maxBody = 10
        #expect(Self.dechunk("8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n", step: 100, limits: limits)
            == .failure(HTTPFailure(status: 413, message: "the body is larger than 10 bytes")))
        #expect((try? Self.dechunk("zz\r\n", step: 100).get()) == nil)
        #expect((try? Self.dechunk("5\r\nhelloXX", step: 100).get()) == nil)
        #expect((try? Self.dechunk(String(repeating: "0", count: 2000), step: 100).get()) == nil)
    }
}
