@testable import DemoData
import FeedModel
import Foundation
import GRDB
import QapitalApp
import Testing
@testable import FeedCache

let now = Date(timeIntervalSince1970: 1_795_000_000)
let baseURL = URL(string: "http://127.0.0.1:8080")!

/// A fresh, empty directory for one test's cache.
func temporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("qapital-cache-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func openCache(_ directory: URL) throws -> SQLiteCache {
    let opened = SQLiteCache.open(directory: directory, baseURL: baseURL)
    return try #require(opened.cache, "\(opened.note ?? "")")
}

@Suite struct SQLiteCacheTests {
    @Test func keepsGoalsRulesUsersAndFeedsWithWhenTheyWereFetched() async throws {
        let cache = try openCache(temporaryDirectory())
        let data = DemoDataset(now: now)
        #expect(await cache.goals() == nil)
        await cache.saveGoals(data.goals, at: now)
        await cache.saveRules(data.rules, at: now)
        await cache.saveUser(data.users[7], at: now.addingTimeInterval(-60))
        await cache.saveFeed(data.feeds[1]!, goalId: 1, at: now)
        #expect(await cache.goals()?.value == data.goals)
        #expect(await cache.goals()?.fetchedAt == now)
        #expect(await cache.rules()?.value == data.rules)
        #expect(await cache.user(id: 8)?.value == data.users[7])
        #expect(await cache.user(id: 8)?.fetchedAt == now.addingTimeInterval(-60))
        #expect(await cache.user(id: 9) == nil)
        let feed = try #require(await cache.feed(goalId: 1)?.value)
        #expect(feed.map(\.amount) == data.feeds[1]!.map(\.amount))
        #expect(feed.map(\.message) == data.feeds[1]!.map(\.message))
    }

    @Test func answersAWindowOnlyWhenAllOfItWasFetched() async throws {
        let cache = try openCache(temporaryDirectory())
        let data = DemoDataset(now: now)
        let window = ActivityPager.windowLength
        let to = now.addingTimeInterval(-window)
        let from = to.addingTimeInterval(-window)
        let inside = data.activities.filter { $0.timestamp >= from && $0.timestamp < to }
        #expect(!inside.isEmpty)
        await cache.saveActivities(ActivityPage(oldest: data.oldestActivity, activities: inside), from: from, to: to, at: now)
        let page = try #require(await cache.activities(from: from, to: to, allowPartial: false))
        #expect(page.value.activities == inside)
        #expect(page.value.oldest == data.oldestActivity)
        #expect(page.fetchedAt == now)
        // Part of a fetched span is covered; a span that reaches past it is not, unless partial will do.
        #expect(await cache.activities(from: from, to: from.addingTimeInterval(86_400), allowPartial: false) != nil)
        #expect(await cache.activities(from: from, to: now, allowPartial: false) == nil)
        #expect(await cache.activities(from: from, to: now, allowPartial: true)?.value.activities == inside)
        // Saving the window again replaces, never duplicates.
        await cache.saveActivities(ActivityPage(oldest: data.oldestActivity, activities: inside), from: from, to: to, at: now)
        #expect(await cache.activities(from: from, to: to, allowPartial: false)?.value.activities.count == inside.count)
    }

    @Test func aDamagedFileIsMovedAsideAndTheCacheStartsAfresh() async throws {
        let directory = temporaryDirectory()
        let file = directory.appendingPathComponent(SQLiteCache.fileName(for: baseURL))
        try Data(repeating: 0x5A, count: 8192).write(to: file)
        let opened = SQLiteCache.open(directory: directory, baseURL: baseURL)
        let cache = try #require(opened.cache)
        #expect(opened.note?.hasPrefix("the cache was damaged; moved aside to ") == true)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.contains { $0.contains(".corrupt-") })
        await cache.saveRules([SavingsRule(id: 1, kind: .roundup, amount: nil)], at: now)
        #expect(await cache.rules()?.value.count == 1)
    }

