import DemoServer
import DemoData
import ArgumentParser
import FeedModel
import QapitalApp
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `qapital-tui serve`: the demo dataset over HTTP until interrupted.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the demo dataset over HTTP until interrupted.",
        discussion: """
        Every endpoint of docs/api.md, or with --api starling Starling Bank's (docs/starling.md), which
        requires the test token printed at start. Logs one line per request on stderr; Ctrl-C or
        SIGTERM stops it.
        """
    )

    @Option(help: "The API to serve: qapital (docs/api.md) or starling (docs/starling.md).")
    var api = "qapital"

    @Option(help: "The address to listen on (an IP address or localhost).")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port).")
    var port = 8080

    @Option(name: .customLong("latency-ms"), help: "Delay every answer by this many milliseconds.")
    var latencyMs = 0

    @Option(name: .customLong("fail-every"), help: "Answer every Nth request with HTTP 500 (0: never).")
    var failEvery = 0

    @Option(help: "The account's currency (ISO code; default USD, GBP for starling).")
    var currency: String?

    @Option(name: .customLong("empty-recent-days"), help: "Leave the most recent N days without activity.")
    var emptyRecentDays = 0

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard latencyMs >= 0 else { throw ValidationError("--latency-ms must not be negative") }
        guard failEvery >= 0 else { throw ValidationError("--fail-every must not be negative") }
        guard (0...36_500).contains(emptyRecentDays) else {
            throw ValidationError("--empty-recent-days must be between 0 and 36500")
        }
        guard ["qapital", "starling"].contains(api) else {
            throw ValidationError("--api wants qapital or starling, not \"\(TextSanitizer.clean(String(api.prefix(40))))\"")
        }
        if let currency, Currency.from(code: currency) == nil {
            throw ValidationError("--currency: not an ISO currency code: \(TextSanitizer.clean(String(currency.prefix(40))))")
        }
    }

    func run() async throws {
        let starling = api == "starling"
        let accountCurrency = currency.flatMap(Currency.from(code:)) ?? (starling ? .gbp : .usd)
        let options = DemoDataset.Options(emptyRecentDays: emptyRecentDays, currency: accountCurrency)
        let backend = DemoBackend(now: Date(), options: options)
        let serverOptions = DemoHTTPServer.Options(latency: .milliseconds(latencyMs), failEvery: failEvery, logRequests: true)
        let server = starling
            ? try DemoHTTPServer(handler: StarlingDemoAPI(backend: backend), host: host, port: UInt16(port), options: serverOptions)
            : try DemoHTTPServer(backend: backend, host: host, port: UInt16(port), options: serverOptions)

        // Before the server starts, so that Ctrl-C at any moment stops it cleanly.
        let signals = StopSignals([SIGINT, SIGTERM])
        defer { signals.cancel() }
        try await server.start()
        if starling {
            ServeCommand.say("serving the demo in Starling's API on \(await server.baseURL) (Ctrl-C to stop)")
            ServeCommand.say("test token: \(StarlingDemoAPI.testToken)")
            ServeCommand.say("try: qapital-tui --source starling --api-url \(await server.baseURL) --token \(StarlingDemoAPI.testToken)")
        } else {
            ServeCommand.say("serving the demo API on \(await server.baseURL) (Ctrl-C to stop)")
        }

        let post = signals.continuation
        Task {
            await server.waitUntilStopped()
            post.yield(0)
        }
        let received = await signals.next()
        guard received != 0 else {
            throw DemoHTTPServer.StartError(description: "the server stopped unexpectedly")
        }
        ServeCommand.say("\(received == SIGINT ? "SIGINT" : "SIGTERM"): stopping")
        await server.stop()
        ServeCommand.say("stopped")
    }

    static func say(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
