import FeedModel
import Foundation
import HTTPTransport
import Testing
@testable import MonzoClient

enum Fixture {
    static func data(_ name: String) throws -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures") else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
        }
        return try Data(contentsOf: url)
    }

    static func transactions(_ name: String, skipped: SkippedRecords? = nil) throws -> [Monzo.Transaction] {
        try PayloadDecoder(accountCurrency: .gbp, skipped: skipped)
            .decode(Monzo.TransactionList.self, from: try data(name), resource: "GET /transactions").transactions ?? []
    }
}

/// Monzo's documented example answers (Tests/MonzoClientTests/Fixtures/*_docs_example.json, as
/// docs.monzo.com shows them) and answers in the shapes public projects recorded decode, and map
/// onto the model.
@Suite struct MonzoDecodingTests {
    let decoder = PayloadDecoder(accountCurrency: .gbp)

    @Test func whoami() throws {
        let whoami = try decoder.decode(Monzo.WhoAmI.self, from: try Fixture.data("monzo_whoami"), resource: "GET /ping/whoami")
        #expect(whoami.authenticated == true)
        #expect(whoami.userId == "user_id")
    }

    @Test func accountsAsDocumented() throws {
        let list = try decoder.decode(Monzo.AccountList.self, from: try Fixture.data("monzo_accounts_docs_example"), resource: "GET /accounts")
        let account = try #require(list.accounts?.first)
        #expect(account.id == "acc_00009237aqC8c5umZmrRdh")
        #expect(account.description == "Peter Pan's Account")
        #expect(account.created == Timestamp.parse("2015-11-13T12:17:42Z"))
        #expect(account.owners == nil && account.sortCode == nil)
    }

    @Test func theAccountHeaderHasOwnerNumbersAndBothBalances() throws {
        let list = try decoder.decode(Monzo.AccountList.self, from: try Fixture.data("monzo_accounts_full"), resource: "GET /accounts")
        let accounts = try #require(list.accounts)
        #expect(accounts.count == 2)
        #expect(accounts[0].closed == true)
        let open = accounts[1]
        let balance = try decoder.decode(Monzo.Balance.self, from: try Fixture.data("monzo_balance_docs_example"), resource: "GET /balance")
        #expect(balance.balance == 5000 && balance.totalBalance == 6000 && balance.currency == "GBP")
        // The header as the API maps it: the hostile escape in the owner's name is gone.
        let account = Account(id: open.id, name: open.description ?? "", currency: .gbp, createdAt: open.created ?? .distantPast,
                              holder: open.owners?.first?.preferredName, sortCode: open.sortCode.map(Account.formatSortCode),
                              accountNumber: open.accountNumber,
                              effectiveBalance: Money(minorUnits: balance.balance, currency: .gbp),
                              totalBalance: balance.totalBalance.map { Money(minorUnits: $0, currency: .gbp) })
        #expect(account.summary == "Peter Pan · 04-00-04 12345678 · £50.00 (£60.00 with pots)")
    }

    @Test func potsAsDocumented() throws {
        let list = try decoder.decode(Monzo.PotList.self, from: try Fixture.data("monzo_pots_docs_example"), resource: "GET /pots")
        let pot = try #require(list.pots?.first)
        let goal = try MonzoMapping.goal(pot)
        #expect(goal.id == GoalID("pot_0000778xxfgh4iu8z83nWb"))
        #expect(goal.name == "Savings")
        #expect(goal.balance == Money(minorUnits: 133_700, currency: .gbp))
        #expect(goal.target == nil)
        #expect(goal.tint == .orange, "beach_ball")
    }

    /// A pot's `style` is a colour only through a fixed table of names; anything else (unknown,
    /// empty, missing, hostile, huge) is no colour, and the server's text goes nowhere.
    @Test(arguments: [
        ("beach_ball", GoalTint.orange), ("raspberry", .pink), ("blue_steel", .blue), ("sunny_day", .yellow), ("yellow", .yellow),
        ("cactus", .green), ("BEACH_BALL", .orange),
    ] as [(String, GoalTint)])
    func knownPotStylesAreTints(style: String, tint: GoalTint) {
        #expect(MonzoMapping.tint(style: style) == tint)
    }

