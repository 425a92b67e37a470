import ArgumentParser
@testable import DemoServer
import FeedModel
import Foundation
import Testing
@testable import qapital_tui

/// Adding a source is its registry entry: the help, the config file, `--source` and `serve --api`
/// all follow the one list, so none of them names a source by hand.
@Suite struct SourceRegistryTests {
    @Test func namesAreUniqueLowercaseWords() {
        let names = SourceRegistry.all.map(\.name)
        #expect(Set(names).count == names.count)
        for name in names {
            #expect(!name.isEmpty && name.allSatisfy { $0.isASCII && $0.isLowercase }, "\(name)")
        }
    }

    @Test func theHelpListsEverySource() {
        let help = QapitalCommand.helpMessage(columns: 400)
        for source in SourceRegistry.all {
            #expect(help.contains(source.name), "--help lacks \(source.name)")
            for variable in source.description.tokenVariables where source.description.signIn.checksToken {
                #expect(help.contains(variable) || variable == "QAPITAL_TOKEN", "--help lacks \(variable)")
            }
        }
        #expect(help.contains("Where the data comes from: " + SourceRegistry.list()))
        let serve = QapitalCommand.helpMessage(for: ServeCommand.self, columns: 400)
        for source in SourceRegistry.served {
            #expect(serve.contains(source.name) && serve.contains(source.description.documentation), "serve --help lacks \(source.name)")
        }
    }

    @Test func everySourceIsChosenByName() throws {
        for source in SourceRegistry.all {
            var arguments = ["--source", source.name]
            if source.description.signIn == .optionalToken { arguments += ["--api-url", "http://127.0.0.1:9"] }
            let chosen = try AppOptions.parse(arguments).settings(environment: [:]).source
            #expect(chosen.registered.name == source.name)
            #expect(chosen.baseURL == (source.description.signIn == .none ? nil
                : source.description.baseURL ?? URL(string: "http://127.0.0.1:9")))
        }
    }

    @Test func theConfigFileTakesEverySourceAndRefusesOthers() throws {
        for source in SourceRegistry.all {
            let config = try ConfigFile.parse("source = \"\(source.name)\"\n", file: "c.toml")
            #expect(config.source == (source.name == "demo" ? nil : source.name))
        }
        do throws(ConfigFile.Failure) {
            _ = try ConfigFile.parse("source = \"bank\"\n", file: "c.toml")
            Issue.record("accepted an unknown source")
        } catch {
            #expect(error.message == "c.toml:1: source: wants \(SourceRegistry.list()), not \"bank\"")
        }
        // A source's own table holds the keys its description lists, and nothing else.
        for source in SourceRegistry.all where !source.description.configKeys.isEmpty {
            let lines = source.description.configKeys.map { "\($0) = \"x-\($0)\"" }.joined(separator: "\n")
            let config = try ConfigFile.parse("[\(source.name)]\n\(lines)\n", file: "c.toml")
            for key in source.description.configKeys { #expect(config.sourceSettings[source.name]?[key] == "x-\(key)") }
            #expect(throws: ConfigFile.Failure.self) { try ConfigFile.parse("[\(source.name)]\nnope = \"1\"\n", file: "c.toml") }
        }
    }

    @Test func serveSpeaksEveryServedSourceAndRefusesOthers() throws {
        for source in SourceRegistry.served {
            let command = try #require(try QapitalCommand.parse(arguments: ["serve", "--api", source.name]) as? ServeCommand)
            #expect(command.api == source.name)
        }
        #expect(throws: (any Error).self) { try QapitalCommand.parse(arguments: ["serve", "--api", "bank"]) }
        #expect(throws: (any Error).self) { try QapitalCommand.parse(arguments: ["serve", "--api", "demo"]) }
    }

    /// A bank keeps its cache and its saved weeks apart per account: the saver's identity is the
    /// source's name, its base URL and the account.
    @Test func theSavedWeeksIdentityComesFromTheRegistry() throws {
        let options = try AppOptions.parse(["--no-cache"])
        for source in SourceRegistry.all {
            let base = source.description.signIn == .none ? nil : URL(string: "https://bank.example/")
            let saver = options.roundUpSaver(AppOptions.Source(source, base), account: "acc_1", environment: ["QAPITAL_TOKEN": "t"])
            switch source.description.signIn {
            case .none: #expect(saver.identity == .demo)
            // Issue 37.1: the Qapital API names no account; never the token (the goal's owner stands in).
            case .optionalToken: #expect(saver.identity == SaveIdentity(source: source.name + " https://bank.example", account: "",
                                                                          byGoalOwner: true))
            case .token, .tokenOrOAuth: #expect(saver.identity == SaveIdentity(source: source.name + " https://bank.example", account: "acc_1"))
            }
            // Another token (signing in again, or another machine's) is the same identity.
            for environment in [["QAPITAL_TOKEN": "another"], [:]] {
                #expect(options.roundUpSaver(AppOptions.Source(source, base), account: "acc_1", environment: environment).identity
                    == saver.identity)
            }
        }
    }
}