    @Test func anUnwritableDirectoryTurnsTheCacheOffWithANote() {
        let opened = SQLiteCache.open(directory: URL(fileURLWithPath: "/dev/null/qapital"), baseURL: baseURL)
        #expect(opened.cache == nil)
        #expect(opened.note == "cache off: cannot create /dev/null/qapital")
    }

    @Test func aCacheThatCannotBeWrittenIsUsedReadOnly() async throws {
        let directory = temporaryDirectory()
        let rules = [SavingsRule(id: 1, kind: .roundup, amount: nil)]
        do {
            let cache = try #require(SQLiteCache.open(directory: directory, baseURL: baseURL).cache)
            await cache.saveRules(rules, at: now)
        }
        // The tests run as root, which any permission lets write: a directory where SQLite's
        // write-ahead log must go makes the file as unwritable as a read-only directory would.
        let file = directory.appendingPathComponent(SQLiteCache.fileName(for: baseURL))
        try FileManager.default.createDirectory(atPath: file.path + "-wal", withIntermediateDirectories: false)
        let before = try Data(contentsOf: file)

        let opened = SQLiteCache.open(directory: directory, baseURL: baseURL)
        let cache = try #require(opened.cache)
        #expect(cache.isReadOnly)
        #expect(opened.note == "cache read-only, nothing new is kept: cannot write \(directory.path)")
        #expect(await cache.rules()?.value == rules)
        #expect(await cache.rules()?.fetchedAt == now)
        await cache.saveRules([], at: now.addingTimeInterval(60))
        await cache.saveActivities(ActivityPage(oldest: now, activities: []), from: now, to: now, at: now)
        #expect(await cache.rules()?.value == rules, "nothing new is kept")
        #expect(try Data(contentsOf: file) == before)
    }

    @Test func aFullDiskIsSaidOnceAndWhatWasKeptIsStillAnswered() async throws {
        let cache = try openCache(temporaryDirectory())
        let rules = [SavingsRule(id: 1, kind: .roundup, amount: nil)]
        await cache.saveRules(rules, at: now)
        #expect(cache.takeWriteProblem() == nil)
        // SQLite's own size cap fails writes with SQLITE_FULL, as a full disk does.
        try await cache.limitSize(toPages: 1)
        let big = (0..<2_000).map { SavingsRule(id: $0, kind: .roundup, amount: nil) }
        await cache.saveRules(big, at: now)
        #expect(cache.takeWriteProblem() == "cache: the disk is full; new data is not kept")
        #expect(cache.takeWriteProblem() == nil)
        await cache.saveActivities(ActivityPage(oldest: now, activities: []), from: now, to: now, at: now)
        await cache.saveRules(big, at: now)
        #expect(cache.takeWriteProblem() == nil, "said once")
        #expect(await cache.rules()?.value == rules)
    }

    @Test func aReadableFileThatIsNotACacheIsNotUsedReadOnly() throws {
        let directory = temporaryDirectory()
        let file = directory.appendingPathComponent("other.sqlite")
        do {
            let queue = try DatabaseQueue(path: file.path)
            try queue.write { try $0.execute(sql: "CREATE TABLE other (x)") }
        }
        #expect(throws: (any Error).self) { try SQLiteCache.openReadOnly(file, accountCurrency: .usd) }
        #expect(throws: (any Error).self) { try SQLiteCache.openReadOnly(directory.appendingPathComponent("none"), accountCurrency: .usd) }
    }

