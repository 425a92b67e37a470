import Crypto
import FeedModel
import Foundation

/// The app's ids for Enable Banking's rows: `K/ENTRY_REFERENCE`, K the first 12 hex of
/// SHA-256 of the account's `identification_hash` (an entry reference repeats across accounts);
/// without an entry reference, `K/s-` and 16 hex of SHA-256 of what the row says (date,
/// indicator, amount, currency, counterparty, remittance), `-2`, `-3`… for look-alikes in one
/// answer. Never `transaction_id`, which may change on every listing.
public enum EnableBankingIDs {
    /// Lowercase hex of SHA-256 of `text`'s UTF-8, the first `count` digits.
    public static func hex(_ text: String, count: Int) -> String {
        let digest = SHA256.hash(data: Data(text.utf8))
        return String(digest.map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined().prefix(count))
    }

    /// K: the account's part of every id.
    public static func accountPart(_ accountKey: String) -> String { hex(accountKey, count: 12) }

    /// The ids of one answer's rows of one account, in order, each once.
    public static func ids(accountKey: String, rows: [EnableBanking.Transaction]) -> [String] {
        let part = accountPart(accountKey)
        var seen: [String: Int] = [:]
        return rows.map { row in
            let base: String
            if let reference = row.entryReference {
                base = part + "/" + TextSanitizer.clean(String(reference.prefix(120)))
            } else {
                let fields = [row.date ?? "", row.indicator ?? "", row.amount?.amount ?? "", row.amount?.currency ?? "",
                              (row.indicator == "CRDT" ? row.debtorName : row.creditorName) ?? "", row.remittance.joined(separator: "\n")]
                base = part + "/s-" + hex(fields.joined(separator: "\u{1f}"), count: 16)
            }
            let count = (seen[base] ?? 0) + 1
            seen[base] = count
            return count == 1 ? base : base + "-\(count)"
        }
    }
}