    @Test(arguments: ["umbrella", "", " beach_ball", "beach_ball\u{1B}[31m", "\u{1B}]11;#ff0000\u{07}", "#ff0000", "196",
                      String(repeating: "blue", count: 10_000)] as [String])
    func unknownPotStylesAreNoTint(style: String) throws {
        #expect(MonzoMapping.tint(style: style) == nil)
        let pot = Monzo.Pot(id: "pot_1", name: "Trip", style: style, balance: 1, currency: "GBP", goalAmount: nil, created: nil,
                            updated: nil, deleted: false)
        #expect(try MonzoMapping.goal(pot).tint == nil)
    }

    @Test func aPotWithoutStyleHasNoTint() throws {
        #expect(MonzoMapping.tint(style: nil) == nil)
        let pots = try #require(try decoder.decode(Monzo.PotList.self, from: try Fixture.data("monzo_pots_mixed"), resource: "GET /pots").pots)
        #expect(try MonzoMapping.goal(pots[0]).tint == .orange)
        #expect(try MonzoMapping.goal(pots[2]).tint == nil, "no style")
    }

    /// Deleted pots are hidden by the API (`goals()`); a pot that cannot be read is skipped and
    /// named, the others kept; `goal_amount` is the target where there is one.
    @Test func potsDeletedBrokenAndWithTargets() throws {
        let skipped = SkippedRecords()
        let list = try PayloadDecoder(accountCurrency: .gbp, skipped: skipped)
            .decode(Monzo.PotList.self, from: try Fixture.data("monzo_pots_mixed"), resource: "GET /pots")
        let pots = try #require(list.pots)
        #expect(pots.map(\.id) == ["pot_00009holiday", "pot_00009gone", "pot_00009nogoal"])
        #expect(skipped.drain().first?.contains("pots[2]") == true)
        let holiday = try MonzoMapping.goal(pots[0])
        #expect(holiday.target == Money(minorUnits: 100_000, currency: .gbp))
        #expect(holiday.progress.map { ($0 * 1000).rounded() } == 251)
        #expect(pots[0].updated != nil, "a six-digit fraction still reads")
        #expect(pots[1].deleted == true)
        let rainy = try MonzoMapping.goal(pots[2])
        #expect(rainy.target == nil)
        #expect(!rainy.name.unicodeScalars.contains { $0.value == 0x202E })
    }

    @Test func depositAnswerAsDocumented() throws {
        let pot = try decoder.decode(Monzo.Pot.self, from: try Fixture.data("monzo_deposit_docs_example"), resource: "PUT /pots/…/deposit")
        #expect(try MonzoMapping.goal(pot).balance.formatted == "£5,501.00")
    }

    @Test func transactionsAsDocumented() throws {
        let transactions = try Fixture.transactions("monzo_transactions_docs_example")
        #expect(transactions.map(\.id) == ["tx_00008zIcpb1TB4yeIFXMzx", "tx_00008zL2INM3xZ41THuRF3"])
        let first = try MonzoMapping.activity(transactions[0])
        #expect(first.amount == Money(minorUnits: -510, currency: .gbp))
        #expect(first.message.plainText == "THE DE BEAUVOIR DELI C LONDON        GBR")
        #expect(first.kind == .other)
        // The documented list has no `scheme`: without it nothing is known to be a card payment.
        #expect(try MonzoMapping.transaction(transactions[0]).roundsUp == false)
        let expanded = try Fixture.transactions("monzo_transaction_expanded_docs_example")
        #expect(try MonzoMapping.activity(try #require(expanded.first)).message.plainText == "The De Beauvoir Deli Co.")
    }