    @Test func aVersionOneDatabaseIsMigratedKeepingItsData() async throws {
        let directory = temporaryDirectory()
        let file = directory.appendingPathComponent(SQLiteCache.fileName(for: baseURL))
        do {
            let pool = try DatabasePool(path: file.path)
            try SQLiteCache.migrator.migrate(pool, upTo: "v1")
            let json = try JSONEncoder().encode(RuleList(savingsRules: [SavingsRule(id: 2, kind: .guiltyPleasure, amount: nil)]))
            try await pool.write { db in
                try db.execute(sql: "INSERT INTO resource (kind, key, json, fetchedAt) VALUES ('rules', '', ?, ?)",
                               arguments: [json, now.timeIntervalSince1970])
                // An activity kept before activities said what they are: dropped, to be fetched again.
                try db.execute(sql: "INSERT INTO activity (timestamp, json) VALUES (?, ?)", arguments: [now.timeIntervalSince1970, Data("{}".utf8)])
                try db.execute(sql: "INSERT INTO coverage (fromTime, toTime, fetchedAt) VALUES (?, ?, ?)",
                               arguments: [0, now.timeIntervalSince1970, now.timeIntervalSince1970])
            }
            try pool.close()
        }
        let cache = try openCache(directory)
        #expect(await cache.rules()?.value.map(\.kind) == [.guiltyPleasure])
        let pool = try DatabasePool(path: file.path)
        let applied = try await pool.read { try SQLiteCache.migrator.appliedMigrations($0) }
        #expect(applied == ["v1", "v2: activity index", "v3: activity kinds", "v4: activity ids"])
        #expect(try await pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM activity") } == 0)
        #expect(try await pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM coverage") } == 0)
        #expect(try await pool.read { try $0.indexes(on: "activity").map(\.name).sorted() } == ["activity_by_id", "activity_by_time"])
    }

    @Test func twoInstancesShareOneFile() async throws {
        let directory = temporaryDirectory()
        let first = try openCache(directory)
        let second = try openCache(directory)
        await withTaskGroup(of: Void.self) { group in
            for id in 1...20 {
                group.addTask { await (id.isMultiple(of: 2) ? first : second).saveUser(User(id: id, displayName: "U\(id)"), at: now) }
            }
        }
        for id in 1...20 {
            #expect(await first.user(id: id)?.value.displayName == "U\(id)")
        }
    }

    @Test func amountsComeBackInTheAccountCurrency() async throws {
        let directory = temporaryDirectory()
        let cache = try #require(SQLiteCache.open(directory: directory, baseURL: baseURL, accountCurrency: .jpy).cache)
        let goal = Goal(id: 1, name: "Kyoto", ownerId: 1, target: Money(minorUnits: 50_000, currency: .jpy),
                        balance: Money(minorUnits: 1_200, currency: .jpy))
        await cache.saveGoals([goal], at: now)
        #expect(await cache.goals()?.value.first?.balance.formatted == "¥1,200")
    }

    @Test func anotherTokenIsAnotherAccountAndAnotherFile() {
        #expect(SQLiteCache.fileName(for: baseURL, token: "alice") != SQLiteCache.fileName(for: baseURL, token: "bob"))
        #expect(SQLiteCache.fileName(for: baseURL, token: nil) != SQLiteCache.fileName(for: baseURL, token: "alice"))
    }

    @Test func cacheFilesAreNamedPerBaseURL() {
        let a = SQLiteCache.fileName(for: URL(string: "http://127.0.0.1:8080")!)
        let b = SQLiteCache.fileName(for: URL(string: "http://127.0.0.1:8081")!)
        #expect(a != b)
        #expect(a.hasPrefix("http___127_0_0_1_8080-"))
        #expect(SQLiteCache.defaultDirectory(environment: ["XDG_CACHE_HOME": "/tmp/x"]).path == "/tmp/x/qapital-tui")
        #expect(SQLiteCache.defaultDirectory(environment: ["HOME": "/home/me"]).path == "/home/me/.cache/qapital-tui")
    }
}

