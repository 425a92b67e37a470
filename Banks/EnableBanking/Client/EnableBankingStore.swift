import FeedModel
import Foundation

/// What Enable Banking answered so far, kept in `enablebanking-data-F.json` (0600) in the cache
/// folder, never a secret: per account (by `identification_hash`, stable across sessions), its
/// record, its balances, its booked rows and its pending rows, and when it was last read. The
/// screens answer from it; a read is made only when it is old (docs/banks.md, the budget).
public struct EnableBankingStore: Codable, Sendable, Equatable {
    public struct Row: Codable, Sendable, Equatable {
        public var id: String
        public var transaction: EnableBanking.Transaction

        public init(id: String, transaction: EnableBanking.Transaction) {
            self.id = id
            self.transaction = transaction
        }
    }

    public struct AccountData: Codable, Sendable, Equatable {
        public var account: EnableBanking.Account
        public var balances: [EnableBanking.Balance] = []
        public var booked: [Row] = []
        public var pending: [Row] = []
        /// When its transactions were last read, and from which date the bank gave history.
        public var lastRead: Date?
        public var historyFrom: String?
        /// Why its last read failed (shown beside it), nil after a good one.
        public var problem: String?

        public init(account: EnableBanking.Account) { self.account = account }

        /// The newest booking date kept (`YYYY-MM-DD`), for the next read's `date_from`.
        public var newestBooked: String? { booked.compactMap { $0.transaction.bookingDate ?? $0.transaction.date }.max() }
    }

    public var accounts: [AccountData] = []

    public init() {}

    /// The oldest of the accounts' last reads (nil: one was never read).
    public var lastRead: Date? {
        guard !accounts.isEmpty else { return nil }
        let reads = accounts.map(\.lastRead)
        guard !reads.contains(nil) else { return nil }
        return reads.compactMap { $0 }.min()
    }

    public func data(_ key: String) -> AccountData? { accounts.first { $0.account.key == key } }

    /// The session's accounts: records replaced (a new session gives new uids), data kept, the
    /// order the session's; accounts it no longer lists are dropped.
    public mutating func adopt(_ session: [EnableBanking.Account]) {
        var seen = Set<String>()
        accounts = session.compactMap { account in
            guard seen.insert(account.key).inserted else { return nil }
            var data = self.data(account.key) ?? AccountData(account: account)
            data.account = account
            return data
        }
    }

    /// One read of an account's transactions from `dateFrom` (inclusive): its booked rows from
    /// that date on replaced by the answer's (older ones kept; an id in the answer drops its
    /// older copy), its pending rows replaced by the answer's; cancelled rows kept as booked
    /// rows, marked. Ids come from the answer (`EnableBankingIDs`).
    public mutating func takeTransactions(_ rows: [EnableBanking.Transaction], accountKey: String, dateFrom: String, at date: Date) {
        guard let index = accounts.firstIndex(where: { $0.account.key == accountKey }) else { return }
        let ids = EnableBankingIDs.ids(accountKey: accountKey, rows: rows)
        let answered = zip(ids, rows).map { Row(id: $0, transaction: $1) }
        let newBooked = answered.filter { !$0.transaction.isPending }
        let newIds = Set(newBooked.map(\.id))
        var data = accounts[index]
        let kept = data.booked.filter { row in
            (row.transaction.bookingDate ?? row.transaction.date ?? "") < dateFrom && !newIds.contains(row.id)
        }
        data.booked = (kept + newBooked).sorted { ($0.transaction.date ?? "", $0.id) < ($1.transaction.date ?? "", $1.id) }
        data.pending = answered.filter { $0.transaction.isPending }
        data.lastRead = date
        if data.historyFrom.map({ dateFrom < $0 }) ?? true {
            data.historyFrom = rows.compactMap { $0.bookingDate ?? $0.date }.min().map { min($0, dateFrom) } ?? dateFrom
        }
        data.problem = nil
        accounts[index] = data
    }

    public mutating func takeBalances(_ balances: [EnableBanking.Balance], accountKey: String) {
        guard let index = accounts.firstIndex(where: { $0.account.key == accountKey }) else { return }
        accounts[index].balances = balances
    }

    public mutating func mark(_ problem: String, accountKey: String) {
        guard let index = accounts.firstIndex(where: { $0.account.key == accountKey }) else { return }
        accounts[index].problem = problem
    }
}

/// The store on disk: `enablebanking-data-F.json`, 0600.
public struct EnableBankingStoreFile: Sendable {
    public let fileURL: URL?

    public init(directory: URL?, fingerprint: String) {
        fileURL = directory?.appendingPathComponent("enablebanking-data-\(fingerprint).json")
    }

    public func load() -> EnableBankingStore? {
        guard let fileURL, let data = try? Data(contentsOf: fileURL) else { return nil }
        return try? EnableBankingFiles.decoder().decode(EnableBankingStore.self, from: data)
    }

    /// Best effort: without it the next start reads again (budget permitting).
    public func save(_ store: EnableBankingStore) {
        guard let fileURL, let data = try? EnableBankingFiles.encoder().encode(store) else { return }
        EnableBankingFiles.writePrivate(data, to: fileURL)
    }
}
