import Commands
@testable import DemoData
@testable import DemoServer
import FeedModel
import Foundation
import Testing
import TestSupport

/// A Qapital API whose every answer of activities holds one amount past the app's bound.
struct OneBadActivityPerAnswer: ServeHandler {
    let inner: DemoAPIHandler

    func handle(_ request: ServeRequest) async -> ServeResponse {
        var response = await inner.handle(request)
        guard request.path.hasSuffix("/activities"),
              var document = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
              var activities = document["activities"] as? [[String: Any]], !activities.isEmpty else { return response }
        activities[0]["amount"] = 1e20
        document["activities"] = activities
        if let body = try? JSONSerialization.data(withJSONObject: document) { response.body = body }
        return response
    }
}

extension BlockingTests {
    /// The binary's statuses for records the source skipped: 3 and each named on stderr;
    /// `--strict`: 1 and nothing on stdout. And `export --new` through the binary.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct SkipBinaryTests {
        @Test func skippedRecordsExitThreeAndStrictExitsOneWithNothingWritten() async throws {
            let handler = OneBadActivityPerAnswer(inner: DemoAPIHandler(backend: DemoBackend(now: Date())))
            try await withServer(handler: handler) { server, _ in
                let environment = CommandBinaryTests.environment(["QAPITAL_API_URL": (await server.baseURL).absoluteString])
                let plain = try runProcess(TerminalSession.binary, ["activity", "--output", "csv"], environment: environment)
                #expect(plain.status == 3, "\(plain.stderr)")
                let lines = plain.stderr.split(separator: "\n").map(String.init)
                let named = lines.filter { $0.hasPrefix("qapital-tui: skipped a record from qapital: GET /activities") }
                #expect(!named.isEmpty && named.allSatisfy { $0.contains("amount") }, "\(plain.stderr)")
                #expect(lines.last == "qapital-tui: done, with \(named.count) \(named.count == 1 ? "record" : "records") skipped (named above)")
                #expect(plain.stdout.hasPrefix("time,amount,currency,minor_units"))

                let strict = try runProcess(TerminalSession.binary, ["activity", "--output", "csv", "--strict"], environment: environment)
                #expect(strict.status == 1, "\(strict.stderr)")
                #expect(strict.stdout.isEmpty)
                #expect(strict.stderr.split(separator: "\n").last?.hasPrefix("qapital-tui: --strict: the source sent ") == true)
            }
        }

        /// Against a server whose history stands still (the built-in demo's moves with the clock
        /// between two processes, so its newest row would be new to the second run).
        @Test func exportNewTwiceWritesTheHistoryOnce() async throws {
            try await withServer(handler: DemoAPIHandler(backend: DemoBackend(now: fixedNow))) { server, _ in
                let environment = CommandBinaryTests.environment(["QAPITAL_API_URL": (await server.baseURL).absoluteString])
                let first = try runProcess(TerminalSession.binary, ["export", "--new", "--until", "2026-11-25", "--output", "csv"],
                                           environment: environment)
                #expect(first.status == 0, "\(first.stderr)")
                #expect(first.stdout.split(separator: "\n").count > 50)
                let second = try runProcess(TerminalSession.binary, ["export", "--new", "--until", "2026-11-25", "--output", "csv"],
                                            environment: environment)
                #expect(second.status == 0, "\(second.stderr)")
                #expect(second.stdout.isEmpty)
                #expect(second.stderr.contains("(--new: the newest row exported before)"))
                let refused = try runProcess(TerminalSession.binary, ["export", "--new", "--no-cache", "--output", "csv"],
                                             environment: environment)
                #expect(refused.status == 64)
            }
        }
    }
}
