import FeedModel
import Foundation

/// An account's transactions walked page by page: while `continuation_key` is not null, the
/// next page is asked at once with it. The pages are one read. A key seen twice would loop:
/// the read is given up then, as after `WRONG_CONTINUATION_KEY`, and so is a walk past
/// `maxPages` (a bank that never ends).
public enum EnableBankingPaging {
    public static let maxPages = 500

    /// Every page's transactions in order; `page(nil)` is the first request.
    /// `givenUp`: the failure for a walk given up, from its reason.
    public static func walk<Failure: Error>(label: String, givenUp: (APIError) -> Failure,
                                            page: (_ continuationKey: String?) async throws(Failure) -> EnableBanking.TransactionPage)
        async throws(Failure) -> [EnableBanking.Transaction] {
        var rows: [EnableBanking.Transaction] = []
        var key: String?
        var seen = Set<String>()
        for _ in 0..<maxPages {
            let answer = try await page(key)
            rows += answer.transactions
            guard let next = answer.continuationKey else { return rows }
            guard seen.insert(next).inserted else {
                throw givenUp(APIError(kind: .malformed, request: label,
                                       message: "\(label): the bank gave the same continuation key twice; read given up"))
            }
            key = next
        }
        throw givenUp(APIError(kind: .malformed, request: label, message: "\(label): more than \(maxPages) pages; read given up"))
    }
}
