@testable import DemoServer
@testable import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension BlockingTests {
    /// `qapital-tui serve` against hostile and careless clients, as a process on loopback: every
    /// limit answers with its status and a JSON reason, nothing freezes it, and SIGTERM lets the
    /// request under way finish.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct ServeLimitsProcessTests {
        static let megabyte = 1 << 20

        static func expectAnswered(_ process: ServeProcess, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let client = try process.client()
            client.send("GET /savingsrules HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let response = client.readResponse()
            #expect(response?.status == 200, sourceLocation: sourceLocation)
            #expect(response.map { String(decoding: $0.body, as: UTF8.self).hasPrefix(#"{"savingsRules":"#) } == true,
                    sourceLocation: sourceLocation)
        }

        @Test func serveOutlivesAStderrWithNoReader() throws {
            // `serve 2>&1 | head -1`: the reader goes away after the first line; every request
            // then logs a line into a pipe nobody reads, and the stop report too.
            let serve = try ServeProcess()
            serve.closeStderr()
            for _ in 0..<3 { try Self.expectAnswered(serve) }
            #expect(serve.process.isRunning)
            #expect(serve.stopWithoutReading() == 0)
            #expect(serve.process.terminationReason == .exit)
        }

        @Test func twoOneMegabyteHeadersGet431AndTheServerStillAnswersAndStops() throws {
            let serve = try ServeProcess()
            let header = "GET /savingsgoals HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + String(repeating: "a", count: Self.megabyte) + "\r\n\r\n"
            let clients = try (0..<2).map { _ in try serve.client() }
            // Both sent (as far as the server takes them) before either answer is read.
            let sent = clients.map { $0.send(Array(header.utf8), deadline: RawHTTPClient.deadline(5)) }
            for (client, count) in zip(clients, sent) {
                let response = try #require(client.readResponse())
                #expect(response.status == 431)
                #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
                #expect(response.jsonError == "the header fields are larger than 16384 bytes")
                #expect(response.header("Connection") == "close")
                #expect(client.waitUntilClosed())
                #expect(count > 16_384)
            }
            try Self.expectAnswered(serve)
            let stop = serve.stop()
            #expect(stop.status == 0)
            #expect(stop.stderr.contains("- - 431"))
            #expect(stop.stderr.contains("stopped"))
        }

        @Test func aLongRequestLineGets414() throws {
            let serve = try ServeProcess()
            let client = try serve.client()
            client.send("GET /savingsgoals?" + String(repeating: "q", count: 20_000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.status == 414)
            #expect(response.jsonError == "the request line is longer than 16384 bytes")
            try Self.expectAnswered(serve)
            #expect(serve.stop().status == 0)
        }

        @Test func aHundredMegabytePostGets413BeforeItsBodyIsRead() throws {
            let serve = try ServeProcess()
            let client = try serve.client()
            let length = 100 * Self.megabyte
            client.send("POST /savingsgoals HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n")
            // The answer comes on the header alone.
            let response = try #require(client.readResponse())
            #expect(response.status == 413)
            // (A goal may carry a photo, so its request may be 15 MB; still not 100.)
            #expect(response.jsonError == "the body is larger than 15728640 bytes")
            // And the server does not take the body: sending it stalls or breaks long before 100 MB.
            let chunk = [UInt8](repeating: 0x20, count: Self.megabyte)
            var sent = 0
            for _ in 0..<100 {
                let count = client.send(chunk, deadline: RawHTTPClient.deadline(2))
                sent += count
                if count < chunk.count { break }
            }
            #expect(sent < 50 * Self.megabyte, "the server read \(sent) bytes of a refused body")
            try Self.expectAnswered(serve)
            #expect(serve.stop().status == 0)
        }

        @Test func aChunkedBodyOverTheLimitGets413() throws {
            let serve = try ServeProcess()
            let client = try serve.client()
            client.send("POST /savingsgoals/1/transfers HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = "80000\r\n" + String(repeating: "x", count: 0x80000) + "\r\n"
            for _ in 0..<3 { client.send(chunk, deadline: RawHTTPClient.deadline(2)) }
            let response = try #require(client.readResponse())
            #expect(response.status == 413)
            #expect(serve.stop().status == 0)
        }

        @Test func slowlorisConnectionsAreClosedByTheHeaderTimeout() throws {
            let serve = try ServeProcess(["--header-timeout", "0.5"])
            // Twenty connections that start a request and never finish it, one that sends nothing.
            let slow = try (0..<20).map { _ in try serve.client() }
            for client in slow { client.send("GET /savingsgoals HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ") }
            let silent = try serve.client()
            // Meanwhile others are answered.
            try Self.expectAnswered(serve)
            for client in slow {
                let response = try #require(client.readResponse())
                #expect(response.status == 408)
                #expect(response.jsonError?.hasPrefix("the request header did not arrive within") == true)
                #expect(client.waitUntilClosed())
            }
            #expect(silent.waitUntilClosed())
            #expect(silent.readResponse(deadline: RawHTTPClient.deadline(0.1)) == nil, "a connection that sent nothing gets no answer")
            // One that trickles a byte at a time is cut off as well.
            let trickle = try serve.client()
            var answered: RawHTTPClient.Response?
            for byte in "GET /savingsgoals HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8 where answered == nil {
                trickle.send([byte])
                answered = trickle.readResponse(deadline: RawHTTPClient.deadline(0.05))
            }
            answered = answered ?? trickle.readResponse()
            #expect(answered?.status == 408)
            // And one that follows a whole request with the start of another.
            let pipelined = try serve.client()
            pipelined.send("GET /savingsrules HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /savingsrules HTTP/1.1\r\nHo")
            #expect(pipelined.readResponse()?.status == 200)
            #expect(pipelined.readResponse()?.status == 408)
            #expect(pipelined.waitUntilClosed())
            #expect(serve.stop().status == 0)
        }

        @Test func malformedRequestsGet400WithAJSONReason() throws {
            let serve = try ServeProcess()
            let cases: [(String, Int, String)] = [
                ("GARBAGE\r\n\r\n", 400, "malformed request line"),
                ("GET  /savingsgoals HTTP/1.1\r\nHost: a\r\n\r\n", 400, "malformed request line"),
                ("GET /savingsgoals\r\nHost: a\r\n\r\n", 400, "malformed request line"),
                ("GET savingsgoals HTTP/1.1\r\nHost: a\r\n\r\n", 400, "malformed request target"),
                ("G(T /savingsgoals HTTP/1.1\r\nHost: a\r\n\r\n", 400, "malformed method"),
                ("GET /savingsgoals HTTP/1.1\r\n\r\n", 400, "an HTTP/1.1 request needs exactly one Host header"),
                ("GET /savingsgoals HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n", 400, "malformed header field"),
                ("GET /savingsgoals HTTP/1.1\r\nHost: a\r\nX: a\r\n folded\r\n\r\n", 400, "obsolete line folding in the header"),
                ("POST /savingsgoals HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
                 "both Transfer-Encoding and Content-Length"),
                ("POST /savingsgoals HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 400, "malformed Content-Length"),
                ("POST /savingsgoals HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400, "malformed Content-Length"),
                ("GET /savingsgoals HTTP/2.0\r\nHost: a\r\n\r\n", 505, "HTTP version not supported (use HTTP/1.1)"),
                ("\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\u{03}\u{03}\r\n\r\n", 400, "malformed request line"),
            ]
            for (request, status, reason) in cases {
                let client = try serve.client()
                client.send(request)
                let response = client.readResponse()
                #expect(response?.status == status, "\(request.debugDescription)")
                #expect(response?.header("Content-Type")?.hasPrefix("application/json") == true)
                #expect(response?.jsonError == reason, "\(request.debugDescription)")
                #expect(client.waitUntilClosed())
            }
            try Self.expectAnswered(serve)
            #expect(serve.stop().status == 0)
        }

        @Test func theConnectionCapAnswers503AndFreesUp() throws {
            let serve = try ServeProcess(["--max-connections", "3"])
            // Three kept-alive connections, each known to the server (answered once).
            var held = try (0..<3).map { _ in try serve.client() }
            for client in held {
                client.send("GET /savingsrules HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                #expect(client.readResponse()?.status == 200)
            }
            let fourth = try serve.client()
            let refused = try #require(fourth.readResponse())
            #expect(refused.status == 503)
            #expect(refused.jsonError == "too many connections (at most 3)")
            // Once one goes, another is let in (the server notices the close shortly).
            held.removeLast()
            var status: Int?
            for _ in 0..<200 where status != 200 {
                let client = try serve.client()
                client.send("GET /savingsrules HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                status = client.readResponse()?.status
            }
            #expect(status == 200)
            #expect(serve.stop().status == 0)
        }

        @Test func aRequestUnderWayFinishesOnSIGTERM() throws {
            let serve = try ServeProcess(["--latency-ms", "1000"])
            let client = try serve.client()
            // Two pipelined requests: when the first answer arrives, the second is being handled.
            client.send("GET /savingsrules HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /users/1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(client.readResponse()?.status == 200)
            kill(serve.process.processIdentifier, SIGTERM)
            let second = try #require(client.readResponse())
            #expect(second.status == 200)
            #expect(String(decoding: second.body, as: UTF8.self).contains(#""displayName":"Mikael""#))
            #expect(second.header("Connection") == "close")
            #expect(client.waitUntilClosed())
            let stop = serve.stop()
            #expect(stop.status == 0)
            #expect(stop.stderr.contains("SIGTERM: stopping"))
            #expect(stop.stderr.contains("stopped (1 request under way finished, 0 cut off)"))
            // And nothing listens any more.
            #expect(throws: RawHTTPClient.Failure.self) { try serve.client() }
        }
    }
}
