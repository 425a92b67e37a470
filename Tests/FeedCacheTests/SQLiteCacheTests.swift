@testable import DemoData
import FeedModel
import Foundation
import GRDB
import QapitalApp
import Synchronization
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
            }
            try pool.close()
        }
        let cache = try openCache(directory)
        #expect(await cache.rules()?.value.map(\.kind) == [.guiltyPleasure])
        let pool = try DatabasePool(path: file.path)
        let applied = try await pool.read { try SQLiteCache.migrator.appliedMigrations($0) }
        #expect(applied == ["v1", "v2: activity index"])
        #expect(try await pool.read { try $0.indexes(on: "activity").map(\.name) } == ["activity_by_time"])
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
