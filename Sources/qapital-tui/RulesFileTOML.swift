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
}
