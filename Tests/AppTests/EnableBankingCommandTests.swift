import ArgumentParser
import Foundation
@testable import qapital_tui
import Testing

/// `login` and `logout` for a source that signs in through a consent: the command line reaches
/// the command (not the app's own `--api-url`), and only such a source is taken.
@Suite struct EnableBankingCommandTests {
    @Test func loginTakesTheConsentOptions() throws {
        let command = try #require(try QapitalCommand.parse(arguments: [
            "login", "enablebanking", "--api-url", "http://127.0.0.1:8080", "--aspsp", "Mock ASPSP", "--country", "FI",
            "--psu-type", "business", "--redirect-url", "http://127.0.0.1:8766/callback", "--days", "30", "--paste", "--no-browser",
        ]) as? LoginCommand)
        #expect(command.apiURL == "http://127.0.0.1:8080" && command.aspsp == "Mock ASPSP" && command.country == "FI")
        #expect(command.psuType == "business" && command.redirectURL == "http://127.0.0.1:8766/callback" && command.days == 30)
        #expect(command.paste && command.noBrowser)
    }

    @Test func logoutIsACommandWithItsOwnAPIURL() throws {
        let command = try #require(try QapitalCommand.parse(arguments: ["logout", "enablebanking", "--api-url", "http://127.0.0.1:8080"])
                                   as? LogoutCommand)
        #expect(command.source == "enablebanking" && command.apiURL == "http://127.0.0.1:8080")
        #expect(SourceRegistry.withConsent.map(\.name) == ["enablebanking"])
        #expect(SourceRegistry.withSignIn.map(\.name).contains("enablebanking"))
    }

    @Test func logoutRefusesASourceWithoutAConsent() async throws {
        let command = try #require(try QapitalCommand.parse(arguments: ["logout", "monzo"]) as? LogoutCommand)
        await #expect(throws: ValidationError.self) { try await command.run() }
    }
}
