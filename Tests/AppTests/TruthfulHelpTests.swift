import ArgumentParser
import FeedModel
import Foundation
import SourceKit
import Testing
import TestSupport
@testable import qapital_tui

/// Help and flags that tell the truth (issue 41, item 11): each command offers what it takes and
/// takes what it offers.
@Suite struct TruthfulHelpTests {
    static let headless: [any ParsableCommand.Type] = [GoalsCommand.self, ActivityCommand.self, RoundUpsCommand.self, ExportCommand.self]

    /// `goals --help` offered `--output … ledger`, then refused it (exit 64).
    @Test func eachCommandOffersTheFormatsItWrites() throws {
        for (command, offered) in [(GoalsCommand.self as any ParsableCommand.Type, "table, json or csv"),
                                   (RoundUpsCommand.self, "table, json or csv"),
                                   (ActivityCommand.self, "table, json, csv or ledger"),
                                   (ExportCommand.self, "table, json, csv or ledger")] {
            let help = QapitalCommand.helpMessage(for: command, columns: 200)
            #expect(help.contains("--output <format>       \(offered) (docs/cli.md)."), "\(command)")
        }
        for name in ["goals", "roundups"] {
            #expect(throws: (any Error).self) { _ = try QapitalCommand.parse(arguments: [name, "--output", "ledger"]) }
            do {
                _ = try QapitalCommand.parse(arguments: [name, "--output", "ledger"])
            } catch {
                #expect(QapitalCommand.message(for: error) == "--output wants table, json or csv, not \"ledger\"")
                #expect(QapitalCommand.exitCode(for: error).rawValue == 64)
            }
        }
        _ = try QapitalCommand.parse(arguments: ["activity", "--output", "ledger"])
    }

    /// The headless commands listed `--theme` and `--no-images`, and `goals --achievements
    /// missing.json` failed on a file goals never reads.
    @Test func theHeadlessCommandsNeitherListNorTakeTheAppsDrawingFlags() throws {
        let drawing = [["--theme", "light"], ["--no-images"], ["--screen-reader"], ["--achievements", "missing.json"]]
        for command in Self.headless {
            let name = command.configuration.commandName ?? ""
            let help = QapitalCommand.helpMessage(for: command, columns: 200)
            for flag in drawing {
                #expect(!help.contains(flag[0] + " ") && !help.contains(flag[0] + "\n"), "\(name) lists \(flag[0])")
                do {
                    _ = try QapitalCommand.parse(arguments: [name] + flag)
                    Issue.record("\(name) took \(flag[0])")
                } catch {
                    #expect(QapitalCommand.message(for: error).contains("Unknown option '\(flag[0])'"), "\(name) \(flag[0])")
                }
            }
            // What they do take: where the data comes from, and colours in a table.
            #expect(help.contains("--source") && help.contains("--no-color") && help.contains("--config"))
        }
        // The app itself keeps them, at the top level and under `run`.
        let app = QapitalCommand.helpMessage(columns: 200)
        for flag in drawing { #expect(app.contains(flag[0]), "the app lacks \(flag[0])") }
        let root = try #require(try QapitalCommand.parse(arguments: ["--theme", "dark", "--achievements", "a.json"]) as? QapitalCommand)
        #expect(root.screen.theme == "dark" && root.screen.achievements == "a.json")
    }

    /// `help nope` printed the main help and exited 0.
    @Test func helpForACommandThatIsNotOneIsAUsageError() throws {
        do {
            _ = try QapitalCommand.parse(arguments: ["help", "nope"])
            Issue.record("help nope was taken")
        } catch {
            #expect(QapitalCommand.message(for: error).hasPrefix("help: no command \"nope\" (commands: activity, doctor, export, goals,"))
            #expect(QapitalCommand.exitCode(for: error).rawValue == 64)
        }
        _ = try QapitalCommand.parse(arguments: ["help", "goals"])
        _ = try QapitalCommand.parse(arguments: ["help"])
    }

    /// "reads a Up account".
    @Test func anArticleThatFitsTheBank() {
        #expect(QapitalCommand.banksSentence.contains("--source up reads an Up account"))
        #expect(QapitalCommand.banksSentence.contains("reads a Monzo account"))
        #expect(QapitalCommand.article("Up") == "an" && QapitalCommand.article("Starling Bank") == "a")
    }

    /// At 80 columns the examples wrapped mid-phrase ("sign in with your own Monzo" / "OAuth
    /// client" at the left margin): each example's lines are whole lines of the help.
    @Test func examplesAreWholeLinesAt80Columns() {
        let helps: [(String, [RegisteredSource.Example])] = [
            (QapitalCommand.helpMessage(columns: 80), QapitalCommand.examples),
            (QapitalCommand.helpMessage(for: GoalsCommand.self, columns: 80), GoalsCommand.examples),
            (QapitalCommand.helpMessage(for: ExportCommand.self, columns: 80), ExportCommand.examples),
            (QapitalCommand.helpMessage(for: RoundUpsCommand.self, columns: 80), RoundUpsCommand.examples),
        ]
        for (help, examples) in helps {
            let lines = Set(help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
            #expect(!examples.isEmpty)
            for example in examples {
                for line in HelpExamples.lines(example) {
                    #expect(line.count <= HelpExamples.width, "\(line)")
                    #expect(lines.contains(line), "not a whole line of the help at 80 columns: \(line)")
                }
            }
        }
        // Each source's own example lines are among the main help's.
        #expect(QapitalCommand.examples.contains { $0.arguments == "login monzo" })
    }

    @Test func aLongExampleGoesOnWordByWordInItsColumn() {
        let lines = HelpExamples.lines(.init("roundups --save --goal Dog --week last --yes",
                                             "last week's round-ups into Dog, once, and a great deal more words than fit"))
        #expect(lines[0] == "  qapital-tui roundups --save --goal Dog --week last --yes")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(String(repeating: " ", count: HelpExamples.column)) && $0.count <= HelpExamples.width })
        #expect(lines.dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            == "last week's round-ups into Dog, once, and a great deal more words than fit")
    }
}

/// The goal summary said "Target no target" for a goal without one.
@MainActor @Suite struct GoalSummaryWordsTests {
    @Test func aGoalWithoutATargetSaysSoOnce() async {
        let app = AppHarness(width: 120, height: 40)
        _ = await app.start()
        let lines = await app.press(.down)  // Dog, the second goal: no target
        #expect(lines.contains { $0.contains("│ No target") })
        #expect(!lines.contains { $0.contains("Target no target") || $0.contains("Target  no target") })
    }
}
