import DemoData
@testable import DemoServer
import Dispatch
import Foundation
import Testing
import TestSupport

extension BlockingTests {
    /// The in-process servers answered "no answer within 5 s" when the whole suite ran on two
    /// cores: their handlers waited for a thread of the cooperative pool, which CPU-bound tests
    /// held. They run on `ServeExecutor`'s threads now.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct ServeExecutorTests {
        /// Every thread of the cooperative pool is held (this test's own, and one blocked task per
        /// other core): the server still answers, well within the client's patience.
        @Test func aServerAnswersWhileEveryPoolThreadIsBusy() async throws {
            let server = try DemoHTTPServer(backend: DemoBackend(now: fixedNow))
            try await server.start()
            let port = try #require(await server.baseURL.port)
            let others = max(0, ProcessInfo.processInfo.activeProcessorCount - 1)
            let started = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            for _ in 0..<others {
                Task.detached {
                    started.signal()
                    _ = release.wait(timeout: .now() + 10)
                }
            }
            for _ in 0..<others { _ = started.wait(timeout: .now() + 10) }
            let response = Self.get(port: port, "/savingsrules")
            for _ in 0..<others { release.signal() }
            #expect(response?.status == 200)
            await server.stop()
        }

        /// A request over a raw socket, waited for by blocking this thread (no pool thread needed).
        static func get(port: Int, _ path: String) -> RawHTTPClient.Response? {
            guard let client = try? RawHTTPClient(port: UInt16(port)) else { return nil }
            client.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return client.readResponse(deadline: RawHTTPClient.deadline(3))
        }
    }
}
