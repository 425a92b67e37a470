@testable import EnableBankingClient
import FeedModel
import Foundation
import Testing

@Suite struct EnableBankingDecodingTests {
    @Test func aSessionsAccountsAndConsent() throws {
        let skipped = SkippedRecords()
        let session = try PayloadDecoder(skipped: skipped).decode(EnableBanking.Session.self, from: try fixtureData("session"),
                                                                  resource: "POST /sessions")
        #expect(session.sessionId == "4f6c7c1e-1a2b-4c3d-9e8f-0a1b2c3d4e5f")
        #expect(session.validUntil == "2027-05-28T10:00:00.000000+00:00" && session.aspspName == "Mock ASPSP" && session.psuType == "personal")
        // The account without a uid is skipped and named, the others read.
        #expect(session.accounts.map(\.uid) == ["07cc67f4-45d6-494b-adac-09b5cbc7e2b5", "a9e3", "c4rd"])
        #expect(skipped.drain().first?.contains("POST /sessions: skipped 1 bad record") == true)
        let everyday = session.accounts[0]
        #expect(everyday.shownName == "Everyday Account" && everyday.accountId?.iban == "FI7473834510057469")
        #expect(everyday.key == "WwpbCnsKICAiYWNjb3VudC" && everyday.cashAccountType == "CACC")
        #expect(session.accounts[1].shownName == "Holiday Savings" && session.accounts[1].accountId?.other == "12345678")
        // No details, product or name: the masked number.
        #expect(session.accounts[2].shownName == "Account ••5555" && session.accounts[2].key == "c4rd")
        let record = EnableBankingSessionRecord(origin: "https://api.enablebanking.com:443", applicationId: "app", aspsp: "Mock ASPSP",
                                                country: "FI", sessionId: "s", validUntil: try #require(session.validUntil), psuType: "personal",
                                                signedInAt: Date(timeIntervalSince1970: 0), accounts: session.accounts)
        let end = try #require(record.validUntilDate)
        #expect(end == Date(timeIntervalSince1970: 1_811_498_400))
        // A part of a day counts as a day: 0 only from the end.
        #expect(record.daysLeft(at: end.addingTimeInterval(-87 * 86_400)) == 87)
        #expect(record.daysLeft(at: end.addingTimeInterval(-87 * 86_400 + 5)) == 87)
        #expect(record.daysLeft(at: end.addingTimeInterval(-87 * 86_400 - 5)) == 88)
        #expect(record.daysLeft(at: end.addingTimeInterval(-1)) == 1)
        #expect(record.daysLeft(at: end) == 0 && record.daysLeft(at: end.addingTimeInterval(86_400)) == 0)
        #expect(!record.hasEnded(at: end.addingTimeInterval(-1)) && record.hasEnded(at: end))
    }

    @Test func balancesByType() throws {
        let skipped = SkippedRecords()
        let balances = try PayloadDecoder(skipped: skipped).decode(EnableBanking.Balances.self, from: try fixtureData("balances"),
                                                                   resource: "GET /accounts/{uid}/balances").balances
        #expect(balances.map(\.type) == ["CLBD", "ITAV", "ITBD"])
        #expect(skipped.drain().count == 1)
        #expect(EnableBankingMapping.booked(balances) == Money(minorUnits: -1_230, currency: .eur))
        #expect(EnableBankingMapping.available(balances) == Money(minorUnits: 120_000, currency: .eur))
        // Only XPCD: it is both.
        let expected = [EnableBanking.Balance(amount: .init(currency: "JPY", amount: "1200"), type: "XPCD")]
        #expect(EnableBankingMapping.booked(expected) == Money(minorUnits: 1_200, currency: .jpy))
        #expect(EnableBankingMapping.available(expected) == Money(minorUnits: 1_200, currency: .jpy))
        #expect(EnableBankingMapping.booked([]) == nil)
    }

