import Commands
import DemoData
import FeedModel
import Foundation
import SwiftCSV
import Testing
import TestSupport

/// Real hledger (`ExternalTool.hledger`: CI needs it; elsewhere these tests say why they skip).
enum HledgerTool {
    /// Whether the tests that read a journal back run, and why they skip where they do not.
    static let runs = ExternalTool.hledger.runs
    static let skipped: Comment = "hledger is not installed here (Debian: apt-get install hledger); .ci/run installs it and needs it"

    /// Runs hledger on `journal` (a file) with `arguments`; its stdout, failing the test on a non-zero status.
    static func run(_ journal: URL, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ExternalTool.hledger.require())
        process.arguments = ["-f", journal.path] + arguments
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("hledger-out-\(UUID().uuidString)")
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("hledger-err-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 0, "hledger \(arguments): \(stderr)")
        return try String(contentsOf: out, encoding: .utf8)
    }

    /// `hledger print -O json`: each transaction's status, code, description and first amount in minor units.
    static func transactions(_ journal: URL) throws -> [(status: String, code: String, description: String, minor: Int64)] {
        let json = try run(journal, ["print", "-O", "json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        return try list.map { transaction in
            let postings = try #require(transaction["tpostings"] as? [[String: Any]])
            let amount = try #require((postings.first?["pamount"] as? [[String: Any]])?.first)
            let quantity = try #require(amount["aquantity"] as? [String: Any])
            let mantissa = try #require((quantity["decimalMantissa"] as? NSNumber)?.int64Value)
            let places = try #require((quantity["decimalPlaces"] as? NSNumber)?.intValue)
            var minor = mantissa
            for _ in places..<2 { minor *= 10 }
            return ((transaction["tstatus"] as? String) ?? "", (transaction["tcode"] as? String) ?? "",
                    (transaction["tdescription"] as? String) ?? "", minor)
        }
    }
}

/// Cells that change meaning in their reader: a journal description read as a status or a code,
/// a CSV cell a spreadsheet runs. Checked through the readers themselves: hledger and a CSV parser.
@Suite(.timeLimit(.minutes(1))) struct CellReaderTests {
    static let hostile = [
        "* pending (code) desc", "! flagged", "(code) text", "  * spaced", "*", "(", "!", "()", "* ! (x) y",
        "=HYPERLINK(\"http://x\")", " =1+1", "\t=1+1", "\r=1+1", "\n-1", "  @SUM(A1)", "+1", "-", "\t", "\r",
        "\u{1B}[31m=x", "\u{00A0}=x", "\u{FF1D}1+1", "a=b", "plain text", "", "semi; colon | pipe", "東京 (trip)",
    ]

    /// The hostile texts and `count` more made of the characters readers treat specially.
    static func texts(count: Int, seed: UInt64) -> [String] {
        var random = SeededRandom(seed: seed)
        let alphabet = Array("*!() ;|=+-@\t\r\n\"',aé東\u{00A0}\u{1B}")
        return hostile + (0..<count).map { _ in
            String((0..<Int(random.next() % 10)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
        }
    }

    /// An API whose activity holds one row per text, amounts 1, 2, 3… cents, a minute apart.
    static func api(_ texts: [String]) -> FakeSavingsAPI {
        let activities = texts.enumerated().map { index, text in
            Activity(message: MarkupText(runs: [MarkupText.Run(text)]), amount: Money(minorUnits: Int64(index + 1), currency: .usd),
                     userId: 1, timestamp: fixedNow.addingTimeInterval(-Double(index + 1) * 60))
        }
        let api = FakeSavingsAPI()
        api.script {
            $0.goals = { [] }
            $0.activities = { from, to in
                ActivityPage(oldest: fixedNow.addingTimeInterval(-86_400),
                             activities: activities.filter { $0.timestamp >= from && $0.timestamp < to })
            }
        }
        return api
    }

    @Test(.enabled(if: HledgerTool.runs, HledgerTool.skipped))
    func hledgerReadsEveryDescriptionAsADescription() async throws {
        let texts = Self.texts(count: 200, seed: 36)
        let (context, out) = commandContext(Self.api(texts), format: .ledger)
        try await ActivityExport.run(context, kind: .export, since: fixedNow.addingTimeInterval(-86_400), until: fixedNow, goal: nil)
        let journal = FileManager.default.temporaryDirectory.appendingPathComponent("cells-\(UUID().uuidString).journal")
        defer { try? FileManager.default.removeItem(at: journal) }
        try Data(out.value.utf8).write(to: journal)
        let read = try HledgerTool.transactions(journal)
        #expect(read.count == texts.count)
        for transaction in read {
            let index = Int(transaction.minor) - 1
            guard texts.indices.contains(index) else {
                Issue.record("hledger read an amount no row has: \(transaction)")
                continue
            }
            // What a reader should see: the text on one line, `;` and `|` replaced, blanks trimmed.
            let expected = String(Cell.plain(texts[index]).map { $0 == ";" ? "," : $0 == "|" ? "/" : $0 })
                .trimmingCharacters(in: .whitespaces)
            #expect(transaction.status == "Unmarked" && transaction.code == "", "\(texts[index].debugDescription): \(transaction)")
            #expect(transaction.description == expected, "\(texts[index].debugDescription)")
        }
    }

    /// OWASP: no cell may begin with `=`, `+`, `-`, `@`, a tab or a carriage return, nor have
    /// one of the four as its first character past blanks; and what is safe reads back as written.
    @Test func csvCellsReadBackDefusedThroughACSVParser() async throws {
        let texts = Self.texts(count: 300, seed: 6)
        let (context, out) = commandContext(Self.api(texts), format: .csv)
        try await ActivityExport.run(context, kind: .export, since: fixedNow.addingTimeInterval(-86_400), until: fixedNow, goal: nil)
        let csv = try CSV<Enumerated>(string: out.value, delimiter: .comma, loadColumns: false)
        #expect(csv.header == ["time", "amount", "currency", "minor_units", "goal", "goal_id", "user_id", "message", "id"])
        #expect(csv.rows.count == texts.count)
        let dangerous = Set("=+-@\u{FF1D}\u{FF0B}\u{FF0D}\u{FF20}".unicodeScalars)
        func firstShown(_ text: String) -> Unicode.Scalar? {
            text.unicodeScalars.first { !$0.properties.isWhitespace && $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }
        }
        for row in csv.rows {
            let index = try #require(Int(row[3])) - 1
            let field = row[7]
            let cleaned = TextSanitizer.clean(texts[index])
            #expect(!["\t", "\r"].contains(field.unicodeScalars.first), "\(texts[index].debugDescription) → \(field.debugDescription)")
            #expect(firstShown(field).map { !dangerous.contains($0) } ?? true, "\(texts[index].debugDescription) → \(field.debugDescription)")
            let risky = [texts[index], cleaned].contains { text in
                ["\t", "\r"].contains(text.unicodeScalars.first) || firstShown(text).map(dangerous.contains) == true
            }
            #expect(field == (risky ? "'" : "") + cleaned, "\(texts[index].debugDescription) → \(field.debugDescription)")
        }
    }
}
