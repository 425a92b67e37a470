import FeedModel
import Foundation
import TOMLKit

/// The rules file as TOML (`rules.toml`, beside the config file): read into `RulesFile`'s plain
/// tree, which FeedModel checks. Only the format is read here.
enum RulesFileTOML {
    static let maximumSize = 256 * 1024

    /// `$XDG_CONFIG_HOME/qapital-tui/rules.toml`, else `$HOME/.config/qapital-tui/rules.toml`.
    static func defaultURL(environment: [String: String]) -> URL? {
        ConfigFile.defaultURL(environment: environment)?.deletingLastPathComponent().appendingPathComponent("rules.toml")
    }

    /// The file `path` names (it must exist), else the default one; nil when there is none.
    static func load(path: String?, environment: [String: String], currency: Currency, calendar: Calendar) throws(RulesFile.Problem) -> RulesFile? {
        let url: URL
        if let path {
            url = URL(fileURLWithPath: HomePath.expand(path, environment: environment))
        } else {
            guard let found = defaultURL(environment: environment), FileManager.default.fileExists(atPath: found.path) else { return nil }
            url = found
        }
        let shown = TextSanitizer.clean(url.path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw RulesFile.Problem("\(shown): no such rules file")
        }
        guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: url.path) else {
            throw RulesFile.Problem("\(shown): cannot read the rules file")
        }
        guard data.count <= maximumSize else { throw RulesFile.Problem("\(shown): too big for a rules file (over 256 KB)") }
        guard let text = String(data: data, encoding: .utf8) else { throw RulesFile.Problem("\(shown): not UTF-8 text") }
        return try parse(text, file: shown, currency: currency, calendar: calendar)
    }

    static func parse(_ text: String, file: String, currency: Currency, calendar: Calendar) throws(RulesFile.Problem) -> RulesFile {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            let position = error.source.begin
            throw RulesFile.Problem("\(file):\(position.line):\(position.column): \(TextSanitizer.clean(error.description))")
        } catch {
            throw RulesFile.Problem("\(file): not a TOML file")
        }
        return try RulesFile.read(tree(table), file: file, currency: currency, calendar: calendar)
    }

    static func tree(_ table: TOMLTable) -> [String: RulesFile.Value] {
        var out: [String: RulesFile.Value] = [:]
        for (key, value) in table { out[key] = self.value(value) }
        return out
    }

    static func value(_ value: TOMLValueConvertible) -> RulesFile.Value {
        switch value.type {
        case .string: return .string(value.string ?? "")
        case .int: return value.int.map { .integer(Int64($0)) } ?? .other("an integer")
        case .bool: return .bool(value.bool ?? false)
        case .date:
            guard let date = value.date else { return .other("a date") }
            return .date(year: date.year, month: date.month, day: date.day)
        case .array: return .array((value.array ?? TOMLArray()).map { self.value($0) })
        case .table: return .table(value.table.map(tree) ?? [:])
        default: return .other(value.type.description)
        }
    }

    // MARK: - Writing (the Rules tab)

    /// The first line of a file the app wrote: comments are not kept.
    static let header = "# Written by qapital-tui's Rules tab (comments are not kept; the last version is rules.toml.bak)."

    /// `file` as TOML text that `parse` reads back to the same file.
    static func text(_ file: RulesFile, currency: Currency, calendar: Calendar) -> String {
        let tree = file.tree(currency: currency, calendar: calendar)
        var out = [header]
        if case .table(let settings)? = tree["rules"] {
            out += ["", "[rules]"] + settings.keys.sorted().map { "\($0) = \(value(settings[$0]!))" }
        }
        if case .array(let rules)? = tree["rule"] {
            let order = ["name", "kind", "goal", "amount", "target", "percent", "match", "category", "minimum", "every", "start", "reverse", "step",
                         "since", "paused"]
            for case .table(let fields) in rules {
                out += ["", "[[rule]]"]
                for key in order + fields.keys.filter({ !order.contains($0) }).sorted() {
                    if let field = fields[key] { out.append("\(key) = \(value(field))") }
                }
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// One value as TOML writes it.
    static func value(_ value: RulesFile.Value) -> String {
        switch value {
        case .string(let text): return quoted(text)
        case .integer(let number): return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .date(let year, let month, let day): return String(format: "%04d-%02d-%02d", year, month, day)
        case .array(let items): return "[" + items.map(self.value).joined(separator: ", ") + "]"
        case .table(let fields): return "{ " + fields.keys.sorted().map { "\(quoted($0)) = \(self.value(fields[$0]!))" }.joined(separator: ", ") + " }"
        case .other(let what): return quoted(what)
        }
    }

    /// A TOML basic string: quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += String(format: "\\u%04X", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Writes `file` to `url` whole and atomically (a reader sees the old file or the new one),
    /// the previous version kept as `rules.toml.bak`; read back first, so a file the app could
    /// not read again is never written.
    static func write(_ file: RulesFile, to url: URL, currency: Currency, calendar: Calendar) throws(RulesFile.Problem) {
        let text = text(file, currency: currency, calendar: calendar)
        let shown = TextSanitizer.clean(url.path)
        _ = try parse(text, file: shown, currency: currency, calendar: calendar)
        let backup = url.appendingPathExtension("bak")
        if let old = FileManager.default.contents(atPath: url.path) {
            do {
                try PrivateFile.write(old, to: backup)
            } catch {
                throw RulesFile.Problem("\(shown): cannot keep the last version as .bak: \(error.message)")
            }
        }
        do {
            try PrivateFile.write(Data(text.utf8), to: url)
        } catch {
            throw RulesFile.Problem("\(shown): \(error.message)")
        }
    }
}
