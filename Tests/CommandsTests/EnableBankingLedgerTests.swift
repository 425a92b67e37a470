import Commands
import EnableBankingClient
import FeedModel
import Foundation
import PropertyBased
import Testing
import TestSupport

/// `export --output ledger` on Enable Banking (the spec's "Ledger" bullet): each spending account
/// is `assets:enablebanking:NAME`, booked rows only, and a whole export opens and asserts every
/// account (spending and goal) with its booked balance in its own currency. Checked over
/// generated stores by summing the journal here, in minor units, apart from the writer's sums.
@Suite(.timeLimit(.minutes(1))) struct EnableBankingLedgerTests {
    static let day: TimeInterval = 86_400
    /// Three spending accounts, then the goal account (`[enablebanking] goals`).
    static let names = ["Everyday", "Card", "Joint", "Holiday"]
    static let currencies: [Currency] = [.eur, .jpy, .kwd]

    /// One generated row: whose (3: the goal account's own), its size, way, state and day, and
    /// whether a debit is a move into the goal (the goal account then gets the credit).
    struct RowSpec: Sendable {
        var account: Int
        var minor: Int64
        var credit: Bool
        var pending: Bool
        var daysAgo: Int
        var toGoal: Bool
    }

    /// What was generated, and the ids the spec gives its rows (`K/ENTRY_REFERENCE`).
    struct Bank {
        var store = EnableBankingStore()
        var currency: [Currency] = []
        /// nil: no balance the app can read (not asserted, named on stderr).
        var booked: [Money?] = []
        var bookedIds: [String] = []
        var pendingIds: [String] = []
    }

    static func key(_ index: Int) -> String { "hash-\(index)" }

    static func dayText(_ daysAgo: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: fixedNow.addingTimeInterval(-Double(daysAgo) * day))
    }

    static func bank(_ specs: [RowSpec], currencies: [Int], balances: [Int64], unknown: Int) -> Bank {
        var bank = Bank()
        bank.currency = currencies.map { Self.currencies[$0] }
        bank.store.adopt((0..<4).map { index in
            EnableBanking.Account(uid: "uid-\(index)", identificationHash: key(index), details: names[index],
                                  currency: bank.currency[index].code, cashAccountType: index == 3 ? "SVGS" : "CACC")
        })
        var rows: [[EnableBanking.Transaction]] = Array(repeating: [], count: 4)
        func row(_ reference: String, account: Int, minor: Int64, credit: Bool, pending: Bool, daysAgo: Int) {
            let currency = bank.currency[account]
            let date = dayText(daysAgo)
            rows[account].append(EnableBanking.Transaction(
                entryReference: reference,
                amount: .init(currency: currency.code, amount: EnableBankingAmount.text(minor, minorDigits: currency.minorDigits)),
                indicator: credit ? "CRDT" : "DBIT", status: pending ? "PDNG" : "BOOK", bookingDate: pending ? nil : date,
                transactionDate: date, creditorName: "Shop \(reference)"))
            // The goal account's rows are no activity: only the spending accounts' are exported.
            guard account < 3 else { return }
            let id = EnableBankingIDs.accountPart(key(account)) + "/" + reference
            if pending { bank.pendingIds.append(id) } else { bank.bookedIds.append(id) }
        }
        for (index, spec) in specs.enumerated() {
            row("r\(index)", account: spec.account, minor: spec.minor, credit: spec.credit, pending: spec.pending, daysAgo: spec.daysAgo)
            if spec.toGoal, spec.account < 3, !spec.credit, bank.currency[spec.account] == bank.currency[3] {
                row("g\(index)", account: 3, minor: spec.minor, credit: true, pending: false, daysAgo: spec.daysAgo)
            }
        }
        for index in 0..<4 {
            bank.store.takeTransactions(rows[index], accountKey: key(index), dateFrom: "2000-01-01", at: fixedNow)
            guard index != unknown else {
                bank.booked.append(nil)
                continue
            }
            let currency = bank.currency[index]
            bank.store.takeBalances([EnableBanking.Balance(amount: .init(currency: currency.code,
                                                                         amount: EnableBankingAmount.text(balances[index], minorDigits: currency.minorDigits)),
                                                           type: "CLBD")], accountKey: key(index))
            bank.booked.append(Money(minorUnits: balances[index], currency: currency))
        }
        return bank
    }

    /// The export of `bank` as the binary runs it: the mapping's activities, goals, row details
    /// and booked balances, as `EnableBankingAPI` answers them from its store.
    static func export(_ bank: Bank, goals: [String] = [names[3]], new: Bool = false, mark: ExportMark? = nil) async throws
        -> (journal: String, notes: [String], mark: ExportMark?) {
        var settings = EnableBankingSettings()
        settings.goals = goals
        settings.timeZone = TimeZone(identifier: "UTC")!
        let mapping = EnableBankingMapping(store: bank.store, settings: settings)
        let api = FakeSavingsAPI(sourceName: "enablebanking")
        api.script { script in
            script.goals = { mapping.goals(skipped: nil) }
            script.activities = { from, to in mapping.activities(from: from, to: to) }
        }
        let (base, out) = commandContext(api, format: .ledger, kind: "enablebanking", currency: .eur)
        let notes = Locked<[String]>([])
        var context = CommandContext(api: base.api, sourceKind: base.sourceKind, currency: base.currency, format: .ledger,
                                     output: base.output, calendar: base.calendar, now: base.now, saver: base.saver,
                                     note: { line in notes.withLock { $0.append(line) } })
        context.activityDetails = { mapping.activityDetails }
        context.bookedBalances = { mapping.bookedBalances }
        let totals = try await ActivityExport.run(context, kind: .export, since: nil, until: nil, goal: nil, new: new, mark: mark)
        return (out.value, notes.withLock { $0 }, totals.mark)
    }

    /// `1250.00` with 2 digits, `400` with 0, `-1.234` with 3: minor units, integers only, every
    /// minor digit written (as `Cell.ledgerAmount` writes them); nil for anything else.
    static func minorUnits(_ text: Substring, digits: Int) -> Int64? {
        var rest = text
        let negative = rest.hasPrefix("-")
        if negative { rest = rest.dropFirst() }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == (digits == 0 ? 1 : 2), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
              var value = Int64(parts[0]) else { return nil }
        if digits > 0 {
            guard parts[1].count == digits, let fraction = Int64(parts[1]) else { return nil }
            for _ in 0..<digits {
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                value = times
            }
            let (sum, overflow) = value.addingReportingOverflow(fraction)
            guard !overflow else { return nil }
            value = sum
        }
        return negative ? -value : value
    }

    /// "150.00 EUR" → (EUR, 15000).
    static func money(_ text: Substring) -> Money? {
        let parts = text.split(separator: " ")
        guard parts.count == 2, let currency = Currency.from(code: String(parts[1])),
              let minor = minorUnits(parts[0], digits: currency.minorDigits) else { return nil }
        return Money(minorUnits: minor, currency: currency)
    }

    /// The journal read back: every posting's account and amount (openings included), the
    /// assertions, and whether each transaction balances in every currency.
    struct Read {
        var sums: [String: [String: Int64]] = [:]
        var assertions: [String: [Money]] = [:]
        var unreadable: [String] = []
        var unbalanced: [String] = []
        var overflowed = false
    }

    static func read(_ journal: String) -> Read {
        var read = Read()
        for block in journal.components(separatedBy: "\n\n") {
            var balance: [String: Int64] = [:]
            for line in block.split(separator: "\n") where line.hasPrefix("    ") && !line.hasPrefix("    ;") {
                let posting = line.dropFirst(4)
                guard let gap = posting.range(of: "  ") else {
                    read.unreadable.append(String(line))
                    continue
                }
                let account = String(posting[..<gap.lowerBound])
                let sides = posting[gap.upperBound...].components(separatedBy: " = ")
                guard let amount = money(Substring(sides[0])), sides.count <= 2 else {
                    read.unreadable.append(String(line))
                    continue
                }
                if sides.count == 2 {
                    guard let asserted = money(Substring(sides[1])) else {
                        read.unreadable.append(String(line))
                        continue
                    }
                    read.assertions[account, default: []].append(asserted)
                }
                let code = amount.currency.code
                let (sum, overflow) = (read.sums[account]?[code] ?? 0).addingReportingOverflow(amount.minorUnits)
                let (net, overflowNet) = (balance[code] ?? 0).addingReportingOverflow(amount.minorUnits)
                if overflow || overflowNet { read.overflowed = true }
                read.sums[account, default: [:]][code] = sum
                balance[code] = net
            }
            if balance.values.contains(where: { $0 != 0 }) { read.unbalanced.append(block) }
        }
        return read
    }

    static func ledgerAccount(_ index: Int) -> String {
        index < 3 ? "assets:enablebanking:" + names[index] : "assets:enablebanking:savings:" + names[3]
    }

    @Test func everyAccountOpensAndAssertsItsBookedBalance() async {
        let rows = zip(Gen.int(in: 0...3), Gen.int64(in: 1...2_000_000_000), Gen.bool, Gen.int(in: 0...3), Gen.int(in: 0...400),
                       Gen.bool)
            .map { RowSpec(account: $0.0, minor: $0.1, credit: $0.2, pending: $0.3 == 0, daysAgo: $0.4, toGoal: $0.5) }
            .array(of: 0...50)
        let currencies = Gen.int(in: 0...2).array(of: 4...4)
        let balances = Gen.int64(in: -1_000_000_000_000...1_000_000_000_000).array(of: 4...4)
        // 0...3: that account's balance is unknown; 4...7: every balance is known.
        await propertyCheck(count: 40, input: rows, currencies, balances, Gen.int(in: 0...7)) { rows, currencies, balances, unknown in
            let bank = Self.bank(rows, currencies: currencies, balances: balances, unknown: unknown)
            do {
                let (journal, notes, _) = try await Self.export(bank)
                let read = Self.read(journal)
                #expect(read.unreadable.isEmpty, "\(read.unreadable)")
                #expect(read.unbalanced.isEmpty, "\(read.unbalanced)")
                #expect(!read.overflowed)
                for index in 0..<4 {
                    let account = Self.ledgerAccount(index)
                    let currency = bank.currency[index]
                    guard let booked = bank.booked[index] else {
                        // Unknown: no assertion, and named on stderr.
                        #expect(read.assertions[account] == nil, "\(account): \(journal)")
                        #expect(notes.contains { $0.contains(Self.names[index]) && $0.contains("not known") }, "\(notes)")
                        continue
                    }
                    // Opening + every posting in its currency == the booked balance, asserted once.
                    #expect(read.sums[account]?[currency.code] ?? 0 == booked.minorUnits, "\(account): \(journal)")
                    #expect(read.assertions[account] == [booked], "\(account): \(journal)")
                }
                // Every booked row once; no pending row posted, each counted on stderr.
                for id in bank.bookedIds {
                    #expect(journal.components(separatedBy: "id: \(Cell.ledgerTagValue(id))\n").count == 2, "\(id)")
                }
                #expect(bank.pendingIds.allSatisfy { !journal.contains("id: \(Cell.ledgerTagValue($0))\n") })
                let pending = bank.pendingIds.count
                #expect(pending == 0 ? !notes.contains { $0.contains("pending") }
                        : notes.contains("\(pending == 1 ? "1 pending row" : "\(pending) pending rows") left out: the journal has booked rows only"),
                        "\(notes)")
                // The opening is dated on or before every row, the assertion on or after.
                // (At most one of the four balances is unknown, so there is an opening.)
                let days = journal.split(separator: "\n").filter { $0.first?.isNumber == true }.map { String($0.prefix(10)) }
                let opening = journal.split(separator: "\n").first { $0.hasSuffix(" opening balances") }.map { String($0.prefix(10)) }
                let assertion = journal.split(separator: "\n").first { $0.hasSuffix(" balances as enablebanking says") }
                    .map { String($0.prefix(10)) }
                #expect(opening != nil && days.allSatisfy { $0 >= opening! }, "\(journal)")
                #expect(assertion != nil && days.allSatisfy { $0 <= assertion! }, "\(journal)")

                // `--new`: the first run that writes a row opens every account but asserts
                // nothing (with no row written no mark is kept: it opens nothing); the next opens none.
                let (first, _, mark) = try await Self.export(bank, new: true)
                #expect(first.contains(" opening balances") == !bank.bookedIds.isEmpty, "\(first)")
                #expect((mark != nil) == !bank.bookedIds.isEmpty)
                #expect(!first.contains(" = "))
                let (second, _, _) = try await Self.export(bank, new: true, mark: mark)
                #expect(!second.contains("opening"), "\(second)")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    /// Two accounts with one name are two accounts in the journal (the id beside the name), each
    /// with its own opening and assertion.
    @Test func twoAccountsOfOneNameStayApart() async throws {
        var bank = Self.bank([RowSpec(account: 0, minor: 500, credit: false, pending: false, daysAgo: 3, toGoal: false),
                              RowSpec(account: 1, minor: 700, credit: true, pending: false, daysAgo: 2, toGoal: false)],
                             currencies: [0, 0, 0, 0], balances: [10_000, 20_000, 30_000, 40_000], unknown: 9)
        var accounts = bank.store.accounts.map(\.account)
        accounts[1].details = Self.names[0]
        bank.store.adopt(accounts)
        let (journal, _, _) = try await Self.export(bank)
        let read = Self.read(journal)
        let first = "assets:enablebanking:\(Self.names[0]) " + EnableBankingIDs.accountPart(Self.key(0))
        let second = "assets:enablebanking:\(Self.names[0]) " + EnableBankingIDs.accountPart(Self.key(1))
        #expect(read.assertions[first] == [Money(minorUnits: 10_000, currency: .eur)], "\(journal)")
        #expect(read.assertions[second] == [Money(minorUnits: 20_000, currency: .eur)], "\(journal)")
        #expect(read.sums[first]?["EUR"] == 10_000 && read.sums[second]?["EUR"] == 20_000)
    }

    /// Two goal accounts of one shown name share a journal account: neither is opened or
    /// asserted (no balance of one is that account's), both named on stderr.
    @Test func twoGoalsOfOneNameAreNamedNotAsserted() async throws {
        var bank = Self.bank([RowSpec(account: 0, minor: 500, credit: false, pending: false, daysAgo: 3, toGoal: true)],
                             currencies: [0, 0, 0, 0], balances: [10_000, 20_000, 30_000, 40_000], unknown: 9)
        var accounts = bank.store.accounts.map(\.account)
        accounts[2].details = Self.names[3]
        bank.store.adopt(accounts)
        let (journal, notes, _) = try await Self.export(bank, goals: ["uid-2", "uid-3"])
        let read = Self.read(journal)
        #expect(read.assertions["assets:enablebanking:savings:\(Self.names[3])"] == nil, "\(journal)")
        #expect(notes.filter { $0 == "no opening or assertion for \(Self.names[3]): another account has its name in the journal" }.count == 2,
                "\(notes)")
        #expect(read.assertions["assets:enablebanking:\(Self.names[0])"] == [Money(minorUnits: 10_000, currency: .eur)])
    }
}
