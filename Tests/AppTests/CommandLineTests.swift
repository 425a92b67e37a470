@testable import DemoServer
@testable import DemoData
import ArgumentParser
import FeedModel
import Testing
@testable import qapital_tui
@testable import QapitalApp

@Suite struct CommandLineTests {
    @Test func serveParsesItsOptions() throws {
        let command = try QapitalCommand.parse(arguments: ["serve", "--port", "9000"])
        let serve = try #require(command as? ServeCommand)
        #expect(serve.port == 9000)
        #expect(serve.host == "127.0.0.1")
    }

    /// `qapital-tui --help` is the app's help: its options and examples, and the subcommands.
    @Test func topLevelHelpListsTheAppsOptions() {
        let help = QapitalCommand.helpMessage(columns: 120)
        for text in ["--api-url", "--token", "--source", "--sandbox", "--currency", "--no-color", "--no-images", "--cache-dir",
                     "serve", "EXAMPLES:", "qapital-tui serve --port 8080"] {
            #expect(help.contains(text), "top-level help lacks \(text)")
        }
        #expect(!help.contains("--max-connections"))
        let serve = QapitalCommand.helpMessage(for: ServeCommand.self, columns: 120)
        #expect(serve.contains("--port") && serve.contains("--max-connections"))
        #expect(!serve.contains("--api-url"))
    }

    @Test func theAppsOptionsParseAtTheTopLevelAndUnderRun() throws {
        let root = try #require(try QapitalCommand.parse(arguments: ["--no-images", "--currency", "GBP"]) as? QapitalCommand)
        #expect(root.screen.noImages)
        #expect(root.app.currency == "GBP")
        let run = try #require(try QapitalCommand.parse(arguments: ["run", "--no-images"]) as? AppCommand)
        #expect(run.screen.noImages)
    }

    /// The completion scripts come from the same definitions: they know the app's options and `serve`'s.
    @Test func completionScriptsKnowTheOptions() {
        for shell in [CompletionShell.bash, .zsh, .fish] {
            let script = QapitalCommand.completionScript(for: shell)
            #expect(script.contains("api-url") && script.contains("serve") && script.contains("max-connections"), "\(shell)")
        }
    }
}

@Suite struct ServeCommandLineTests {
    @Test func serveParsesEveryOption() throws {
        let command = try QapitalCommand.parse(arguments: [
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
        #expect(throws: (any Error).self) { try QapitalCommand.parse(arguments: ["serve"] + arguments) }
    }

    @Test func aHostThatIsNotAnAddressIsRefused() {
        #expect(throws: DemoHTTPServer.StartError.self) {
            try DemoHTTPServer(backend: DemoBackend(), host: "example.com")
        }
    }

    /// `--log-file` that cannot be written is a one-line start error (the log itself: QapitalClientTests' RequestLogTests).
    @Test func anUnwritableLogFileStopsTheStart() {
        #expect(throws: (any Error).self) {
            _ = try AppOptions.parse(["--log-file", "/nonexistent-dir/q.log"]).settings(environment: [:])
        }
    }
}
