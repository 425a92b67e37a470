import FeedModel
import Foundation
import GRDB

/// The offline cache in SQLite (through GRDB): one database file per API base URL.
///
/// Goals, rules, users and goal feeds are kept as the API's JSON with when they were fetched;
/// activities are kept one row each (one per id), with the spans of time already fetched, so a window can
/// be answered from the cache only when all of it was fetched before. WAL mode and a busy
/// timeout let two instances share one file.
public final class SQLiteCache: OfflineCache {
    /// What opening found, for a one-line note in the status bar.
    public struct OpenResult: Sendable {
        public let cache: SQLiteCache?
        public let note: String?
    }

    private let database: any DatabaseWriter
    public let fileURL: URL
    /// Opened read-only (its directory or file cannot be written): what it holds is answered,
    /// nothing new is kept.
    public let isReadOnly: Bool
    /// Amounts are kept as the API wrote them, without a currency: read back in this one.
    private let decoder: PayloadDecoder
    /// The first failure to keep something (a full disk), said once.
    private let writeProblem = Locked<(said: Bool, pending: String?)>((false, nil))

    init(database: any DatabaseWriter, fileURL: URL, accountCurrency: Currency, readOnly: Bool = false) {
        self.database = database
        self.fileURL = fileURL
        self.isReadOnly = readOnly
        self.decoder = PayloadDecoder(accountCurrency: accountCurrency)
    }

