import DemoData
import DemoServer
import FeedModel
import Foundation
import Testing
import TestSupport

/// Issue 46: the four things `roundups --save` can say, from the real binary on a pseudo-terminal,
/// against `serve`'s API behind a `FaultProxy` whose script loses chosen answers. Each run's
/// words are checked against what the server did (docs/roundups.md, "After a lost answer").
@Suite(.serialized, .timeLimit(.minutes(2))) struct LostAnswerWordsBinaryTests {
    /// Refuses every transfer (422), moving nothing.
    struct RefusingTransfers: ServeHandler {
        let inner: DemoAPIHandler
        func handle(_ request: ServeRequest) async -> ServeResponse {
            if request.path.hasSuffix("/transfers") { return .error(422, "the goal is closed") }
            return await inner.handle(request)
        }
    }

    /// One run of `roundups --save` through `proxy`, with its own HOME (the record lives there).
    static func save(through proxy: FaultProxy, home: URL) async -> (status: Int32?, text: String) {
        await onOwnThread {
            guard let terminal = try? TerminalSession(arguments: ["roundups", "--save", "--goal", "Balloons", "--week", "last", "--yes",
                                                                  "--api-url", proxy.url],
                                                      width: 200, environment: ["HOME": home.path, "XDG_CACHE_HOME": "", "XDG_CONFIG_HOME": ""])
            else { return (nil, "no pseudo-terminal") }
            defer { if terminal.process.isRunning { kill(terminal.process.processIdentifier, SIGKILL) } }
            let status = terminal.waitForExit(timeout: 60)
            return (status, terminal.text.replacingOccurrences(of: "\r\n", with: "\n"))
        }
    }

    static func balloons(_ backend: DemoBackend) async -> Money? {
        await backend.dataset.goals.first { $0.name == "Balloons" }?.balance
    }

    /// A proxy script that breaks the first `count` POSTs with `fault` and passes everything else.
    static func losing(_ count: Int, with fault: FaultProxy.Fault) -> @Sendable (FaultProxy.Request) -> FaultProxy.Fault {
        let left = Locked(count)
        return { request in
            guard request.method == "POST" else { return .pass }
            return left.withLock { left in
                defer { left = max(0, left - 1) }
                return left > 0 ? fault : .pass
            }
        }
    }

    @Test func movedByThisRunAfterALostAnswerThenAlreadySaved() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("lost-words-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let backend = DemoBackend(now: Date())
        let server = try DemoHTTPServer(handler: DemoAPIHandler(backend: backend))
        try await server.start()
        let proxy = try FaultProxy(upstreamPort: UInt16(await server.baseURL.port ?? 0), script: Self.losing(1, with: .dropAfterRequest))
        defer { proxy.stop() }
        let before = try #require(await Self.balloons(backend))

        // The first answer is lost: the run checks at once, and says it moved, once.
        let first = await Self.save(through: proxy, home: home)
        let moved = try #require(await Self.balloons(backend)) - before
        #expect(first.status == 0, "\(first.text)")
        #expect(moved.minorUnits > 0)
        #expect(first.text.contains("the answer was lost: checking whether \(moved.formatted) into Balloons moved"), "\(first.text)")
        #expect(first.text.contains("saved \(moved.formatted) into Balloons: its balance is now \((before + moved).formatted) "
                                    + "(its first answer was lost; checking found it moved once)"), "\(first.text)")

        // A second run: already saved, nothing moved.
        let second = await Self.save(through: proxy, home: home)
        #expect(second.status == 0)
        #expect(second.text.contains("already saved on "), "\(second.text)")
        #expect(await Self.balloons(backend) == before + moved)
        #expect(proxy.requests.filter { $0.request.method == "POST" }.count == 2)
        await server.stop()
    }

    @Test func mayHaveMovedThenMovedByTheEarlierRun() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("lost-words-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let backend = DemoBackend(now: Date())
        let server = try DemoHTTPServer(handler: DemoAPIHandler(backend: backend))
        try await server.start()
        // The send and the check at once both lose their answers (after the server read them).
        let proxy = try FaultProxy(upstreamPort: UInt16(await server.baseURL.port ?? 0), script: Self.losing(2, with: .reset))
        defer { proxy.stop() }
        let before = try #require(await Self.balloons(backend))

        let first = await Self.save(through: proxy, home: home)
        let moved = try #require(await Self.balloons(backend)) - before
        #expect(first.status == 1, "\(first.text)")
        #expect(moved.minorUnits > 0, "the server applied the first request")
        #expect(first.text.contains("\(moved.formatted) into Balloons may have moved: "), "\(first.text)")
        #expect(first.text.contains("the request was sent and may have reached the server"), "\(first.text)")
        #expect(!first.text.contains("unreachable") && !first.text.contains("cannot connect"), "\(first.text)")

        // The next run sends the same transfer: the earlier run had moved it; nothing moves now.
        let second = await Self.save(through: proxy, home: home)
        #expect(second.status == 0, "\(second.text)")
        #expect(second.text.contains("saved \(moved.formatted) into Balloons by the earlier run, whose answer was lost; nothing moved now"),
                "\(second.text)")
        #expect(await Self.balloons(backend) == before + moved)
        await server.stop()
    }

    @Test func refusedMovesNothingAndSaysSo() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("lost-words-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let backend = DemoBackend(now: Date())
        let server = try DemoHTTPServer(handler: RefusingTransfers(inner: DemoAPIHandler(backend: backend)))
        try await server.start()
        let proxy = try FaultProxy(upstreamPort: UInt16(await server.baseURL.port ?? 0)) { _ in .pass }
        defer { proxy.stop() }
        let before = try #require(await Self.balloons(backend))
        let run = await Self.save(through: proxy, home: home)
        #expect(run.status == 1, "\(run.text)")
        #expect(run.text.contains("not saved: POST /savingsgoals/1/transfers: HTTP 422: the goal is closed"), "\(run.text)")
        #expect(!run.text.contains("checking"), "a refusal is not checked: \(run.text)")
        #expect(await Self.balloons(backend) == before)
        await server.stop()
    }
}
