import ArgumentParser
import FeedModel
import Foundation
import SourceKit
import StarlingClient
import Testing
@testable import qapital_tui

/// The sources as the tests name them: a registered source at a base URL.
extension AppOptions.Source {
    static func qapital(_ url: URL) -> Self { Self(.qapital, url) }
    static func starling(_ url: URL) -> Self { Self(.starling, url) }
}

/// `--source`, `--sandbox`, `--api-url` and where the token comes from.
@Suite struct SourceCommandTests {
    func source(_ arguments: [String], _ environment: [String: String] = [:]) throws -> AppOptions.Source {
        try AppOptions.parse(arguments).settings(environment: environment).source
    }

    @Test func choosingTheSource() throws {
        #expect(try source([]) == .demo)
        #expect(try source(["--api-url", "http://127.0.0.1:8080"]) == .qapital(URL(string: "http://127.0.0.1:8080")!))
        #expect(try source(["--source", "starling"]) == .starling(StarlingAPI.productionURL))
        #expect(try source(["--source", "Starling", "--sandbox"]) == .starling(StarlingAPI.sandboxURL))
        #expect(try source(["--source", "starling", "--sandbox", "--api-url", "http://127.0.0.1:9"])
                == .starling(URL(string: "http://127.0.0.1:9")!))
        #expect(try source([], ["QAPITAL_SOURCE": "starling"]) == .starling(StarlingAPI.productionURL))
        #expect(try source(["--source", "qapital", "--api-url", "http://h:1"], ["QAPITAL_SOURCE": "starling"])
                == .qapital(URL(string: "http://h:1")!))
        #expect(try source([], ["QAPITAL_API_URL": "http://h:2"]) == .qapital(URL(string: "http://h:2")!))
    }

    @Test func starlingSettings() throws {
        let settings = try AppOptions.parse(["--source", "starling"]).settings(environment: [:])
        #expect(settings.api == nil)
        #expect(settings.pictureSchemes == [StarlingAPI.photoScheme])
    }

    @Test func badCombinationsAreOneLine() {
        for (arguments, expected) in [
            (["--source", "bank"], "--source wants \(SourceRegistry.list()), not \"bank\""),
            (["--sandbox"], "--sandbox goes with --source \(SourceRegistry.list(SourceRegistry.all.filter { $0.description.sandboxURL != nil }))"),
            (["--source", "qapital"], "--source qapital needs --api-url (or QAPITAL_API_URL)"),
            (["--source", "starling", "--currency", "USD"], "--currency does not apply to starling: the account says its own"),
            (["--source", "starling", "--api-url", "ftp://x"], "--api-url: unsupported URL scheme \"ftp\" in ftp://x (use http or https)"),
        ] {
            do {
                _ = try AppOptions.parse(arguments).settings(environment: [:])
                Issue.record("accepted \(arguments)")
            } catch let error as ValidationError {
                #expect(error.message == expected)
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test func aTokenGoesOverPlainHTTPOnlyToThisMachineUnlessAllowed() throws {
        let refusal = "--api-url: a token goes over plain http only to this machine (127.0.0.1, ::1, localhost), "
            + "not to bank.example: use https, or --allow-insecure-http"
        for (arguments, environment) in [(["--api-url", "http://bank.example", "--token", "t"], [String: String]()),
                                         (["--api-url", "http://bank.example"], ["QAPITAL_TOKEN": "t"]),
                                         (["--source", "starling", "--api-url", "http://bank.example:8080"], [:])] {
            do {
                _ = try AppOptions.parse(arguments).settings(environment: environment)
                Issue.record("accepted \(arguments)")
            } catch let error as ValidationError {
                #expect(error.message == refusal)
            } catch {
                Issue.record("\(error)")
            }
        }
        // https, this machine, no token at all, or the user's explicit word: accepted.
        #expect(try source(["--api-url", "https://bank.example", "--token", "t"]) == .qapital(URL(string: "https://bank.example")!))
        #expect(try source(["--api-url", "http://localhost:8080", "--token", "t"]) == .qapital(URL(string: "http://localhost:8080")!))
        #expect(try source(["--api-url", "http://[::1]:8080", "--token", "t"]) == .qapital(URL(string: "http://[::1]:8080")!))
        #expect(try source(["--api-url", "http://bank.example"]) == .qapital(URL(string: "http://bank.example")!))
        #expect(try source(["--api-url", "http://bank.example", "--token", "t", "--allow-insecure-http"])
                == .qapital(URL(string: "http://bank.example")!))
    }

    @Test func tokenOrder() throws {
        let both = ["STARLING_TOKEN": "starling", "QAPITAL_TOKEN": "qapital"]
        #expect(try AppOptions.parse(["--token", "flag"]).resolvedToken(both, for: StarlingAPI.source) == "flag")
        #expect(try AppOptions.parse([]).resolvedToken(both, for: StarlingAPI.source) == "starling")
        #expect(try AppOptions.parse([]).resolvedToken(["QAPITAL_TOKEN": "qapital"], for: StarlingAPI.source) == "qapital")
        #expect(try AppOptions.parse([]).resolvedToken(["STARLING_TOKEN": "", "QAPITAL_TOKEN": "q"], for: StarlingAPI.source) == "q")
        #expect(try AppOptions.parse([]).resolvedToken([:], for: StarlingAPI.source) == nil)
        // The Qapital API never gets Starling's token.
        #expect(try AppOptions.parse([]).resolvedToken(both) == "qapital")
    }

    @Test func anUnreachableServerIsOneLine() async throws {
        let bank = try #require(RegisteredSource.starling.bank)
        do throws(APIError) {
            _ = try await AppOptions.connect(bank, baseURL: URL(string: "http://127.0.0.1:1")!, token: "secret-token-xyz")
            Issue.record("connected to a closed port")
        } catch {
            #expect(error.kind == .cannotConnect)
            #expect(error.message == "GET /api/v2/accounts: cannot connect to 127.0.0.1:1")
        }
    }
}
