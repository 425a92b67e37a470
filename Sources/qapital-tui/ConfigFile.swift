import FeedModel
import Foundation
import SourceKit
import HTTPTransport
import QapitalApp
import TOMLKit
import TermUI

/// The settings file, as lazygit, k9s and htop have one: `$XDG_CONFIG_HOME/qapital-tui/config.toml`
/// (else `~/.config/qapital-tui/config.toml`), or the file `--config` names. Flags and the
/// environment win over it; `NO_COLOR` wins over its theme. A file with any error starts
/// nothing: one line names the file, the line and what is wrong.
struct ConfigFile: Equatable {
    /// A registered source's name (`demo` reads as nothing set).
    var source: String?
    var apiURL: String?
    var currency: String?
    /// `round-up-step`: whole units of the account's currency payments round up to.
    var roundUpStep: Int?
    var images: Bool?
    /// `[ui] screen-reader = true`: the mode for screen readers (`--screen-reader`).
    var screenReader: Bool?
    /// The theme with the file's colour overrides; nil when the file names neither.
    var theme: Theme?
    var keys = KeyOverrides()
    /// A source's own table (`[monzo]` with `client-id = "…"`): its keys as its description lists them.
    var sourceSettings: [String: [String: String]] = [:]

    /// The sources with a table of their own (`[monzo]`).
    static var sourceTables: [String] {
        SourceRegistry.all.filter { !$0.description.configKeys.isEmpty }.map(\.name)
    }
    /// `[terminal]`: pictures, synchronized output, truecolor and the probe forced or forbidden.
    var terminal = TerminalCapabilities.Overrides()

    /// A file bigger than this is not a settings file.
    static let maximumSize = 256 * 1024

