import FeedModel
import Foundation

/// What SimpleFIN answered so far, kept in the cache directory (never the access URL: the file
/// is named by its fingerprint): the accounts as last seen, every transaction fetched, the span
/// of time those cover, and when the newest window was last fetched. The app answers from it;
/// a request is made only for what it does not cover (docs/banks.md, SimpleFIN's budget).
public struct SimpleFINStore: Codable, Sendable, Equatable {
    public var accounts: [SimpleFIN.AccountRecord] = []
    public var connections: [SimpleFIN.Connection] = []
    /// By account key (`AccountRecord.key`).
    public var transactions: [String: [SimpleFIN.TransactionRecord]] = [:]
    /// Unix seconds: the fetched span `[coveredFrom, coveredTo)`.
    public var coveredFrom: Int64?
    public var coveredTo: Int64?
    public var lastFetch: Date?
    /// An older window came back without a transaction in any account: nothing older exists.
    public var reachedEnd = false
    /// The newest answer's problems (`errlist`, v1 `errors`).
    public var problems: [SimpleFIN.Problem] = []

    public init() {}

    public var isEmpty: Bool { lastFetch == nil }

    /// Takes in one answer for `[start, end)`: accounts updated, each account's rows of the
    /// window replaced by the answer's (the Bridge's demo makes new ids on every request, so
    /// rows are never matched by id across fetches), rows outside the window dropped; pending
    /// rows (which have no place in time until they post) replaced when `newest`.
    public mutating func merge(_ set: SimpleFIN.AccountSet, start: Int64, end: Int64, newest: Bool, at date: Date) {
        var seen = Set<String>()
        var anyRows = false
        for var account in set.accounts {
            let key = account.key
            guard seen.insert(key).inserted else { continue }
            let rows = (account.transactions ?? []).filter { row in
                row.isPending ? newest : (row.posted >= start && row.posted < end)
            }
            anyRows = anyRows || !rows.isEmpty
            account.transactions = nil
            if let index = accounts.firstIndex(where: { $0.key == key }) { accounts[index] = account } else { accounts.append(account) }
            var kept = (transactions[key] ?? []).filter { row in
                row.isPending ? !newest : !(row.posted >= start && row.posted < end)
            }
            kept += rows
            kept.sort { $0.posted != $1.posted ? $0.posted < $1.posted : $0.id < $1.id }
            transactions[key] = kept
        }
        for connection in set.connections {
            if let index = connections.firstIndex(where: { $0.connId == connection.connId }) {
                connections[index] = connection
            } else {
                connections.append(connection)
            }
        }
        if newest {
            problems = set.problems
            lastFetch = date
            // A gap between what was kept and this window: what was kept is no longer continuous.
            if let to = coveredTo, to < start { coveredFrom = start; reachedEnd = false }
            coveredFrom = min(coveredFrom ?? start, start)
            coveredTo = max(coveredTo ?? end, end)
        } else {
            coveredFrom = min(coveredFrom ?? start, start)
            coveredTo = max(coveredTo ?? end, end)
            if !anyRows { reachedEnd = true }
        }
    }

    /// The account with `key`.
    public func account(_ key: String) -> SimpleFIN.AccountRecord? { accounts.first { $0.key == key } }

    /// The connection's name for an account: v2's connection, else v1's org name.
    public func connectionName(_ account: SimpleFIN.AccountRecord) -> String {
        if let name = account.connName, !name.isEmpty { return name }
        if let id = account.connId, let connection = connections.first(where: { $0.connId == id }) {
            return connection.name.isEmpty ? (connection.orgName ?? "") : connection.name
        }
        return account.org?.name ?? account.org?.domain ?? ""
    }
}

/// The store on disk: `simplefin-data-<fingerprint>.json`, 0600.
public struct SimpleFINStoreFile: Sendable {
    public let fileURL: URL?

    public init(directory: URL?, fingerprint: String) {
        fileURL = directory?.appendingPathComponent("simplefin-data-\(fingerprint).json")
    }

    public func load() -> SimpleFINStore? {
        guard let fileURL, let data = try? Data(contentsOf: fileURL) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(SimpleFINStore.self, from: data)
    }

    /// Best effort: without it the next start asks again.
    public func save(_ store: SimpleFINStore) {
        guard let fileURL else { return }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(store) else { return }
        try? PrivateFile.write(data, to: fileURL)
    }
}
