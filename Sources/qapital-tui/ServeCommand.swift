import ArgumentParser
import FeedModel

/// `qapital-tui serve`: the demo dataset over HTTP.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the demo dataset over HTTP until interrupted."
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on.")
    var port = 8080

    func run() async throws {
        throw ValidationError("serve is not built yet")
    }
}