    /// `$XDG_CACHE_HOME/qapital-tui` (default `~/.cache/qapital-tui`).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("qapital-tui")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/qapital-tui")
    }

    /// A file name for a base URL and account: readable, and unique per scheme, host, port,
    /// path and token (another token is another account: it must not see this one's data).
    public static func fileName(for baseURL: URL, token: String? = nil) -> String {
        let text = baseURL.absoluteString.lowercased()
        let readable = String(text.map { $0.isLetter || $0.isNumber ? $0 : "_" }.prefix(80))
        let hash = FNV1a.hash(text.utf8 + [0] + Array((token ?? "").utf8))
        return "\(readable)-\(String(hash, radix: 16)).sqlite"
    }

    /// Opens (or creates) the cache for `baseURL` in `directory`. A corrupt file is moved aside
    /// and replaced; a cache that cannot be written but can be read is used read-only; a
    /// directory that cannot be written and holds no cache leaves the app without one. Either
    /// way the note says what happened, and nothing here throws. The directory is made private
    /// (0700, files 0600; see `CacheFiles`) and cache files unused for 30 days are removed.
    public static func open(directory: URL, baseURL: URL, token: String? = nil, accountCurrency: Currency = .usd,
                            now: Date = Date()) -> OpenResult {
        let fileURL = directory.appendingPathComponent(fileName(for: baseURL, token: token))
        let readOnlyNote = "cache read-only, nothing new is kept: cannot write \(directory.path)"
        do {
            try CacheFiles.preparePrivateDirectory(directory)
        } catch {
            if let cache = try? openReadOnly(fileURL, accountCurrency: accountCurrency) {
                return OpenResult(cache: cache, note: readOnlyNote)
            }
            return OpenResult(cache: nil, note: "cache off: cannot create \(directory.path)")
        }
        CacheFiles.prune(directory, keeping: fileURL, now: now)
        CacheFiles.prepareDatabaseFile(fileURL)
        do {
            return OpenResult(cache: try openChecked(fileURL, accountCurrency: accountCurrency), note: nil)
        } catch {
            guard isCorruption(error) else {
                if let cache = try? openReadOnly(fileURL, accountCurrency: accountCurrency) {
                    return OpenResult(cache: cache, note: readOnlyNote)
                }
                return OpenResult(cache: nil, note: "cache off: cannot open \(fileURL.path) (\(describe(error)))")
            }
            let aside = fileURL.appendingPathExtension("corrupt-\(Int(Date().timeIntervalSince1970))")
            do {
                try FileManager.default.moveItem(at: fileURL, to: aside)
                CacheFiles.makePrivate(aside)
                for suffix in ["-wal", "-shm"] {
                    try? FileManager.default.removeItem(atPath: fileURL.path + suffix)
                }
                CacheFiles.prepareDatabaseFile(fileURL)
                return OpenResult(cache: try openChecked(fileURL, accountCurrency: accountCurrency),
                                  note: "the cache was damaged; moved aside to \(aside.lastPathComponent)")
            } catch {
                return OpenResult(cache: nil, note: "cache off: \(fileURL.lastPathComponent) is damaged and could not be moved aside")
            }
        }
    }

    private static func openChecked(_ fileURL: URL, accountCurrency: Currency) throws -> SQLiteCache {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let pool = try DatabasePool(path: fileURL.path, configuration: configuration)
        try migrator.migrate(pool)
        // A file that opens can still be damaged inside; find out now, not mid-session.
        let check = try pool.read { try String.fetchOne($0, sql: "PRAGMA quick_check") }
        guard check == "ok" else { throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: check) }
        return SQLiteCache(database: pool, fileURL: fileURL, accountCurrency: accountCurrency)
    }

    /// The file as it is, never written: SQLite's `immutable` mode, because a cache in WAL mode
    /// cannot otherwise be read where its `-shm` file cannot be made. It must hold the schema.
    static func openReadOnly(_ fileURL: URL, accountCurrency: Currency) throws -> SQLiteCache {
        guard FileManager.default.isReadableFile(atPath: fileURL.path),
              let path = fileURL.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))) else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "not readable")
        }
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: "file:\(path)?immutable=1", configuration: configuration)
        let usable = try queue.read { db -> Bool in
            let check = try String.fetchOne(db, sql: "PRAGMA quick_check")
            let applied = try migrator.appliedIdentifiers(db)
            return check == "ok" && applied.contains("v1")
        }
        guard usable else { throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "not a usable cache") }
        return SQLiteCache(database: queue, fileURL: fileURL, accountCurrency: accountCurrency, readOnly: true)
    }

    static func isCorruption(_ error: Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }

    private static func describe(_ error: Error) -> String {
        (error as? DatabaseError)?.message ?? String(describing: error)
    }

    /// Schema versions, from the first one on. Never edit a shipped migration: add one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "resource") { table in
                table.column("kind", .text).notNull()
                table.column("key", .text).notNull()
                table.column("json", .blob).notNull()
                table.column("fetchedAt", .double).notNull()
                table.primaryKey(["kind", "key"])
            }
            try db.create(table: "activity") { table in
                table.column("timestamp", .double).notNull()
                table.column("json", .blob).notNull()
            }
            try db.create(table: "coverage") { table in
                table.column("fromTime", .double).notNull()
                table.column("toTime", .double).notNull()
                table.column("fetchedAt", .double).notNull()
            }
            try db.create(table: "history") { table in
                table.column("id", .integer).primaryKey()
                table.column("oldest", .double).notNull()
            }
        }
        migrator.registerMigration("v2: activity index") { db in
            try db.create(index: "activity_by_time", on: "activity", columns: ["timestamp"])
        }
        migrator.registerMigration("v3: activity kinds") { db in
            // Activities kept before they said what they are (a saving, a move into a goal, a
            // declined row) would count a bank's salary as saved: they are fetched again.
            try db.execute(sql: "DELETE FROM activity")
            try db.execute(sql: "DELETE FROM coverage")
        }
        migrator.registerMigration("v4: activity ids") { db in
            // Each activity kept once, by its source's id (issue 36): rows kept before they had
            // one are fetched again, and a row whose id comes back at another time (a pending
            // item that settled later) replaces the one kept before.
            try db.execute(sql: "DELETE FROM activity")
            try db.execute(sql: "DELETE FROM coverage")
            try db.alter(table: "activity") { table in table.add(column: "id", .text) }
            try db.create(index: "activity_by_id", on: "activity", columns: ["id"], unique: true)
        }
        return migrator
    }

    // MARK: - Resources kept as JSON

    /// A kept resource's bytes and when they were fetched.
    private func loadBytes(kind: String, key: String) async -> Cached<Data>? {
        let found = try? await database.read { db -> (Data, Double)? in
            guard let row = try Row.fetchOne(db, sql: "SELECT json, fetchedAt FROM resource WHERE kind = ? AND key = ?",
                                             arguments: [kind, key]),
                  let data = row["json"] as Data?, let fetchedAt = row["fetchedAt"] as Double? else { return nil }
            return (data, fetchedAt)
        }
        guard let (data, fetchedAt) = found ?? nil else { return nil }
        return Cached(data, fetchedAt: Date(timeIntervalSince1970: fetchedAt))
    }

    private func storeBytes(_ data: Data, kind: String, key: String, at date: Date) async {
        guard !isReadOnly else { return }
        do {
            try await database.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO resource (kind, key, json, fetchedAt) VALUES (?, ?, ?, ?)",
                               arguments: [kind, key, data, date.timeIntervalSince1970])
            }
        } catch {
            noteWriteFailure(error)
        }
    }

    /// Keeps the first failure to write as a note for the status bar; the app goes on without
    /// keeping (reads still answer what was kept before).
    private func noteWriteFailure(_ error: any Error) {
        guard let error = error as? DatabaseError else { return }
        let note: String
        switch error.resultCode.primaryResultCode {
        case .SQLITE_FULL: note = "cache: the disk is full; new data is not kept"
        case .SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM:
            note = "cache: cannot write \(fileURL.lastPathComponent) (\(SQLiteCache.describe(error))); new data is not kept"
        default: return
        }
        writeProblem.withLock {
            guard !$0.said else { return }
            $0.said = true
            $0.pending = note
        }
    }

    /// Folds the write-ahead log into the file and empties it (`wal_checkpoint(TRUNCATE)`), so a
    /// clean quit leaves one tidy file, not a small `.sqlite` beside a large `-wal`.
    public func checkpoint() {
        guard !isReadOnly else { return }
        _ = try? database.writeWithoutTransaction { try $0.checkpoint(.truncate) }
    }

    public func takeWriteProblem() -> String? {
        writeProblem.withLock { state in
            defer { state.pending = nil }
            return state.pending
        }
    }

    /// Tests: a database that may not grow past `pages` pages, as on a full disk.
    func limitSize(toPages pages: Int) async throws {
        try await database.write { try $0.execute(sql: "PRAGMA max_page_count = \(pages)") }
    }

    private func load<T: Decodable & Sendable>(_ type: T.Type, kind: String, key: String) async -> Cached<T>? {
        guard let bytes = await loadBytes(kind: kind, key: key),
              let value = try? decoder.decode(type, from: bytes.value, resource: "cache \(kind)") else { return nil }
        return Cached(value, fetchedAt: bytes.fetchedAt)
    }

    private func store<T: Encodable>(_ value: T, kind: String, key: String, at date: Date) async {
        guard let data = try? JSONEncoder().encode(value) else { return }
        await storeBytes(data, kind: kind, key: key, at: date)
    }

    public func goals() async -> Cached<[Goal]>? {
        guard let list = await load(GoalList.self, kind: "goals", key: "") else { return nil }
        return Cached(list.value.savingsGoals, fetchedAt: list.fetchedAt)
    }

    public func saveGoals(_ goals: [Goal], at date: Date) async {
        await store(GoalList(savingsGoals: goals), kind: "goals", key: "", at: date)
    }

    public func rules() async -> Cached<[SavingsRule]>? {
        guard let list = await load(RuleList.self, kind: "rules", key: "") else { return nil }
        return Cached(list.value.savingsRules, fetchedAt: list.fetchedAt)
    }

    public func saveRules(_ rules: [SavingsRule], at date: Date) async {
        await store(RuleList(savingsRules: rules), kind: "rules", key: "", at: date)
    }

    public func user(id: Int) async -> Cached<User>? {
        guard let response = await load(UserResponse.self, kind: "user", key: String(id)) else { return nil }
        return Cached(response.value.user, fetchedAt: response.fetchedAt)
    }

    public func saveUser(_ user: User, at date: Date) async {
        await store(user, kind: "user", key: String(user.id), at: date)
    }

    public func feed(goalId: GoalID) async -> Cached<[FeedItem]>? {
        guard let feed = await load(GoalFeed.self, kind: "feed", key: goalId.rawValue) else { return nil }
        return Cached(feed.value.feed, fetchedAt: feed.fetchedAt)
    }

    public func saveFeed(_ items: [FeedItem], goalId: GoalID, at date: Date) async {
        await store(GoalFeed(feed: items), kind: "feed", key: goalId.rawValue, at: date)
    }

    public func account() async -> Cached<Account>? {
        guard let kept = await load(KeptAccount.self, kind: "account", key: "") else { return nil }
        return kept.value.account.map { Cached($0, fetchedAt: kept.fetchedAt) }
    }

    public func saveAccount(_ account: Account, at date: Date) async {
        await store(KeptAccount(account), kind: "account", key: "", at: date)
    }

    // MARK: - Picture bytes

    public func image(at url: URL) async -> Cached<Data>? {
        await loadBytes(kind: "image", key: url.absoluteString)
    }

    public func saveImage(_ data: Data, at url: URL, fetchedAt date: Date) async {
        await storeBytes(data, kind: "image", key: url.absoluteString, at: date)
    }

    // MARK: - Activities and the spans fetched

    public func activities(from: Date, to: Date, allowPartial: Bool) async -> Cached<ActivityPage>? {
        let start = from.timeIntervalSince1970
        let end = to.timeIntervalSince1970
        let result = try? await database.read { db -> (rows: [Data], fetchedAt: Double, covered: Bool, oldest: Double?)? in
            let spans = try Row.fetchAll(db, sql: "SELECT fromTime, toTime, fetchedAt FROM coverage WHERE toTime > ? AND fromTime < ? ORDER BY fromTime",
                                         arguments: [start, end])
            guard !spans.isEmpty else { return nil }
            var reached = start
            var oldestFetch = Double.infinity
            for span in spans {
                let spanFrom: Double = span["fromTime"]
                let spanTo: Double = span["toTime"]
                if spanFrom > reached { break }
                reached = max(reached, spanTo)
                oldestFetch = min(oldestFetch, span["fetchedAt"])
            }
            let covered = reached >= end
            if !covered && !allowPartial { return nil }
            if !covered {
                oldestFetch = spans.map { $0["fetchedAt"] as Double }.min() ?? oldestFetch
            }
            let rows = try Data.fetchAll(db, sql: "SELECT json FROM activity WHERE timestamp >= ? AND timestamp < ? ORDER BY timestamp DESC",
                                         arguments: [start, end])
            let oldest = try Double.fetchOne(db, sql: "SELECT oldest FROM history WHERE id = 1")
            return (rows, oldestFetch, covered, oldest)
        }
        guard let found = result ?? nil, let oldest = found.oldest else { return nil }
        let activities = found.rows.compactMap { try? decoder.decode(Activity.self, from: $0, resource: "cache activity") }
        return Cached(ActivityPage(oldest: Date(timeIntervalSince1970: oldest), activities: activities),
                      fetchedAt: Date(timeIntervalSince1970: found.fetchedAt))
    }

    public func saveActivities(_ page: ActivityPage, from: Date, to: Date, at date: Date) async {
        guard !isReadOnly else { return }
        let encoder = JSONEncoder()
        let rows = page.activities.compactMap { activity in
            (try? encoder.encode(activity)).map { (activity.id, activity.timestamp.timeIntervalSince1970, $0) }
        }
        let start = from.timeIntervalSince1970
        let end = to.timeIntervalSince1970
        do {
            try await database.write { db in
                // The window's activities replace whatever was kept for that span.
                try db.execute(sql: "DELETE FROM activity WHERE timestamp >= ? AND timestamp < ?", arguments: [start, end])
                // One row per id: the same id kept elsewhere in time, or twice in this answer, is replaced.
                for (id, timestamp, json) in rows where timestamp >= start && timestamp < end {
                    try db.execute(sql: "INSERT OR REPLACE INTO activity (id, timestamp, json) VALUES (?, ?, ?)",
                                   arguments: [id, timestamp, json])
                }
                try db.execute(sql: "INSERT INTO coverage (fromTime, toTime, fetchedAt) VALUES (?, ?, ?)",
                               arguments: [start, end, date.timeIntervalSince1970])
                try db.execute(sql: "INSERT OR REPLACE INTO history (id, oldest) VALUES (1, ?)",
                               arguments: [page.oldest.timeIntervalSince1970])
            }
        } catch {
            noteWriteFailure(error)
        }
    }
}
