@testable import DemoServer
@testable import DemoData
import ArgumentParser
import FeedModel
import Testing
@testable import qapital_tui
@testable import QapitalApp

@Suite struct CommandLineTests {
    @Test func serveParsesItsOptions() throws {
        let command = try QapitalCommand.parseAsRoot(["serve", "--port", "9000"])
        let serve = try #require(command as? ServeCommand)
        #expect(serve.port == 9000)
        #expect(serve.host == "127.0.0.1")
    }
}

@Suite struct ServeCommandLineTests {
    @Test func serveParsesEveryOption() throws {
        let command = try QapitalCommand.parseAsRoot([
            "serve", "--host", "::1", "--port", "0", "--latency-ms", "250", "--fail-every", "3",
            "--currency", "gbp", "--empty-recent-days", "42", "--header-timeout", "0.5", "--idle-timeout", "2",
            "--max-connections", "8",
        ])
        let serve = try #require(command as? ServeCommand)
        #expect(serve.host == "::1")
        #expect(serve.port == 0)
        #expect(serve.latencyMs == 250)
        #expect(serve.failEvery == 3)
        #expect(serve.currency == "gbp")
        #expect(serve.emptyRecentDays == 42)
        #expect(serve.headerTimeout == 0.5)
        #expect(serve.idleTimeout == 2)
        #expect(serve.maxConnections == 8)
    }

    @Test(arguments: [["--port", "70000"], ["--latency-ms", "-1"], ["--fail-every", "-2"], ["--currency", "dollars"],
                      ["--empty-recent-days", "-1"], ["--header-timeout", "0"], ["--idle-timeout", "nan"],
                      ["--max-connections", "0"]])
    func serveRefusesBadOptions(arguments: [String]) {
        #expect(throws: (any Error).self) { try QapitalCommand.parseAsRoot(["serve"] + arguments) }
    }

    @Test func aHostThatIsNotAnAddressIsRefused() {
        #expect(throws: DemoHTTPServer.StartError.self) {
            try DemoHTTPServer(backend: DemoBackend(), host: "example.com")
        }
    }
}
