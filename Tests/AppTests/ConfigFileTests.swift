import ArgumentParser
import DemoData
import TestSupport
import FeedModel
import Foundation
import Testing
import TermUI
@testable import QapitalApp
@testable import qapital_tui

@Suite struct ConfigFileTests {
    static let good = """
        # qapital-tui settings
        source = "qapital"
        api-url = "http://127.0.0.1:8080"
        currency = "GBP"
        images = false
        theme = "light"

        [colors]
        accent = 33
        money-in = "#00af00"
        muted = "default"
        error = "bright-red"

        [keys]
        down = ["j", "Down", "Ctrl-n"]
        quit = "Q"
        tab-2 = "a"
        """

    @Test func aGoodFileSetsEverything() throws {
        let config = try ConfigFile.parse(Self.good, file: "config.toml")
        #expect(config.source == "qapital")
        #expect(config.apiURL == "http://127.0.0.1:8080")
        #expect(config.currency == "GBP")
        #expect(config.images == false)
        let theme = try #require(config.theme)
        #expect(theme.colors[.accent] == .indexed(33))
        #expect(theme.colors[.moneyIn] == .rgb(0, 0xAF, 0))
        #expect(theme.colors[.muted] == .default)
        #expect(theme.colors[.error] == .indexed(9))
        #expect(theme.colors[.moneyOut] == Theme.light.colors[.moneyOut])
        #expect(config.keys.actions[.moveDown] == [.char("j"), .down, .ctrl("n")])
        #expect(config.keys.actions[.quit] == [.char("Q")])
        #expect(config.keys.actions[.showTab(2)] == [.char("a")])
    }

