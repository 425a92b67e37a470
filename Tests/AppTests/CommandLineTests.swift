import ArgumentParser
import Testing
@testable import qapital_tui

@Suite struct CommandLineTests {
    @Test func serveParsesItsOptions() throws {
        let command = try QapitalCommand.parseAsRoot(["serve", "--port", "9000"])
        let serve = try #require(command as? ServeCommand)
        #expect(serve.port == 9000)
        #expect(serve.host == "127.0.0.1")
    }
}
