@testable import EnableBankingClient
import FeedModel
import Foundation
import PropertyBased
import Testing

@Suite struct EnableBankingPagingTests {
    static func row(_ n: Int) -> EnableBanking.Transaction {
        EnableBanking.Transaction(entryReference: "E\(n)", amount: .init(currency: "EUR", amount: "\(n).00"), indicator: "DBIT",
                                  bookingDate: "2026-11-\(10 + n % 18)")
    }

    /// However the bank cuts its answer into pages (empty pages with a key included), the walk
    /// asks each page once, in order, with the key the previous one gave, and every entry comes
    /// back exactly once.
    @Test func everyEntryOnceAcrossPages() async throws {
        await propertyCheck(count: 200, input: Gen.int(in: 0...60), Gen.int(in: 0...400).array(of: 0...12)) { total, cuts in
            let rows = (0..<total).map(Self.row)
            var bounds = Array(Set(cuts.map { total == 0 ? 0 : $0 % (total + 1) })).sorted()
            if bounds.last != total { bounds.append(total) }
            // Page i holds rows[start..<bound]; two equal bounds make an empty page with a key.
            var pages: [[EnableBanking.Transaction]] = []
            var start = 0
            for bound in bounds {
                pages.append(Array(rows[start..<bound]))
                start = bound
            }
            for _ in 0..<(cuts.count % 3) { pages.insert([], at: pages.count / 2) }
            let asked = Locked<[String?]>([])
            let walked = try? await EnableBankingPaging.walk(label: "GET t", givenUp: { $0 }) { key throws(APIError) in
                asked.withLock { $0.append(key) }
                let index = key.map { Int($0.dropFirst(2))! } ?? 0
                return EnableBanking.TransactionPage(transactions: pages[index], continuationKey: index + 1 < pages.count ? "k-\(index + 1)" : nil)
            }
            #expect(walked?.map(\.entryReference) == rows.map(\.entryReference))
            #expect(asked.withLock { $0 } == [nil] + (1..<max(1, pages.count)).map { "k-\($0)" })
        }
    }

    @Test func aKeyGivenTwiceGivesTheReadUp() async {
        let asked = Locked(0)
        await #expect(throws: APIError.self) {
            try await EnableBankingPaging.walk(label: "GET t", givenUp: { $0 }) { _ throws(APIError) in
                asked.withLock { $0 += 1 }
                return EnableBanking.TransactionPage(transactions: [Self.row(1)], continuationKey: "same")
            }
        }
        #expect(asked.withLock { $0 } == 2)
    }

    /// Reads of overlapping windows (each from some day on, as the app asks: the newest booking
    /// date kept less ten days) keep every booked entry once, and the pending rows of the last read only.
    @Test func overlappingReadsKeepEveryEntryOnce() async {
        await propertyCheck(count: 150, input: Gen.int(in: 1...40), Gen.int(in: 0...27).array(of: 1...5), Gen.int(in: 0...3)) { total, starts, pending in
            let account = EnableBanking.Account(uid: "u1", identificationHash: "h1", currency: "EUR")
            var store = EnableBankingStore()
            store.adopt([account])
            let rows = (0..<total).map(Self.row)
            for (index, start) in starts.enumerated() {
                let from = String(format: "2026-11-%02d", 10 + start)
                var answer = rows.filter { ($0.bookingDate ?? "") >= from }
                let last = index == starts.count - 1
                let pendingRows = (0..<(last ? pending : pending + 1)).map { n in
                    EnableBanking.Transaction(entryReference: "P\(index)-\(n)", amount: .init(currency: "EUR", amount: "1"), indicator: "DBIT",
                                              status: "PDNG", transactionDate: "2026-11-28")
                }
                answer += pendingRows
                store.takeTransactions(answer, accountKey: "h1", dateFrom: from, at: Date(timeIntervalSince1970: Double(index)))
            }
            let kept = store.data("h1")
            let first = String(format: "2026-11-%02d", 10 + starts[0])
            let expected = Set(rows.filter { ($0.bookingDate ?? "") >= min(first, starts.map { String(format: "2026-11-%02d", 10 + $0) }.min()!) }
                .compactMap(\.entryReference))
            #expect(Set(kept?.booked.compactMap(\.transaction.entryReference) ?? []) == expected)
            #expect(kept?.booked.count == expected.count)
            #expect(kept?.pending.count == pending)
            #expect(kept?.pending.allSatisfy { $0.transaction.entryReference?.hasPrefix("P\(starts.count - 1)-") == true } == true)
        }
    }
}