    @Test func theTerminalTableForcesOrForbidsWhatTheProbeWouldDecide() throws {
        let config = try ConfigFile.parse("[terminal]\ngraphics = \"sixel\"\nsynchronized-output = false\ntruecolor = true\nprobe = false\n",
                                          file: "c")
        #expect(config.terminal == TerminalCapabilities.Overrides(graphics: .sixel, synchronizedOutput: false, truecolor: true, probe: false))
        #expect(try ConfigFile.parse("[terminal]\ngraphics = \"auto\"\n", file: "c").terminal == TerminalCapabilities.Overrides())
        #expect(try ConfigFile.parse("[terminal]\nkitty-placeholders = false\nsixel-scroll = true\n", file: "c").terminal
                == TerminalCapabilities.Overrides(kittyPlaceholders: false, sixelScrolls: true))
    }

    /// A source's table takes a whole number as its digits (Monzo's redirect `port = 8765`); a
    /// value of another kind is refused in one line naming it.
    @Test func aSourceTableTakesAPortAsANumberOrAString() throws {
        #expect(try ConfigFile.parse("[monzo]\nport = 8765\n", file: "c").sourceSettings["monzo"]?["port"] == "8765")
        #expect(try ConfigFile.parse("[monzo]\nport = \"8765\"\n", file: "c").sourceSettings["monzo"]?["port"] == "8765")
        #expect(throws: (any Error).self) { try ConfigFile.parse("[monzo]\nport = true\n", file: "c") }
    }

    @Test func anEmptyFileChangesNothing() throws {
        #expect(try ConfigFile.parse("", file: "c") == ConfigFile())
    }

    /// Every kind of mistake: one line that names the file, the line and what is wrong.
    @Test(arguments: [
        ("theme = \"dark\"\nimages = yes\n", "c.toml:2:"),                       // not TOML: TOMLKit's line and column
        ("[keys\ndown = \"j\"\n", "c.toml:1:"),
        ("theme = \"dark\"\ncolour = 3\n", "c.toml:2: colour: not a setting"),
        ("images = \"no\"\n", "c.toml:1: images: wants true or false"),
        ("\n\ntheme = \"blue\"\n", "c.toml:3: theme: wants default, light or dark, not \"blue\""),
        ("source = \"bank\"\n", "c.toml:1: source: wants demo, qapital, starling"),
        ("api-url = \"ftp://x\"\n", "c.toml:1: api-url: unsupported URL scheme"),
        ("currency = \"dollars\"\n", "c.toml:1: currency: not an ISO 4217 currency code"),
        ("currency = \"XYZ\"\n", "c.toml:1: currency: not an ISO 4217 currency code: \"XYZ\""),
        ("[colors]\nbackground = 3\n", "c.toml:2: colors.background: not a colour role"),
        ("[colors]\naccent = 300\n", "c.toml:2: colors.accent: wants 0-255"),
        ("[colors]\naccent = \"#12345\"\n", "c.toml:2: colors.accent: wants 0-255"),
        ("[keys]\njump = \"x\"\n", "c.toml:2: keys.jump: not an action"),
        ("[keys]\ndown = \"Hyper-x\"\n", "c.toml:2: keys.down: \"Hyper-x\" is not a key"),
        ("[keys]\ndown = []\n", "c.toml:2: keys.down: needs at least one key"),
        ("[keys]\ndown = 3\n", "c.toml:2: keys.down: wants a key name"),
        ("[keys]\ndown = \"x\"\nup = [\"k\", \"x\"]\n", "keys."),
        ("keys = 3\n", "c.toml:1: keys: wants a table"),
        ("[terminal]\ngraphics = \"ascii\"\n", "c.toml:2: terminal.graphics: wants auto, kitty, sixel, iterm2, half-blocks"),
        ("[terminal]\ntruecolor = \"yes\"\n", "c.toml:2: terminal.truecolor: wants true or false"),
        ("[terminal]\nsixel = true\n", "c.toml:2: terminal.sixel: not a terminal setting"),
        ("[terminal]\nkitty-placeholders = 1\n", "c.toml:2: terminal.kitty-placeholders: wants true or false"),
    ])
    func eachMistakeIsOneLineWithItsLine(text: String, expected: String) {
        do {
            _ = try ConfigFile.parse(text, file: "c.toml")
            Issue.record("no error for \(text)")
        } catch {
            #expect(error.message.hasPrefix(expected) || error.message.contains(expected), "\(error.message)")
            #expect(!error.message.contains("\n"))
        }
    }

    @Test func aDuplicateKeyNamesBothActions() {
        #expect(throws: ConfigFile.Failure.self) { try ConfigFile.parse("[keys]\ndown = \"x\"\nup = [\"k\", \"x\"]\n", file: "c") }
        do {
            _ = try ConfigFile.parse("[keys]\ndown = \"x\"\nup = [\"k\", \"x\"]\n", file: "c")
        } catch {
            #expect(error.message.contains("x is bound to"))
        }
    }

    /// Writes `text` as a config file in a fresh directory; returns its path.
    func file(_ text: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("qapital-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("config.toml")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test func aFileWithAnErrorStartsNothing() throws {
        let path = try file("theme = \"blue\"\n")
        #expect {
            _ = try AppOptions.parse(["--config", path]).settings(environment: [:])
        } throws: { error in
            (error as? ValidationError)?.message == "\(path):1: theme: wants default, light or dark, not \"blue\""
        }
        #expect(throws: ValidationError.self) {
            _ = try AppOptions.parse(["--config", path + ".missing"]).settings(environment: [:])
        }
    }

    @Test func theDefaultFileIsUnderXDGConfigHome() throws {
        let path = try file("theme = \"dark\"\nimages = false\n")
        let home = URL(fileURLWithPath: path).deletingLastPathComponent()
        let qapital = home.appendingPathComponent("qapital-tui")
        try FileManager.default.createDirectory(at: qapital, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path, toPath: qapital.appendingPathComponent("config.toml").path)
        let settings = try AppOptions.parse([]).settings(environment: ["XDG_CONFIG_HOME": home.path])
        #expect(settings.theme == Theme.dark)
        #expect(settings.images == false)
        // None there: the defaults.
        let none = try AppOptions.parse([]).settings(environment: ["XDG_CONFIG_HOME": "/nonexistent-qapital"])
        #expect(none.theme == Theme.terminal)
        #expect(none.images)
    }

    /// Flags, then the environment, then the file; NO_COLOR over any theme.
    @Test func flagsWinOverTheFileAndNoColorOverThemes() throws {
        let path = try file("""
            source = "qapital"
            api-url = "http://127.0.0.1:9001"
            currency = "EUR"
            images = true
            theme = "dark"
            """)
        let fromFile = try AppOptions.parse(["--config", path]).settings(environment: [:])
        #expect(fromFile.source == .qapital(URL(string: "http://127.0.0.1:9001")!))
        #expect(fromFile.currency == Currency.from(code: "EUR"))
        #expect(fromFile.theme == Theme.dark)
        #expect(fromFile.colors && fromFile.images)

        let flags = try AppOptions.parse(["--config", path, "--api-url", "http://127.0.0.1:9002", "--currency", "USD"])
            .settings(environment: [:], screen: ScreenOptions.parse(["--theme", "light", "--no-images"]))
        #expect(flags.source == .qapital(URL(string: "http://127.0.0.1:9002")!))
        #expect(flags.currency == .usd)
        #expect(flags.theme == Theme.light)
        #expect(!flags.images)

        let environment = try AppOptions.parse(["--config", path]).settings(environment: ["QAPITAL_API_URL": "http://127.0.0.1:9003"])
        #expect(environment.source == .qapital(URL(string: "http://127.0.0.1:9003")!))

        let noColor = try AppOptions.parse(["--config", path]).settings(environment: ["NO_COLOR": "1"])
        #expect(!noColor.colors && !noColor.images)
        #expect(throws: ValidationError.self) { _ = try AppOptions.parse([]).settings(environment: [:], screen: ScreenOptions.parse(["--theme", "neon"])) }
    }

    @Test func keyNamesReadAsHelpWritesThem() {
        #expect(Key(name: "j") == .char("j"))
        #expect(Key(name: "PgDn") == .pageDown)
        #expect(Key(name: "ctrl-F") == .ctrl("f"))
        #expect(Key(name: "Shift-Tab") == .backTab)
        #expect(Key(name: "space") == .char(" "))
        #expect(Key(name: "↓") == .down)
        #expect(Key(name: "F5") == .function(5))
        #expect(Key(name: "Ctrl-m") == nil)
        #expect(Key(name: "") == nil)
        #expect(Key(name: "\u{1B}") == nil)
    }
}