    struct Failure: Error, Equatable, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// The default file: under `$XDG_CONFIG_HOME` when it is an absolute path, else under
    /// `$HOME/.config`; nil when the environment names neither.
    static func defaultURL(environment: [String: String]) -> URL? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("qapital-tui/config.toml")
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(".config/qapital-tui/config.toml")
    }

    /// The file `path` names (it must exist), else the default one if there is one.
    static func load(path: String?, environment: [String: String]) throws(Failure) -> ConfigFile? {
        let url: URL
        if let path {
            url = URL(fileURLWithPath: HomePath.expand(path, environment: environment))
        } else {
            guard let found = defaultURL(environment: environment), FileManager.default.fileExists(atPath: found.path) else {
                return nil
            }
            url = found
        }
        let shown = TextSanitizer.clean(url.path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw Failure(message: "\(shown): no such config file")
        }
        guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: url.path) else {
            throw Failure(message: "\(shown): cannot read the config file")
        }
        guard data.count <= maximumSize else { throw Failure(message: "\(shown): too big for a config file (over 256 KB)") }
        guard let text = String(data: data, encoding: .utf8) else { throw Failure(message: "\(shown): not UTF-8 text") }
        return try parse(text, file: shown)
    }

    /// Reads the file's text; `file` is how messages name it.
    static func parse(_ text: String, file: String) throws(Failure) -> ConfigFile {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            let position = error.source.begin
            throw Failure(message: "\(file):\(position.line):\(position.column): \(TextSanitizer.clean(error.description))")
        } catch {
            throw Failure(message: "\(file): not a TOML file")
        }
        var reader = Reader(file: file, lines: text.components(separatedBy: "\n"))
        return try reader.read(table)
    }

    /// Turns the table into settings; every complaint names the line of its key (else the key path).
    private struct Reader {
        let file: String
        let lines: [String]

        func failure(_ path: [String], _ what: String) -> Failure {
            let shownPath = path.map { TextSanitizer.clean(String($0.prefix(40))) }.joined(separator: ".")
            if let line = line(of: path) {
                return Failure(message: "\(file):\(line): \(shownPath): \(what)")
            }
            return Failure(message: "\(file): \(shownPath): \(what)")
        }

        /// The line (from 1) that sets `path`: `key =` under `[table]`, or `table.key =` at the top.
        func line(of path: [String]) -> Int? {
            guard let key = path.last else { return nil }
            var table = ""
            for (index, raw) in lines.enumerated() {
                let line = raw.trimmingCharacters(in: .whitespaces)
                if line.hasPrefix("["), let end = line.firstIndex(of: "]") {
                    table = line[line.index(after: line.startIndex)..<end].trimmingCharacters(in: .whitespaces)
                    continue
                }
                guard let equals = line.firstIndex(of: "=") else { continue }
                var name = line[..<equals].trimmingCharacters(in: .whitespaces)
                if name.count >= 2, name.first == "\"" || name.first == "'", name.last == name.first {
                    name = String(name.dropFirst().dropLast())
                }
                let full = table.isEmpty ? name : table + "." + name
                if full == path.joined(separator: ".") { return index + 1 }
                if table.isEmpty, path.count == 1, name == key { return index + 1 }
            }
            // A whole table named (`[colours]`): its header line.
            let whole = path.joined(separator: ".")
            return lines.firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("[\(whole)]") }.map { $0 + 1 }
        }

        func string(_ value: TOMLValueConvertible, _ path: [String]) throws(Failure) -> String {
            guard let text = value.string else { throw failure(path, "wants a string in quotes") }
            return text
        }

        mutating func read(_ table: TOMLTable) throws(Failure) -> ConfigFile {
            var config = ConfigFile()
            var themeName: String?
            var colors: [ColorRole: Color] = [:]
            for key in table.keys {
                guard let value = table[key] else { continue }
                let path = [key]
                switch key {
                case "source":
                    let text = try string(value, path).lowercased()
                    guard SourceRegistry.named(text) != nil else {
                        throw failure(path, "wants \(SourceRegistry.list()), not \"\(TextSanitizer.clean(String(text.prefix(40))))\"")
                    }
                    config.source = text == "demo" ? nil : text
                case "api-url":
                    let text = try string(value, path)
                    do {
                        _ = try HTTPTransport.validate(baseURL: text)
                    } catch {
                        throw failure(path, error.message)
                    }
                    config.apiURL = text
                case "currency":
                    let text = try string(value, path)
                    guard Currency.from(code: text) != nil else {
                        throw failure(path, Currency.refusal(text))
                    }
                    config.currency = text
                case "round-up-step":
                    guard let units = value.int, (1...AppOptions.maximumRoundUpStep).contains(units) else {
                        throw failure(path, "wants a whole number of units from 1 to \(AppOptions.maximumRoundUpStep)")
                    }
                    config.roundUpStep = units
                case "images":
                    guard let flag = value.bool else { throw failure(path, "wants true or false") }
                    config.images = flag
                case "theme":
                    let text = try string(value, path).lowercased()
                    guard Theme.named.contains(where: { $0.name == text }) else {
                        throw failure(path, "wants default, light or dark, not \"\(TextSanitizer.clean(String(text.prefix(40))))\"")
                    }
                    themeName = text
                case "colors", "colours":
                    guard let roles = value.table else { throw failure(path, "wants a table: [colors] with role = colour lines") }
                    for role in roles.keys {
                        guard let colorValue = roles[role] else { continue }
                        let rolePath = [key, role]
                        guard let known = ColorRole.allCases.first(where: { $0.configName == role }) else {
                            throw failure(rolePath, "not a colour role (\(ColorRole.allCases.map(\.configName).joined(separator: ", ")))")
                        }
                        let text = colorValue.int.map(String.init) ?? colorValue.string
                        guard let text, let color = Color(configValue: text) else {
                            throw failure(rolePath, "wants 0-255, \"#rrggbb\", \"default\" or a colour name such as \"blue\"")
                        }
                        colors[known] = color
                    }
                case "keys":
                    guard let bindings = value.table else { throw failure(path, "wants a table: [keys] with action = key lines") }
                    config.keys = try readKeys(bindings)
                case "ui":
                    guard let settings = value.table else { throw failure(path, "wants a table: [ui] with screen-reader") }
                    for name in settings.keys {
                        guard name == "screen-reader" else { throw failure([key, name], "not a setting (screen-reader)") }
                        guard let flag = settings[name]?.bool else { throw failure([key, name], "wants true or false") }
                        config.screenReader = flag
                    }
                case "terminal":
                    guard let settings = value.table else { throw failure(path, "wants a table: [terminal] with graphics, synchronized-output, truecolor, kitty-placeholders, sixel-scroll, probe") }
                    config.terminal = try readTerminal(settings)
                case let name where !(SourceRegistry.named(name)?.description.configKeys.isEmpty ?? true):
                    config.sourceSettings[name] = try readSourceTable(value, name: name)
                default:
                    let tables = ConfigFile.sourceTables.map { "[\($0)]" }
                    throw failure(path, "not a setting (" + (["source", "api-url", "currency", "round-up-step", "images", "theme", "[colors]", "[keys]", "[terminal]", "[ui]"]
                                                             + tables).joined(separator: ", ") + ")")
                }
            }
            if themeName != nil || !colors.isEmpty {
                let base = Theme.named.first { $0.name == (themeName ?? "default") }?.theme ?? .terminal
                config.theme = base.overriding(colors)
            }
            return config
        }

        /// `[NAME]`: the keys the source's description lists, each a string (a whole number, such
        /// as a port, is taken as its digits).
        func readSourceTable(_ value: TOMLValueConvertible, name: String) throws(Failure) -> [String: String] {
            let allowed = SourceRegistry.named(name)?.description.configKeys ?? []
            guard let table = value.table else { throw failure([name], "wants a table: [\(name)] with key = \"value\" lines") }
            var settings: [String: String] = [:]
            for key in table.keys {
                guard let entry = table[key] else { continue }
                guard allowed.contains(key) else { throw failure([name, key], "not a setting of \(name) (\(allowed.joined(separator: ", ")))") }
                if let number = entry.int {
                    settings[key] = String(number)
                } else {
                    settings[key] = try string(entry, [name, key])
                }
            }
            return settings
        }

        /// `[terminal]`: `graphics = "auto"` (or kitty, sixel, iterm2, half-blocks), and
        /// `synchronized-output`, `truecolor`, `kitty-placeholders`, `sixel-scroll`, `probe` as true or false
        /// (absent: detected).
        func readTerminal(_ table: TOMLTable) throws(Failure) -> TerminalCapabilities.Overrides {
            var overrides = TerminalCapabilities.Overrides()
            for key in table.keys {
                guard let value = table[key] else { continue }
                let path = ["terminal", key]
                switch key {
                case "graphics":
                    let text = try string(value, path).lowercased()
                    let names = ["auto"] + TerminalCapabilities.Graphics.allCases.map(\.rawValue)
                    guard names.contains(text) else {
                        throw failure(path, "wants \(names.joined(separator: ", ")), not \"\(TextSanitizer.clean(String(text.prefix(40))))\"")
                    }
                    overrides.graphics = TerminalCapabilities.Graphics(rawValue: text)
                case "synchronized-output", "truecolor", "kitty-placeholders", "sixel-scroll", "probe":
                    guard let flag = value.bool else { throw failure(path, "wants true or false") }
                    switch key {
                    case "synchronized-output": overrides.synchronizedOutput = flag
                    case "truecolor": overrides.truecolor = flag
                    case "kitty-placeholders": overrides.kittyPlaceholders = flag
                    case "sixel-scroll": overrides.sixelScrolls = flag
                    default: overrides.probe = flag
                    }
                default:
                    throw failure(path, "not a terminal setting (graphics, synchronized-output, truecolor, kitty-placeholders, sixel-scroll, probe)")
                }
            }
            return overrides
        }

        func readKeys(_ bindings: TOMLTable) throws(Failure) -> KeyOverrides {
            var overrides = KeyOverrides()
            var owner: [Key: String] = [:]
            for action in bindings.keys {
                guard let value = bindings[action] else { continue }
                let path = ["keys", action]
                let names: [String]
                if let one = value.string {
                    names = [one]
                } else if let array = value.array {
                    var list: [String] = []
                    for element in array {
                        guard let text = element.string else { throw failure(path, "wants key names in quotes") }
                        list.append(text)
                    }
                    names = list
                } else {
                    throw failure(path, "wants a key name or a list of them, such as [\"j\", \"Down\"]")
                }
                guard !names.isEmpty else { throw failure(path, "needs at least one key") }
                var keys: [Key] = []
                for name in names {
                    guard let key = Key(name: name) else {
                        throw failure(path, "\"\(TextSanitizer.clean(String(name.prefix(20))))\" is not a key (a character, or Up, PgDn, Enter, Esc, Tab, Space, Ctrl-f, F5…)")
                    }
                    if let other = owner[key], other != action {
                        throw failure(path, "\(key.displayName) is bound to \(other) too")
                    }
                    owner[key] = action
                    keys.append(key)
                }
                guard overrides.bind(action, to: keys) else {
                    throw failure(path, "not an action (\(KeyOverrides.actionNames.joined(separator: ", ")))")
                }
            }
            return overrides
        }
    }
}
