import Foundation
import Testing
import TestSupport
@testable import qapital_tui

/// Issue 50.15: a command typed wrong suggests the right one, as git and gh do.
@Suite struct CommandSuggestionTests {
    static let commands = QapitalCommand.Subcommands.names

    @Test(arguments: [("gaols", "goals"), ("roundup", "roundups"), ("acitvity", "activity"), ("serv", "serve"),
                      ("exprot", "export"), ("Goals", "goals"), ("doctr", "doctor"), ("logn", "login")])
    func aNearWordSuggestsItsCommand(typed: String, meant: String) {
        #expect(CommandSuggestion.nearest(to: typed, in: Self.commands) == meant)
        #expect(CommandSuggestion.message(for: typed, commands: Self.commands)
                == "unknown command '\(typed)': did you mean \(meant)? (qapital-tui --help lists the commands)")
    }

    @Test(arguments: ["xyz", "--goals", "-v", "banana", "goals", "r", ""])
    func aFarWordAnOptionOrACommandSuggestsNothing(typed: String) {
        #expect(CommandSuggestion.message(for: typed, commands: Self.commands) == nil)
    }

    @Test func swappedLettersAreOneEdit() {
        #expect(CommandSuggestion.distance(Array("gaols"), Array("goals")) == 1)
        #expect(CommandSuggestion.distance(Array("serve"), Array("serve")) == 0)
        #expect(CommandSuggestion.distance(Array(""), Array("run")) == 3)
    }

    /// The binary: one line on stderr, usage status 64.
    @Test func theBinarySaysItAndExits64() throws {
        let process = Process()
        process.executableURL = TerminalSession.binary
        process.arguments = ["gaols"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 64)
        #expect(said == "qapital-tui: unknown command 'gaols': did you mean goals? (qapital-tui --help lists the commands)\n")
    }
}
