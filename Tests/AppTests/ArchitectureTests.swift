import Foundation
import Testing
import TermUI
@testable import QapitalApp

/// What docs/architecture.md claims about the app's shape, checked.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct ArchitectureTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/QapitalApp")

    /// AppCore is routing only: AppCore.swift, AppCore+Frame.swift and any other file that adds
    /// to it stay under 250 lines together. A file that extends it only to declare types (its
    /// `Configuration` and `Capabilities`, AppConfiguration.swift) is not routing and not counted.
    @Test func appCoreIsSmall() throws {
        var counted: [String: Int] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: Self.sources.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            let code = SourceSeamTests.code(text)
            let declares = code.contains("class AppCore ")
            guard declares || code.contains("extension AppCore ") else { continue }
            if !declares && Self.onlyDeclaresTypes(extending: "AppCore", code) { continue }
            counted[file] = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
        }
        #expect(counted["AppCore.swift"] != nil && counted["AppCore+Frame.swift"] != nil, "\(counted)")
        let lines = counted.values.reduce(0, +)
        #expect(lines <= 250, "AppCore's files have \(lines) lines: \(counted)")
    }

    /// Whether every `extension name` in `code` (comments left out) holds type declarations only.
    static func onlyDeclaresTypes(extending name: String, _ code: String) -> Bool {
        let declaration = /^\s*(@\w+(\(.*\))?\s+)*((public|internal|fileprivate|private|nonisolated|final|indirect)\s+)*(struct|enum|class|typealias|protocol)\s/
        var rest = code[...]
        while let start = rest.range(of: "extension \(name) ") {
            guard let open = rest[start.upperBound...].firstIndex(of: "{") else { return false }
            var depth = 0
            var top = ""  // the extension's body at its own depth: what it declares
            var index = open
            repeat {
                let character = rest[index]
                if character == "{" { depth += 1 } else if character == "}" { depth -= 1 } else if depth == 1 { top.append(character) }
                index = rest.index(after: index)
            } while depth > 0 && index < rest.endIndex
            for line in top.split(separator: "\n") where !line.allSatisfy(\.isWhitespace) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("@") && !trimmed.contains(" ") { continue }  // an attribute on its own line
                if line.firstMatch(of: declaration) == nil { return false }
            }
            rest = rest[index...]
        }
        return true
    }

    /// The weekdays' and months' names are tabled once (FeedModel's `CalendarWords`).
    @Test func calendarWordsAreTabledOnce() throws {
        let root = Self.sources.deletingLastPathComponent().deletingLastPathComponent()
        var found: [String] = []
        for folder in ["Sources", "Banks"] {
            let base = root.appendingPathComponent(folder)
            for case let file as String in FileManager.default.enumerator(atPath: base.path)! where file.hasSuffix(".swift") {
                if file.hasSuffix("Domain/CalendarWords.swift") { continue }
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8).replacingOccurrences(of: " ", with: "")
                for table in [#""Jan","Feb""#, #""Sun","Mon""#, #""Mon","Tue""#, #""January""#, #""Monday""#] where text.contains(table) {
                    found.append("\(folder)/\(file): \(table)")
                }
            }
        }
        #expect(found.isEmpty, "\(found)")
    }

    /// One list model: no file but ListScreen.swift keeps a `ListState` of its own, a filter
    /// of its own, or moves a `ListState` by itself; every list keeps a `ListModel` (issue 45, item 2).
    @Test func everyListKeepsTheOneListModel() throws {
        var found: [String] = []
        var models: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: Self.sources.path) where file.hasSuffix(".swift") {
            let code = SourceSeamTests.code(try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8))
            if code.contains("var model = ListModel()") { models.append(file) }
            guard file != "ListScreen.swift" else { continue }
            for pattern in ["ListState()", "var filter = \"\" {", "list.navigate(", "list.index(atX"] where code.contains(pattern) {
                found.append("\(file): \(pattern)")
            }
        }
        #expect(found.isEmpty, "\(found)")
        #expect(Set(models) == ["GoalListScreen.swift", "ActivityScreen.swift", "GoalDetailScreen.swift", "PeopleScreen.swift",
                                "PersonScreen.swift", "AchievementsScreen.swift", "RoundUpsScreen.swift", "GoalPicker.swift",
                                "RulesScreen.swift"], "\(models)")
    }

    /// Screens and overlays lay out with `Split` (`rows`, `columns`), not rectangles computed by
    /// hand; what is left places a picture at a point its caller chose.
    @Test func layoutComesFromSplit() throws {
        let allowed = ["PeopleScreen.swift"]  // `drawAvatar(x:y:)`: the avatar at its caller's point
        var found: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: Self.sources.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            if SourceSeamTests.code(text).contains("Rect(x:"), !allowed.contains(file) { found.append(file) }
        }
        #expect(found.isEmpty, "Rect(x:…) by hand in \(found)")
    }

    /// Every test suite (and test) docs/architecture.md names exists, so the tests it cites for
    /// its claims are there to check them.
    @Test func theSuitesTheArchitectureNamesExist() throws {
        let root = Self.sources.deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        var tests = ""
        for folder in ["Tests", "Banks"] {
            let base = root.appendingPathComponent(folder)
            for case let file as String in FileManager.default.enumerator(atPath: base.path)! where file.hasSuffix(".swift") {
                tests += try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
            }
        }
        let named = doc.matches(of: /`([A-Z][A-Za-z]+Tests)(?:\.([a-zA-Z]+))?`/).map { (String($0.output.1), $0.output.2.map(String.init)) }
        #expect(named.count >= 10, "\(named)")
        for (suite, test) in named where suite != "NAMEClientTests" {
            #expect(tests.contains("struct \(suite)") || tests.contains("enum \(suite)") || tests.contains("extension \(suite)"), "\(suite)")
            if let test { #expect(tests.contains("func \(test)("), "\(suite).\(test)") }
        }
    }

    /// Every lock in the app's own code is FeedModel's `Locked` (a `Mutex` ThreadSanitizer sees);
    /// `serve`'s SwiftNIO server keeps NIO's own `NIOLockedValueBox` (DemoServer, docs/architecture.md).
    @Test func everyLockIsLocked() throws {
        let root = Self.sources.deletingLastPathComponent().deletingLastPathComponent()
        var found: [String] = []
        for folder in ["Sources", "Banks"] {
            let base = root.appendingPathComponent(folder)
            for case let file as String in FileManager.default.enumerator(atPath: base.path)! where file.hasSuffix(".swift") {
                if file.hasSuffix("Support/Locked.swift") || file.hasPrefix("DemoServer/") || file.contains("/Tests/") { continue }
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                for lock in ["NSLock", "NSRecursiveLock", "Mutex<", "Mutex(", "NIOLockedValueBox", "os_unfair_lock", "pthread_mutex_t"]
                where text.contains(lock) {
                    found.append("\(folder)/\(file): \(lock)")
                }
            }
        }
        #expect(found.isEmpty, "\(found)")
    }

    /// A new tab is one line: `AppCore.tabs` is the only place that names the tab screens, and
    /// the tab bar, the number keys and the help follow it.
    @Test func aTabIsOneLine() async throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { $0.hasSuffix(".swift") }
        for tab in AppCore.tabs {
            let name = "\(tab).self"
            var places: [String] = []
            for file in files {
                let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
                if text.contains(name) { places.append(file) }
            }
            #expect(places == ["AppCore.swift"], "\(name) is named in \(places)")
        }
        let app = AppHarness(width: 120, height: 30)
        _ = await app.start()
        let help = KeysHelp.defaultEntries
        for (index, tab) in AppCore.tabs.enumerated() {
            #expect(app.terminal.lines[0].contains("\(index + 1) \(tab.title)"))
            await app.press(.char(Character("\(index + 1)")))
            #expect(type(of: app.core.screen) == tab, "key \(index + 1) shows \(tab)")
            for entry in tab.keyMap.helpEntries { #expect(help.contains(entry), "the help lists \(tab)'s \(entry.keyLabel)") }
        }
    }

    /// A screen's keys are its own actions (`ScreenAction`, named in its file) or shared ones:
    /// `AppAction` names no screen's action, so the core routes without knowing any.
    @Test func screensBindTheirOwnActions() {
        let shared = Set(AppAction.keyMap.bindings.map(\.action))
        for screen in AppCore.tabs.map({ $0 as any Screen.Type }) + KeysHelp.pushedScreens {
            for binding in screen.keyMap.bindings where !shared.contains(binding.action) {
                guard case .own = binding.action else {
                    Issue.record("\(screen) binds \(binding.action), a shared action outside the shared keys")
                    continue
                }
            }
        }
    }

    /// A screen's effects are its own: the commands a screen or overlay declares in its file
    /// (`extension Command`) are named in no other file, `CommandRunner` names none at all, and
    /// no file names another screen's `Action`. The core runs what it is handed.
    @Test func screensDeclareTheirOwnEffects() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { $0.hasSuffix(".swift") }
        var texts: [String: String] = [:]
        for file in files { texts[file] = SourceSeamTests.code(try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)) }
        var owned: [String: String] = [:]  // command → the file that declares it
        for (file, code) in texts where file != "Command.swift" {
            for block in Self.bodies(of: "extension Command {", in: code) {
                for match in block.matches(of: /static (?:let|func) (\w+)/) { owned[String(match.1)] = file }
            }
        }
        #expect(owned["showPreviousWeek"] == "RoundUpsScreen.swift" && owned["createGoal"] == "NewGoalForm.swift"
                && owned["fetchOlderActivity"] == "ActivityScreen.swift" && owned["checkToken"] == "SignInOverlay.swift", "\(owned)")
        for (command, home) in owned {
            // `.save(` or `Command.save`, word-bounded, not a member of a value (`offer.save`).
            let named = try Regex("(Command|[^\\w)\\]?!])\\.\(command)\\b")
            for (file, code) in texts where file != home {
                #expect(code.matches(of: named).isEmpty, "\(file) names \(home)'s command \(command)")
            }
        }
        let runner = try #require(texts["CommandRunner.swift"])
        #expect(!runner.contains("case ."), "CommandRunner knows no command")
        for (file, code) in texts {
            for match in code.matches(of: /(\w+)\.Action\b/) {
                let owner = String(match.1)
                #expect(file == owner + ".swift", "\(file) names \(owner)'s actions")
            }
        }
    }

    /// The bodies of every block of `code` that opens with `opening` (which ends with its `{`).
    static func bodies(of opening: String, in code: String) -> [Substring] {
        var found: [Substring] = []
        var rest = code[...]
        while let start = rest.range(of: opening) {
            var depth = 1
            var index = start.upperBound
            while depth > 0 && index < rest.endIndex {
                if rest[index] == "{" { depth += 1 } else if rest[index] == "}" { depth -= 1 }
                index = rest.index(after: index)
            }
            found.append(rest[start.upperBound..<index])
            rest = rest[index...]
        }
        return found
    }

    /// A tab added in a test (`FakeTab`, below): its type and its entry, nothing else. It shows in
    /// the tab bar with its number key, its own key reaches it, and `?`, the docs' key table
    /// check and the config's key names all have it.
    @Test func aFakeTabIsOneEntry() async throws {
        let docs = try KeyDocumentationTests.docs()
        await AddedTabs.$screens.withValue([FakeTab.self]) {
            let app = AppHarness(width: 120, height: 30)
            _ = await app.start()
            #expect(app.terminal.lines[0].contains("7 Fake"))
            await app.press(.char("7"))
            #expect(app.core.screen is FakeTab)
            let screen = await app.press(.char("w"))
            #expect(screen.contains { $0.contains("The fake tab, waved 1 times") }, "\(screen.joined(separator: "\n"))")
            #expect(screen.contains { $0.contains("The stores saw a wave (") }, "its own command ran: \(screen.joined(separator: "\n"))")

            let help = KeysHelp.defaultEntries
            #expect(help.contains(HelpEntry(section: "Views", keys: [.char("7")], help: "Fake")))
            #expect(help.contains(HelpEntry(section: "Fake", keys: [.char("w")], help: "wave from the fake tab")))
            #expect(KeyDocumentationTests.undocumented(in: docs) == ["| `7` | Fake |", "| `w` | wave from the fake tab |"])

            #expect(KeyOverrides.actionNames.contains("wave") && KeyOverrides.actionNames.contains("tab-7"))
            var keys = KeyOverrides()
            let known = keys.bind("wave", to: [.char("W")])
            #expect(known)
            #expect(KeysHelp.entries(keys).contains(HelpEntry(section: "Fake", keys: [.char("W")], help: "wave from the fake tab")))
            let rebound = AppHarness(width: 120, height: 30, keys: keys)
            _ = await rebound.start()
            await rebound.press(.char("7"), .char("w"), .char("W"))
            #expect((rebound.core.screen as? FakeTab)?.waves == 1)
        }
        // Outside the task it is gone again.
        #expect(!AppCore.tabs.contains { $0 == FakeTab.self })
        #expect(!KeyOverrides.actionNames.contains("wave"))
    }
}

/// The fake tab's own effect, declared with it: the core runs it without knowing it.
extension Command {
    static let waveAtTheStores = Command.noting("wave-at-the-stores") { runner in
        "The stores saw a wave (\(runner.stores.goals.goals.count) goals)."
    }
}

/// A tab declared in a test, with its own action, help and effect: what `aFakeTabIsOneEntry` adds.
@MainActor
final class FakeTab: TabScreen {
    nonisolated static let title = "Fake"
    enum Action: String, ScreenAction {
        case wave
    }

    nonisolated static let keyMap: KeyMap<AppAction> = {
        var map = KeyMap<AppAction>()
        map.bind([.char("w")], to: Action.wave, help: "wave from the fake tab", section: "Fake")
        return map
    }()

    var filter = ""
    private(set) var waves = 0

    init() {}

    func handle(_ key: Key, action: AppAction?, _ data: ScreenData) -> Outcome {
        guard Action(action) == .wave else { return .ignored }
        waves += 1
        return .run(.waveAtTheStores)
    }

    func draw(into buffer: inout CellBuffer, area: Rect, _ data: ScreenData) -> Layout {
        buffer.write("The fake tab, waved \(waves) times", x: area.x + 1, y: area.y + 1)
        return Layout(area: area)
    }
}