/// A key the config file rebinds works, the old one no longer does, and `?` shows the new one.
@MainActor @Suite struct RemappedKeyTests {
    @Test func aRemappedKeyMovesAndShowsInHelp() async throws {
        var keys = KeyOverrides()
        let bound = keys.bind("down", to: [.char("x")]) && keys.bind("tab-2", to: [.char("a")])
        #expect(bound)
        let app = AppHarness(width: 100, height: 40, keys: keys)
        _ = await app.start()
        #expect(app.core.goalList.list.selected == 0)
        await app.press(.char("j"))
        #expect(app.core.goalList.list.selected == 0)
        await app.press(.char("x"))
        #expect(app.core.goalList.list.selected == 1)
        await app.press(.char("a"))
        #expect(app.core.tabIndex == 1)
        await app.press(.char("2"))    // no longer bound: still Activity, nothing else
        #expect(app.core.tabIndex == 1)
        let help = await app.press(.char("?"))
        func line(_ keys: String, _ what: String) -> Bool {
            help.contains { line in
                let words = line.split(separator: " ").map(String.init)
                guard let first = words.firstIndex(of: keys) else { return false }
                return words[(first + 1)...].joined(separator: " ").hasPrefix(what)
            }
        }
        #expect(line("x", "down"), "\(help.joined(separator: "\n"))")
        #expect(line("a", "Activity"))
        #expect(!help.contains { $0.contains("j ↓") })
    }
}

/// Every action any key map binds has a config name, and every hint names the key as bound.
@MainActor @Suite struct KeyNameTests {
    @Test func everyBoundActionHasOneNameThatBindsIt() {
        let bound = Set(AppAction.keyMaps.flatMap(\.bindings).map(\.action))
        let named = Dictionary(AppAction.configNames.map { ($0.action, $0.name) }, uniquingKeysWith: { first, _ in first })
        #expect(bound.subtracting(named.keys).isEmpty, "no name: \(bound.subtracting(named.keys))")
        #expect(Set(AppAction.configNames.map(\.name)).count == AppAction.configNames.count, "names are unique")
        for (name, action) in AppAction.configNames {
            var keys = KeyOverrides()
            let known = keys.bind(name, to: [.char("Z")])
            #expect(known, "\(name)")
            #expect(keys.actions[action] == [.char("Z")])
        }
        // The keys issue 26 found without a name: tab 5, f on Achievements, c on a goal.
        for name in ["tab-\(AppCore.tabs.count)", "show-next", "toggle-chart"] {
            #expect(KeyOverrides.actionNames.contains(name), "\(name)")
        }
    }

    @Test func hintsNameTheKeysAsBound() async {
        var keys = KeyOverrides()
        let bound = keys.bind("quit", to: [.char("Q")]) && keys.bind("help", to: [.function(1)]) && keys.bind("refresh", to: [.char("R")])
        #expect(bound)
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "fake")
        api.script { $0.unreachable = [.goals] }
        let app = AppHarness(api: api, keys: keys)
        let screen = await app.start()
        let bar = screen.last ?? ""
        #expect(bar.hasSuffix("F1 help  Q quit "), "\(bar)")
        #expect(screen.contains { $0.contains("press R to retry") }, "\(screen.joined(separator: "\n"))")
        #expect(!screen.contains { $0.contains("press r to retry") })
        await app.press(.char("q"))
        #expect(!app.core.shouldQuit, "q is no longer quit")
        await app.press(.char("Q"))
        #expect(app.core.shouldQuit)
    }
}
