import FeedModel
import Foundation
import HTTPTransport
@testable import SimpleFINClient
import Testing

func fixture(_ name: String) throws -> Data {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
    return try Data(contentsOf: url)
}

func decodeSet(_ data: Data) throws -> SimpleFIN.AccountSet {
    try PayloadDecoder().decode(SimpleFIN.AccountSet.self, from: data, resource: "GET /accounts")
}

@Suite struct SimpleFINDecodingTests {
    @Test func theProtocolsV1Example() throws {
        let set = try decodeSet(try fixture("simplefin_v1_protocol"))
        #expect(set.errors == ["You must reauthenticate."])
        #expect(set.problems.map(\.message) == ["You must reauthenticate."])
        let account = try #require(set.accounts.first)
        #expect(account.connectionKey == "mybank.com")
        #expect(account.balance == "100.23" && account.availableBalance == "75.23" && account.openDate == 978_360_153)
        let row = try #require(account.transactions?.first)
        #expect(row.posted == 793_090_572 && row.amount == "-33293.43" && !row.isPending)
    }

    @Test func aBridgeV2Answer() throws {
        let set = try decodeSet(try fixture("simplefin_v2_bridge"))
        #expect(set.errlist.map(\.known) == ["con.auth", "gen.api", "act.missingdata"])
        #expect(set.errlist[2].message == "Some transactions may be missing")   // `message` read as `msg`
        #expect(set.connections.count == 2)
        // The account without an id is skipped; the rest load.
        #expect(set.accounts.map(\.id) == ["ACT-1", "ACT-2", "ACT-3", "ACT-4", "ACT-5"])
        let checking = set.accounts[0]
        let rows = try #require(checking.transactions)
        #expect(rows.count == 5)
        #expect(rows[0].label == "Starbucks" && rows[0].mcc == "5814" && rows[0].time == 1_764_090_000)
        #expect(rows[1].isPending && rows[1].posted == 0 && rows[1].mcc == nil)
        #expect(rows[3].mcc == nil)
        #expect(set.accounts[2].transactions == nil)                                   // no `transactions` key
        #expect(set.accounts[1].availableBalance == nil)
        // The same id in two accounts: two transactions.
        #expect(set.accounts[1].transactions?.first?.id == "T4")
    }

    @Test func cleaningAndCodes() {
        let problem = SimpleFIN.Problem(code: "con.newthing", message: "a\u{1B}[31mb\nc")
        #expect(problem.known == "con")
        #expect(!problem.shown.contains("\u{1B}") && !problem.shown.contains("\n"))
    }

    /// Generated variants: v1 or v2, optional keys left out, numbers for strings, pending rows
    /// with `posted: 0`, ids repeated across accounts; every account and row is read.
    @Test func generatedVariants() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<40 {
            let v1 = round % 2 == 0
            var accounts: [String] = []
            let count = Int.random(in: 1...4, using: &generator)
            for index in 0..<count {
                var rows: [String] = []
                for row in 0..<Int.random(in: 0...5, using: &generator) {
                    var fields = ["\"id\": \"T\(row)\"", "\"amount\": \"-\(row).5\"", "\"description\": \"Row \(row)\""]
                    if row % 3 == 0 { fields.append("\"posted\": 0"); fields.append("\"pending\": true") } else { fields.append("\"posted\": \(1_700_000_000 + row)") }
                    if row % 2 == 0 { fields.append("\"transacted_at\": \(1_700_000_000 + row)") }
                    if row % 4 == 1 { fields.append("\"mcc\": \"5411\"") }
                    rows.append("{" + fields.shuffled(using: &generator).joined(separator: ", ") + "}")
                }
                let currency = index == 2 ? "JPY" : "USD"
                let balance = index == 1 ? "12.5" : #""100.00""#
                var fields = ["\"id\": \"A\(index)\"", "\"name\": \"Account \(index)\"", "\"currency\": \"\(currency)\"",
                              "\"balance\": \(balance)", "\"balance-date\": 1700000000"]
                fields.append(v1 ? "\"org\": {\"domain\": \"bank\(index).example\", \"sfin-url\": \"https://x\"}" : "\"conn_id\": \"C\(index)\"")
                if !rows.isEmpty || index % 2 == 0 { fields.append("\"transactions\": [" + rows.joined(separator: ",") + "]") }
                accounts.append("{" + fields.shuffled(using: &generator).joined(separator: ", ") + "}")
            }
            let head = v1 ? "\"errors\": []" : "\"errlist\": [], \"connections\": []"
            let json = "{\(head), \"accounts\": [\(accounts.joined(separator: ","))]}"
            let set = try decodeSet(Data(json.utf8))
            #expect(set.accounts.count == count, "\(json)")
            #expect(Set(set.accounts.map(\.key)).count == count)
            for account in set.accounts {
                for row in account.transactions ?? [] {
                    #expect(row.isPending == (row.posted == 0))
                    #expect(SimpleFINAmount.minorUnits(row.amount, minorDigits: 2) != nil)
                }
            }
        }
    }

    @Test func credentials() throws {
        let demo = "aHR0cHM6Ly9icmlkZ2Uuc2ltcGxlZmluLm9yZy9zaW1wbGVmaW4vY2xhaW0vZGVtbw=="
        guard case .setup(let claimURL, _) = try SimpleFINCredential.read(demo) else { Issue.record("not a setup token"); return }
        #expect(claimURL.absoluteString == "https://bridge.simplefin.org/simplefin/claim/demo")
        guard case .access(let access) = try SimpleFINCredential.read("https://user123:pass456@bridge.simplefin.org/simplefin/") else {
            Issue.record("not an access URL"); return
        }
        #expect(access.root.absoluteString == "https://bridge.simplefin.org/simplefin")
        #expect(access.basicCredential == "user123:pass456")
        #expect(!access.fingerprint.contains("pass456"))
        for bad in ["not base64!", Data("just text".utf8).base64EncodedString(), Data("ftp://x/claim/y".utf8).base64EncodedString(),
                    "https://bridge.simplefin.org/simplefin", ""] {
            #expect(throws: SimpleFINCredentialError.self) { try SimpleFINCredential.read(bad) }
            do { _ = try SimpleFINCredential.read(bad) } catch { #expect(!error.message.contains("pass456")) }
        }
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