    @Test func aTransactionPage() throws {
        let skipped = SkippedRecords()
        let page = try PayloadDecoder(skipped: skipped).decode(EnableBanking.TransactionPage.self, from: try fixtureData("transactions_page1"),
                                                               resource: "GET /accounts/{uid}/transactions")
        #expect(page.continuationKey == "page-2")
        #expect(page.transactions.count == 7)
        #expect(skipped.drain().count == 1)
        let rows = page.transactions
        // Signs are the indicator's; the text's own sign is not.
        #expect(EnableBankingAmount.money(rows[0].amount, indicator: rows[0].indicator) == Money(minorUnits: -350, currency: .eur))
        #expect(EnableBankingAmount.money(rows[1].amount, indicator: rows[1].indicator) == Money(minorUnits: -350, currency: .eur))
        #expect(EnableBankingAmount.money(rows[2].amount, indicator: rows[2].indicator) == Money(minorUnits: 250_000, currency: .eur))
        // More decimals than EUR has, or no indicator: no amount.
        #expect(EnableBankingAmount.money(rows[5].amount, indicator: rows[5].indicator) == nil)
        #expect(EnableBankingAmount.money(rows[6].amount, indicator: rows[6].indicator) == nil)
        // The counterparty, cleaned of its escape sequence; a credit's debtor; the remittance.
        #expect(rows[0].text == "Kahvila Aalto" && rows[2].text == "Employer Oy" && rows[4].text == "Streaming")
        #expect(rows[4].isPending && !rows[0].isPending && rows[0].merchantCategoryCode == "5814")
        let last = try PayloadDecoder().decode(EnableBanking.TransactionPage.self, from: try fixtureData("transactions_page2"), resource: "page 2")
        #expect(last.continuationKey == nil && last.transactions.isEmpty)
    }

    /// Ids come from `entry_reference` keyed by the account; look-alikes without one are told
    /// apart in order; `transaction_id` plays no part.
    @Test func ids() throws {
        let page = try PayloadDecoder().decode(EnableBanking.TransactionPage.self, from: try fixtureData("transactions_page1"), resource: "page")
        let ids = EnableBankingIDs.ids(accountKey: "WwpbCnsKICAiYWNjb3VudC", rows: page.transactions)
        let part = EnableBankingIDs.accountPart("WwpbCnsKICAiYWNjb3VudC")
        #expect(part.count == 12 && ids[0] == part + "/E-1" && ids[1] == part + "/E-2")
        #expect(ids[2].hasPrefix(part + "/s-") && ids[2].count == part.count + 3 + 16 && ids[3] == ids[2] + "-2")
        #expect(Set(ids).count == ids.count)
        // The same entry reference in another account is another id.
        #expect(EnableBankingIDs.ids(accountKey: "other", rows: [page.transactions[0]]) != [ids[0]])
        // A changing transaction_id changes nothing: it is not read at all.
        #expect(EnableBankingIDs.ids(accountKey: "WwpbCnsKICAiYWNjb3VudC", rows: page.transactions) == ids)
    }

    @Test func theErrorEnvelopeIsReadIntoWhatTheAppDoes() throws {
        let problem = try #require(EnableBanking.Problem.read(try fixtureData("error_expired")))
        #expect(problem.error == "EXPIRED_SESSION" && problem.message == "Session expired")
        let failure = EnableBankingFailure(status: 401, code: "EXPIRED_SESSION", message: "Session expired", label: "GET /accounts/{uid}/balances")
        #expect(failure.reading == .signInAgain && failure.endsConsent && failure.error.kind == .unauthorized)
        #expect(failure.error.message.contains("login enablebanking"))
        let limited = EnableBankingFailure(status: 429, code: "ASPSP_RATE_LIMIT_EXCEEDED", message: nil, label: "GET x")
        #expect(limited.reading == .rateLimited && !limited.endsConsent)
        #expect(EnableBankingFailure(status: 429, code: nil, message: nil, label: "x").reading == .rateLimited)
        #expect(EnableBankingFailure(status: 400, code: "WRONG_CONTINUATION_KEY", message: "bad", label: "x").reading == .other)
        #expect(EnableBankingFailure(status: 401, code: "UNAUTHORIZED_ACCESS", message: nil, label: "x").reading == .keyRefused)
    }
}
