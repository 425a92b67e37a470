import ArgumentParser
import DemoData
import DemoServer
import FeedModel
import Foundation
@testable import UpSource
import SourceKit
import Testing
import TestSupport
@testable import qapital_tui

/// A source is its own folder plus one registry entry (docs/architecture.md, "Recipe: add a data
/// source"): no shared target names a bank, every bank folder is one registered source, and a
/// source added in a test, with nothing else changed, is picked up by the help, `--source`, the
/// config file, `serve --api`, `login`, the cache's files and the saved weeks' identity.
@Suite struct SourceSeamTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The targets every source shares: none of them may name one bank.
    static let sharedTargets = ["FeedModel", "HTTPTransport", "FeedCache", "SourceKit", "DemoData", "DemoServer", "QapitalApp",
                                "Commands", "TermUI", "TermImage", "QapitalClient", "qapital-tui"]

    /// The banks, from their folders.
    static func bankFolders() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Banks").path)
            .filter { !$0.hasPrefix(".") }.sorted()
    }

    /// Names a shared target may hold for a reason of its own: the remembered tokens' file keeps
    /// the name the first version gave it (`starling-tokens.json`), so tokens kept then still work.
    static let allowed: Set<String> = ["qapital-tui/RememberedTokens.swift \"starling\""]

    /// Swift source without its comments (line and block), so that an example in a comment is
    /// not a dependency; string literals stay unless `strings` is false (then each is `""`).
    static func code(_ text: String, strings: Bool = true) -> String {
        split(text, strings: strings).code
    }

    /// The contents of the string literals (single- and multi-line), one element each.
    static func literals(_ text: String) -> [String] { split(text, strings: true).literals }

    private static func split(_ text: String, strings: Bool) -> (code: String, literals: [String]) {
        var out = ""
        var literals: [String] = []
        var literal: String?
        var delimiter = "\""
        var index = text.startIndex
        while index < text.endIndex {
            let rest = text[index...]
            if literal == nil && rest.hasPrefix("//") {
                index = rest.firstIndex(of: "\n") ?? text.endIndex
            } else if literal == nil && rest.hasPrefix("/*") {
                index = rest.range(of: "*/").map(\.upperBound) ?? text.endIndex
            } else if literal == nil && rest.hasPrefix("\"") {
                delimiter = rest.hasPrefix("\"\"\"") ? "\"\"\"" : "\""
                literal = ""
                out += delimiter
                index = text.index(index, offsetBy: delimiter.count)
            } else if literal != nil && rest.hasPrefix(delimiter) {
                literals.append(literal ?? "")
                literal = nil
                out += delimiter
                index = text.index(index, offsetBy: delimiter.count)
            } else if literal != nil && text[index] == "\\", let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) {
                if strings { out += text[index..<next] }
                literal? += text[index..<next]
                index = next
            } else {
                if strings || literal == nil { out.append(text[index]) }
                literal?.append(text[index])
                index = text.index(after: index)
            }
        }
        return (out, literals)
    }

    /// The types a bank's folder declares (`StarlingAPI`, `Monzo`, `UpDemoAPI`…).
    static func declaredTypes(inBank bank: String) throws -> Set<String> {
        var names: Set<String> = []
        let folder = root.appendingPathComponent("Banks/\(bank)")
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        let pattern = try Regex(#"(?:struct|enum|class|actor|protocol|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)"#)
        for file in files where file.hasSuffix(".swift") && !file.hasPrefix("Tests/") && !file.hasPrefix("Fuzz/") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for match in code(text).matches(of: pattern) {
                if let name = match.output[1].substring { names.insert(String(name)) }
            }
        }
        return names
    }

    @Test func noSharedTargetNamesABank() throws {
        let banks = try Self.bankFolders()
        #expect(banks.count >= 3, "the banks' folders: \(banks)")
        var typesOf: [String: Set<String>] = [:]
        for bank in banks {
            // Nested helper types with common names (`Failure`, `Options`…) are the bank's own
            // business; what others could name is what starts with the bank's name.
            typesOf[bank] = try Self.declaredTypes(inBank: bank).filter { $0.hasPrefix(bank) || $0 == "Kept\(bank)Account" }
        }
        var found: [String] = []
        for target in Self.sharedTargets {
            let folder = Self.root.appendingPathComponent("Sources/\(target)")
            let files = (FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? [])
                .filter { $0.hasSuffix(".swift") }
            #expect(!files.isEmpty, "Sources/\(target) has no Swift files")
            for file in files {
                // The registry is the one place that lists the sources.
                if target == "qapital-tui" && file == "SourceRegistry.swift" { continue }
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                let words = Set(Self.code(text, strings: false).split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
                for bank in banks {
                    for module in ["\(bank)Client", "\(bank)Source"] where words.contains(module) {
                        found.append("\(target)/\(file) names the module \(module)")
                    }
                    for type in typesOf[bank] ?? [] where words.contains(type) {
                        found.append("\(target)/\(file) names \(type)")
                    }
                    // The bank's name in a string, whatever its case ("starling-tokens.json", "SimpleFIN Bridge"):
                    // not in the UI targets, whose key names ("up") are words of their own.
                    // A name that is also an English word ("up") only as a whole string.
                    let name = bank.lowercased()
                    let named = Self.literals(text).contains { Self.names(name, $0) }
                    if !["QapitalApp", "TermUI", "TermImage"].contains(target), named,
                       !Self.allowed.contains("\(target)/\(file) \"\(bank.lowercased())\"") {
                        found.append("\(target)/\(file) has \"\(bank.lowercased())\" in a string")
                    }
                }
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// Whether the string literal `literal` names the bank `name`, whatever the case: as a word,
    /// or for a name that is also an English word ("up"), as the whole string.
    static func names(_ name: String, _ literal: String) -> Bool {
        name.count < 4 ? literal.lowercased() == name.lowercased()
            : literal.range(of: "(?<![A-Za-z0-9_-])\(name)(?![A-Za-z0-9_-])", options: [.regularExpression, .caseInsensitive]) != nil
    }

    /// Bank names are found in strings whatever their case, and an English word only whole.
    @Test func bankNamesAreFoundWhateverTheirCase() {
        #expect(Self.names("simplefin", "past the budget (SimpleFIN Bridge's 24 a day)"))
        #expect(Self.names("starling", "Starling's token") && Self.names("monzo", "the [MONZO] table"))
        #expect(Self.names("up", "Up") && !Self.names("up", "page up") && !Self.names("bunq", "bunqueted"))
    }

    /// Each bank's documentation, named in its description, has its section: `--source NAME`.
    @Test func everyBankIsDocumented() throws {
        for source in SourceRegistry.all where source.bank != nil {
            let file = source.description.documentation
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            #expect(text.contains("--source \(source.name)") || text.contains("serve --api \(source.name)"), "\(file) on \(source.name)")
        }
    }

    /// The check above catches what it should: a file that imports a bank is named.
    @Test func theCheckFindsABankInCode() throws {
        let text = "import Foundation\n// StarlingClient in a comment is fine\nlet x = \"a \\\"quoted\\\" // not a comment\"; import StarlingClient\n"
            + "let help = \"\"\"\n    the [monzo] table\n    \"\"\"\n"
        let code = Self.code(text)
        #expect(code.contains("import StarlingClient"))
        #expect(!code.contains("in a comment"))
        #expect(Self.literals(text) == ["a \\\"quoted\\\" // not a comment", "\n    the [monzo] table\n    "])
    }

    /// Every bank folder is one registered source with its client, entry, tests and fuzz
    /// harness; the registry names no bank without a folder.
    @Test func everyBankFolderIsOneRegisteredSource() throws {
        let banks = try Self.bankFolders()
        let registered = Set(SourceRegistry.all.filter { $0.bank != nil }.map(\.name))
        #expect(Set(banks.map { $0.lowercased() }) == registered)
        for bank in banks {
            for part in ["Client", "Source", "Tests", "Fuzz"] {
                var isFolder: ObjCBool = false
                let path = Self.root.appendingPathComponent("Banks/\(bank)/\(part)").path
                #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue, "Banks/\(bank)/\(part)")
            }
        }
        let runner = try String(contentsOf: Self.root.appendingPathComponent("Fuzz/run.sh"), encoding: .utf8)
        for bank in banks {
            let named = runner.range(of: "(?i)(?<![A-Za-z])\(bank)(?![a-z])", options: .regularExpression) != nil
            #expect(!named, "Fuzz/run.sh names \(bank): it finds bank harnesses in Banks/*/Fuzz")
        }
    }

    /// A bank added in a test: its entry, and nothing else.
    static let fake = RegisteredSource(
        description: SourceDescription(
            name: "fakebank", title: "Fake Bank", baseURL: URL(string: "https://api.fakebank.example/"),
            sandboxURL: URL(string: "https://sandbox.fakebank.example/"), signIn: .token, tokenVariables: ["FAKEBANK_TOKEN"],
            abilities: [.bankAccount], configKeys: ["region"], documentation: "docs/fakebank.md"),
        pictureSchemes: [],
        open: .bank(BankConnector(connect: { request throws(APIError) in
            throw APIError(kind: .unauthorized, request: "GET /me", message: "refused")
        })),
        serve: Serving(currency: .eur, handler: { _, _ in RoutedHandler(routes: [("/me", #"{"name":"fake"}"#)]) },
                       greeting: { url in ["serving the fake bank on \(url)"] }),
        examples: [.init("--source fakebank --sandbox", "the fake bank's sandbox")])

    @Test func aFakeSourceIsOneEntry() throws {
        try SourceRegistry.$added.withValue([Self.fake]) {
            let help = QapitalCommand.helpMessage(columns: 400)
            #expect(help.contains("fakebank") && help.contains("FAKEBANK_TOKEN") && help.contains("the fake bank's sandbox"))
            #expect(help.contains("Fake Bank account"))

            let settings = try AppOptions.parse(["--source", "fakebank", "--sandbox"]).settings(environment: [:])
            #expect(settings.source.registered.name == "fakebank")
            #expect(settings.source.baseURL == URL(string: "https://sandbox.fakebank.example/"))
            #expect(try AppOptions.parse(["--source", "fakebank"]).resolvedToken(["FAKEBANK_TOKEN": "t1"], for: Self.fake.description) == "t1")

            let config = try ConfigFile.parse("source = \"fakebank\"\n[fakebank]\nregion = \"eu\"\n", file: "c.toml")
            #expect(config.source == "fakebank" && config.sourceSettings["fakebank"]?["region"] == "eu")

            let serve = try #require(try QapitalCommand.parse(arguments: ["serve", "--api", "fakebank"]) as? ServeCommand)
            #expect(serve.api == "fakebank")
            let serveHelp = QapitalCommand.helpMessage(for: ServeCommand.self, columns: 400)
            #expect(serveHelp.contains("fakebank (docs/fakebank.md)") && serveHelp.contains("EUR for fakebank"))

            // Where its files go: the saved weeks' identity and the kept account name the source.
            let options = try AppOptions.parse(["--no-cache"])
            let base = try #require(URL(string: "https://api.fakebank.example/"))
            let saver = options.roundUpSaver(AppOptions.Source(Self.fake, base), account: "acc_9", environment: [:])
            #expect(saver.identity == SaveIdentity(source: "fakebank https://api.fakebank.example", account: "acc_9"))
            let kept = LastBankAccount<String>(source: Self.fake.name, cacheDirectory: URL(fileURLWithPath: "/tmp/x"), baseURL: base)
            #expect(kept.fileURL.lastPathComponent.hasPrefix("fakebank-account-"))
        }
        // Outside the task it is gone again.
        #expect(SourceRegistry.named("fakebank") == nil)
    }
}