/// The cache is private: someone's transactions are in it.
@Suite struct CachePrivacyTests {
    static func mode(_ url: URL) -> Int {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return -1 }
        return Int(info.st_mode & 0o777)
    }

    /// The default directory's name, in a fresh parent.
    static func defaultLikeDirectory() -> URL {
        temporaryDirectory().appendingPathComponent("qapital-tui")
    }

    @Test func filesAre0600InA0700Directory() async throws {
        let directory = Self.defaultLikeDirectory()
        let cache = try openCache(directory)
        await cache.saveRules([SavingsRule(id: 1, kind: .roundup, amount: nil)], at: now)
        #expect(Self.mode(directory) == 0o700)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.contains { $0.hasSuffix(".sqlite") } && names.contains { $0.hasSuffix(".sqlite-wal") })
        for name in names {
            #expect(Self.mode(directory.appendingPathComponent(name)) == 0o600, "\(name)")
        }
    }

    @Test func filesAndTheDirectoryOfAnOlderVersionAreMadePrivateOnOpen() async throws {
        let directory = Self.defaultLikeDirectory()
        do {
            let cache = try openCache(directory)
            await cache.saveRules([SavingsRule(id: 1, kind: .roundup, amount: nil)], at: now)
        }
        // As an older version left them.
        chmod(directory.path, 0o755)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            chmod(directory.appendingPathComponent(name).path, 0o644)
        }
        let cache = try openCache(directory)
        #expect(await cache.rules()?.value.count == 1)
        #expect(Self.mode(directory) == 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            #expect(Self.mode(directory.appendingPathComponent(name)) == 0o600, "\(name)")
        }
    }

    @Test func aDirectoryTheUserNamedIsLeftAsItIsButTheFilesArePrivate() throws {
        let directory = temporaryDirectory()
        try Data("mine".utf8).write(to: directory.appendingPathComponent("notes.txt"))
        chmod(directory.path, 0o755)
        _ = try openCache(directory)
        #expect(Self.mode(directory) == 0o755)
        #expect(Self.mode(directory.appendingPathComponent(SQLiteCache.fileName(for: baseURL))) == 0o600)
    }

    @Test func filesOfServersUnusedFor30DaysArePrunedAtStart() throws {
        let directory = Self.defaultLikeDirectory()
        let old = URL(string: "http://old.example:1")!
        let recent = URL(string: "http://recent.example:2")!
        for url in [old, recent] { _ = SQLiteCache.open(directory: directory, baseURL: url) }
        let oldFile = directory.appendingPathComponent(SQLiteCache.fileName(for: old))
        let recentFile = directory.appendingPathComponent(SQLiteCache.fileName(for: recent))
        let aside = directory.appendingPathComponent(SQLiteCache.fileName(for: old) + ".corrupt-1")
        let stranger = directory.appendingPathComponent("notes.txt")
        try Data().write(to: aside)
        try Data().write(to: stranger)
        let longAgo = now.addingTimeInterval(-31 * 86_400)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: oldFile.path + suffix) {
            try FileManager.default.setAttributes([.modificationDate: longAgo], ofItemAtPath: oldFile.path + suffix)
        }
        for file in [aside, stranger] {
            try FileManager.default.setAttributes([.modificationDate: longAgo], ofItemAtPath: file.path)
        }
        try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-29 * 86_400)], ofItemAtPath: recentFile.path)

        let opened = SQLiteCache.open(directory: directory, baseURL: baseURL, now: now)
        #expect(opened.cache != nil)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(!names.contains { $0.hasPrefix(oldFile.lastPathComponent) })
        #expect(names.contains(recentFile.lastPathComponent))
        #expect(names.contains("notes.txt"))
        #expect(names.contains(SQLiteCache.fileName(for: baseURL)))
    }

    @Test func onlyTheAppsOwnNamesCountAsCacheFiles() {
        let name = SQLiteCache.fileName(for: baseURL)
        for own in [name, name + "-wal", name + "-shm", name + ".corrupt-1795000000", "starling-account-x-1f.json"] {
            #expect(CacheFiles.isCacheFile(own), "\(own)")
        }
        for other in ["notes.txt", "photo.sqlite", "a-xyz.sqlite", ".sqlite", "backup.sqlite-wal.old"] {
            #expect(!CacheFiles.isCacheFile(other), "\(other)")
        }
    }
}