    @Test func declinedPendingForeignAndPotRows() throws {
        let skipped = SkippedRecords()
        let transactions = try Fixture.transactions("monzo_transactions_kinds", skipped: skipped)
        #expect(transactions.count == 9)
        #expect(skipped.drain().first?.contains("tx_broken") == true)
        let byId = Dictionary(uniqueKeysWithValues: transactions.map { ($0.id, $0) })
        func row(_ id: String) throws -> Activity {
            try MonzoMapping.activity(try #require(byId[id]), potNames: ["pot_00009holiday": "Holiday"])
        }
        #expect(try row("tx_card").message.plainText == "Pret A Manger")
        #expect(try row("tx_pending").message.plainText == "TfL · pending")
        #expect(try row("tx_declined").message.plainText == "Casino · declined (insufficient funds)")
        #expect(try row("tx_declined").kind == .void)
        #expect(try row("tx_foreign").message.plainText == "Café de Flore · paid €12.50")
        #expect(try row("tx_pot").message.plainText == "Saved into Holiday")
        #expect(try row("tx_pot").kind == .moveToGoal)
        #expect(try row("tx_pot").saved == Money(minorUnits: 250, currency: .gbp))
        #expect(try row("tx_topup").message.plainText == "Top up")
        #expect(try row("tx_transfer").message.plainText == "Landlord Ltd")
        #expect(byId["tx_transfer"]?.metadata?["attempt"] == "2")
        // A pot's feed: money out of the account is money into the pot.
        let item = try MonzoMapping.potFeedItem(try #require(byId["tx_pot"]))
        #expect(item.amount == Money(minorUnits: 250, currency: .gbp))
    }

    /// The spec's rule, case by case: only card payments out that were not declined round up,
    /// settled or only authorised, on the account's amount.
    @Test(arguments: [
        ("tx_card", 65), ("tx_pending", 99), ("tx_declined", nil), ("tx_foreign", 12), ("tx_whole", 0),
        ("tx_pot", nil), ("tx_topup", nil), ("tx_transfer", nil), ("tx_refund", nil),
    ] as [(String, Int64?)])
    func roundUpRule(id: String, expected: Int64?) throws {
        let transaction = try #require(try Fixture.transactions("monzo_transactions_kinds").first { $0.id == id })
        let mapped = try MonzoMapping.transaction(transaction)
        #expect(mapped.category == (id == "tx_card" ? "eating_out" : nil), "\(id)")
        let summary = RoundUp.Summary(transactions: [mapped], accountCurrency: .gbp)
        #expect(summary.lines.first?.roundUp.minorUnits == expected, "\(id)")
    }

    @Test func bothErrorShapesAreOneLine() throws {
        let code = try #require(Monzo.serverMessage(try Fixture.data("monzo_error_code")))
        #expect(code == "Verification required please approve (forbidden.verification_required)")
        let oauth = try #require(Monzo.serverMessage(try Fixture.data("monzo_error_oauth")))
        #expect(oauth == "Refresh token has already been used (invalid_grant)")
        // Through the transport's reading: the approval state says what to do; the rest quote the server.
        let pending = try #require(MonzoAPI.classify(403, try Fixture.data("monzo_error_code"), "GET /pots"))
        #expect(pending.kind == .unauthorized && pending.awaitsApproval)
        #expect(pending.message == "GET /pots: approve this sign-in in the Monzo app, then try again (HTTP 403)")
        let refused = try #require(MonzoAPI.classify(400, try Fixture.data("monzo_error_oauth"), "POST /oauth2/token"))
        #expect(refused.kind == .rejected && !refused.awaitsApproval)
        #expect(refused.message == "POST /oauth2/token: HTTP 400: Refresh token has already been used (invalid_grant)")
        let hostile = Data(#"{"code": "bad_request", "message": "\u001b]0;owned\u0007line one\nline two"}"#.utf8)
        let message = try #require(MonzoAPI.classify(400, hostile, "GET /x")).message
        #expect(!message.contains("\n") && !message.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    }

    @Test func tokenPair() throws {
        let pair = try decoder.decode(Monzo.TokenPair.self, from: try Fixture.data("monzo_token_pair"), resource: "POST /oauth2/token")
        #expect(pair.accessToken == "access_token" && pair.refreshToken == "refresh_token" && pair.expiresIn == 21600)
    }

    @Test func formBodiesEncodeStrictly() {
        let body = HTTPTransport.formBody([("source_account_id", "acc_1"), ("amount", "250"), ("dedupe_id", "a b+c&d=e")])
        #expect(String(decoding: body, as: UTF8.self) == "source_account_id=acc_1&amount=250&dedupe_id=a%20b%2Bc%26d%3De")
    }
}
