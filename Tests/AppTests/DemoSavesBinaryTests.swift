import DemoData
import FeedModel
import Foundation
import Testing
import TestSupport

extension BlockingTests {
    /// Issue 37.7: the README's own example on the demo saves once; the demo keeps its saves in
    /// the data folder (`$XDG_DATA_HOME/qapital-tui`), and `--reset-demo` starts it again.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct DemoSavesBinaryTests {
        @Test func theDemoSavesOnceAndRemembersUntilReset() throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("demo-saves-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let environment = ["PATH": "/usr/bin:/bin", "HOME": home.path, "XDG_CACHE_HOME": home.path + "/cache",
                               "XDG_CONFIG_HOME": home.path + "/config", "XDG_DATA_HOME": home.path + "/data", "TZ": "Europe/London"]
            let save = ["roundups", "--save", "--goal", "Balloons", "--week", "last", "--yes"]
            let first = try runProcess(TerminalSession.binary, save, environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.hasPrefix("saved "), "\(first.stdout)")
            let balance = try #require(first.stdout.components(separatedBy: "its balance is now ").last?
                .trimmingCharacters(in: .whitespacesAndNewlines))

            let second = try runProcess(TerminalSession.binary, save, environment: environment)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stdout.hasPrefix("already saved on "), "\(second.stdout)")
            // The goal kept the money: the next run's Balloons holds what the save said.
            let goals = try runProcess(TerminalSession.binary, ["goals"], environment: environment)
            #expect(goals.stdout.split(separator: "\n").first { $0.contains("Balloons") }?.contains(balance) == true, "\(goals.stdout)")
            let kept = home.appendingPathComponent("data/qapital-tui/demo-saves.json")
            let attributes = try FileManager.default.attributesOfItem(atPath: kept.path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)

            // Starting again: the demo forgot, and the week saves anew.
            let reset = try runProcess(TerminalSession.binary, save + ["--reset-demo"], environment: environment)
            #expect(reset.status == 0, "\(reset.stderr)")
            #expect(reset.stdout == first.stdout, "\(reset.stdout)")
        }
    
        /// Issue 50.3: a goal made on the demo, and a week saved into it, were gone after a
        /// restart while the record still said the week was saved. One process makes the goal
        /// and saves into it (as the app does, through `KeptDemoAPI`); the binary, another
        /// process, still has the goal with its money; `--reset-demo` forgets both.
        @Test func aGoalMadeOnTheDemoStaysWithItsMoneyUntilReset() async throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("demo-goals-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let data = home.appendingPathComponent("data/qapital-tui")
            let kept = KeptDemoAPI(base: DemoSavingsAPI(backend: DemoBackend(now: Date())), file: DemoSavesFile(directory: data))
            let temp = try await kept.createGoal(name: "Temp", target: nil, photo: nil)
            let amount = Money(minorUnits: 448, currency: .usd)
            _ = try await kept.transfer(goalId: temp.id, transferId: UUID(), amount: amount, attempt: .init(week: "2026-W47", resent: false))

            let environment = ["PATH": "/usr/bin:/bin", "HOME": home.path, "XDG_CACHE_HOME": home.path + "/cache",
                               "XDG_CONFIG_HOME": home.path + "/config", "XDG_DATA_HOME": home.path + "/data", "TZ": "Europe/London"]
            let goals = try runProcess(TerminalSession.binary, ["goals", "--output", "csv"], environment: environment)
            #expect(goals.status == 0, "\(goals.stderr)")
            let row = goals.stdout.split(separator: "\n").first { $0.contains("Temp") }
            #expect(row?.contains("4.48") == true, "\(goals.stdout)")
            let attributes = try FileManager.default.attributesOfItem(atPath: data.appendingPathComponent("demo-goals.json").path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)

            let reset = try runProcess(TerminalSession.binary, ["goals", "--output", "csv", "--reset-demo"], environment: environment)
            #expect(reset.status == 0, "\(reset.stderr)")
            #expect(!reset.stdout.contains("Temp"), "\(reset.stdout)")
        }

        /// A guilty pleasure's transfer on the demo names the demo's rule of its kind, as a
        /// client of the API does; the next run, which applies the kept saves again, still does.
        @Test func aRulesSaveOnTheDemoKeepsItsRuleAcrossRuns() async throws {
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("demo-rule-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: data) }
            let first = KeptDemoAPI(base: DemoSavingsAPI(backend: DemoBackend(now: Date())), file: DemoSavesFile(directory: data))
            let goal = try #require(try await first.goals().first { $0.status == .active })
            let coffee = UUID(), roundUps = UUID()
            _ = try await first.transfer(goalId: goal.id, transferId: coffee, amount: Money(minorUnits: 400, currency: .usd),
                                         attempt: .init(week: "2026-W47", resent: false, rule: "coffee", kind: "guilty-pleasure"))
            _ = try await first.transfer(goalId: goal.id, transferId: roundUps, amount: Money(minorUnits: 123, currency: .usd),
                                         attempt: .init(week: "2026-W47", resent: false))
            let guilty = try #require(try await first.rules().first { $0.kind == .guiltyPleasure })
            let next = KeptDemoAPI(base: DemoSavingsAPI(backend: DemoBackend(now: Date())), file: DemoSavesFile(directory: data))
            for api in [first, next] {
                let feed = try await api.feed(goalId: goal.id)
                let saved = try #require(feed.first { $0.id == coffee.uuidString.lowercased() })
                #expect(saved.savingsRuleId == guilty.id && saved.message.plainText.contains("guilty pleasure"), "\(saved)")
                let rounded = try #require(feed.first { $0.id == roundUps.uuidString.lowercased() })
                #expect(rounded.savingsRuleId != guilty.id && rounded.message.plainText.contains("round-ups"), "\(rounded)")
            }
        }
    }
}
