import FeedModel
import Foundation
import SourceKit
import Testing
import TestSupport
@testable import qapital_tui
#if canImport(Glibc)
import Glibc
#endif

/// Issue 37.3: two processes (here two refreshers, each with its own open file, as two
/// processes have) whose access token expired refresh one pair kept on disk. The bank accepts a
/// refresh token once; before, the second refresh was refused and deleted the pair the first
/// had just written, signing both out.
@Suite struct SharedRefreshTests {
    /// A bank that rotates refresh tokens: each is accepted once.
    final class RotatingBank: OAuthFlow, @unchecked Sendable {
        private let lock = NSLock()
        private var valid: Set<String> = ["r0"]
        private var issued = 0
        var refreshes: Int { lock.withLock { issued } }

        func authorizationURL(redirectURI: String, state: String) async throws(APIError) -> URL { URL(string: "https://bank.example/auth")! }
        func exchange(code: String, redirectURI: String) async throws(APIError) -> OAuthTokenPairs.Pair {
            throw APIError(kind: .rejected, request: "POST /oauth2/token", message: "no")
        }
        func refresh(_ refreshToken: String) async throws(APIError) -> OAuthTokenPairs.Pair {
            let next: Int? = lock.withLock {
                guard valid.remove(refreshToken) != nil else { return nil }
                issued += 1
                valid.insert("r\(issued)")
                return issued
            }
            guard let next else {
                throw APIError(kind: .unauthorized, request: "POST /oauth2/token", message: "POST /oauth2/token: HTTP 401", status: 401)
            }
            return .init(accessToken: "a\(next)", refreshToken: "r\(next)", expiresAt: Date(timeIntervalSinceNow: 3_600))
        }
    }

    static let base = URL(string: "https://api.bank.example")!

    static func pairs() throws -> OAuthTokenPairs {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shared-refresh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return OAuthTokenPairs(fileURL: directory.appendingPathComponent("oauth-tokens.json"))
    }

    @Test func theSecondRefreshTakesTheFirstOnesPair() async throws {
        let pairs = try Self.pairs()
        defer { try? FileManager.default.removeItem(at: pairs.fileURL.deletingLastPathComponent()) }
        let expired = OAuthTokenPairs.Pair(accessToken: "a0", refreshToken: "r0", expiresAt: Date(timeIntervalSinceNow: -60))
        try pairs.keep(expired, for: Self.base)
        let bank = RotatingBank()
        let tui = PairRefresher(pair: expired, flow: bank, pairs: pairs, baseURL: Self.base)
        let cron = PairRefresher(pair: expired, flow: bank, pairs: pairs, baseURL: Self.base)

        guard case .success(let first) = await tui.refreshNow() else {
            Issue.record("the first refresh failed")
            return
        }
        // The second started with the same (now used) refresh token: it reads the pair again
        // under the lock and takes the new one, without asking the bank.
        guard case .success(let second) = await cron.refreshNow() else {
            Issue.record("the second refresh signed out: \(String(describing: pairs.pair(for: Self.base)))")
            return
        }
        #expect(second.sameTokens(as: first))
        #expect(bank.refreshes == 1)
        #expect(pairs.pair(for: Self.base)?.sameTokens(as: first) == true)
        #expect(await cron.fresh(after: "a0") == first.accessToken)
    }

    /// `login` keeps its new pair under the lock refreshes take: while another holds it, the
    /// write waits (Linux lists it as a waiter in /proc/locks), and it lands after. The waiter is
    /// looked for until it shows (the time limit ends a wait for one that never does): a 10 s
    /// deadline was missed with both cores busy.
    @Test(.timeLimit(.minutes(1))) func loginKeepsItsPairUnderTheRefreshLock() async throws {
        let pairs = try Self.pairs()
        defer { try? FileManager.default.removeItem(at: pairs.fileURL.deletingLastPathComponent()) }
        let old = OAuthTokenPairs.Pair(accessToken: "a0", refreshToken: "r0", expiresAt: Date(timeIntervalSinceNow: 3_600))
        let new = OAuthTokenPairs.Pair(accessToken: "a9", refreshToken: "r9", expiresAt: Date(timeIntervalSinceNow: 3_600))
        try pairs.keep(old, for: Self.base)
        let login = Locked<Task<Void, any Error>?>(nil)
        let waited = await pairs.whileLocked { () async -> Bool in
            login.withLock { $0 = Task { try await pairs.keepLocked(new, for: Self.base) } }
            var info = stat()
            guard stat(pairs.lockURL.path, &info) == 0 else { return false }
            let inode = ":\(info.st_ino) "
            while !Task.isCancelled {
                let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
                if locks.split(separator: "\n").contains(where: { $0.contains("->") && $0.contains(inode) }) { return true }
                await Task.yield()
            }
            return false
        }
        #expect(waited, "login's write did not wait for the lock")
        try await login.withLock { $0 }?.value
        #expect(pairs.pair(for: Self.base)?.sameTokens(as: new) == true)
    }

    @Test func twoRefreshesAtOnceShareOneAndKeepThePair() async throws {
        for _ in 0..<20 {
            let pairs = try Self.pairs()
            defer { try? FileManager.default.removeItem(at: pairs.fileURL.deletingLastPathComponent()) }
            let expired = OAuthTokenPairs.Pair(accessToken: "a0", refreshToken: "r0", expiresAt: Date(timeIntervalSinceNow: -60))
            try pairs.keep(expired, for: Self.base)
            let bank = RotatingBank()
            let one = PairRefresher(pair: expired, flow: bank, pairs: pairs, baseURL: Self.base)
            let two = PairRefresher(pair: expired, flow: bank, pairs: pairs, baseURL: Self.base)
            async let a = one.refreshNow()
            async let b = two.refreshNow()
            let (left, right) = await (a, b)
            guard case .success(let x) = left, case .success(let y) = right else {
                Issue.record("a refresh signed out: \(left) \(right)")
                return
            }
            #expect(x.sameTokens(as: y) && bank.refreshes == 1)
            #expect(pairs.pair(for: Self.base)?.sameTokens(as: x) == true)
        }
    }

    @Test func aRefusedRefreshNeverDeletesANewerPair() async throws {
        let pairs = try Self.pairs()
        defer { try? FileManager.default.removeItem(at: pairs.fileURL.deletingLastPathComponent()) }
        // This run holds a pair whose refresh token the bank no longer takes; the file holds a
        // newer one (a login since): the refusal leaves it.
        let old = OAuthTokenPairs.Pair(accessToken: "old", refreshToken: "gone", expiresAt: Date(timeIntervalSinceNow: -60))
        let newer = OAuthTokenPairs.Pair(accessToken: "a9", refreshToken: "r0", expiresAt: Date(timeIntervalSinceNow: 3_600))
        try pairs.keep(newer, for: Self.base)
        let refresher = PairRefresher(pair: old, flow: RotatingBank(), pairs: pairs, baseURL: Self.base)
        _ = await refresher.refreshNow()
        #expect(pairs.pair(for: Self.base)?.sameTokens(as: newer) == true)
        // The same refused pair on disk is forgotten.
        try pairs.keep(old, for: Self.base)
        let stale = PairRefresher(pair: old, flow: RotatingBank(), pairs: pairs, baseURL: Self.base)
        guard case .failure = await stale.refreshNow() else {
            Issue.record("a refused refresh succeeded")
            return
        }
        #expect(pairs.pair(for: Self.base) == nil)
    }
}

extension SharedRefreshTests {
    /// A pair the bank issued that cannot be written is said (the bank spent the old refresh
    /// token): the run goes on with it, and the refresher keeps why.
    @Test func anIssuedPairThatCannotBeKeptIsSaid() async throws {
        let pairs = try Self.pairs()
        let directory = pairs.fileURL.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Where the token file should be, a directory with something in it: no file can be
        // renamed over it (not even by root).
        try FileManager.default.createDirectory(at: pairs.fileURL, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: pairs.fileURL.appendingPathComponent("in-the-way"))
        let expired = OAuthTokenPairs.Pair(accessToken: "a0", refreshToken: "r0", expiresAt: Date(timeIntervalSinceNow: -60))
        let refresher = PairRefresher(pair: expired, flow: RotatingBank(), pairs: pairs, baseURL: Self.base)
        guard case .success(let new) = await refresher.refreshNow() else {
            Issue.record("the refresh failed")
            return
        }
        #expect(new.accessToken == "a1")
        #expect(await refresher.keepProblem != nil)
        #expect(await refresher.pair.accessToken == "a1")
    }

    /// A token signed in by `L` in this run (kept in the file, not of the refresher's line): a
    /// 401 on it refreshes the kept pair, which becomes the line's; a pasted token is not taken.
    @Test func aPairSignedInMeanwhileIsRefreshedToo() async throws {
        let pairs = try Self.pairs()
        defer { try? FileManager.default.removeItem(at: pairs.fileURL.deletingLastPathComponent()) }
        let started = OAuthTokenPairs.Pair(accessToken: "a-start", refreshToken: "r-start", expiresAt: Date(timeIntervalSinceNow: 3_600))
        try pairs.keep(started, for: Self.base)
        let bank = RotatingBank()
        let refresher = PairRefresher(pair: started, flow: bank, pairs: pairs, baseURL: Self.base)
        #expect(await refresher.fresh(after: "pasted-elsewhere") == nil)
        let signedIn = OAuthTokenPairs.Pair(accessToken: "a-l", refreshToken: "r0", expiresAt: Date(timeIntervalSinceNow: 3_600))
        try pairs.keep(signedIn, for: Self.base)
        #expect(await refresher.fresh(after: "a-l") == "a1")
        #expect(bank.refreshes == 1)
        #expect(pairs.pair(for: Self.base)?.accessToken == "a1")
    }

    /// `logout` while the app runs: the next refresh finds no pair, asks the bank nothing and
    /// writes nothing back (the sign-out holds).
    @Test func aRefreshAfterLogoutWritesNoPair() async throws {
        let pairs = try Self.pairs()
        defer { try? FileManager.default.removeItem(at: pairs.fileURL.deletingLastPathComponent()) }
        let expired = OAuthTokenPairs.Pair(accessToken: "a0", refreshToken: "r0", expiresAt: Date(timeIntervalSinceNow: -60))
        try pairs.keep(expired, for: Self.base)
        let bank = RotatingBank()
        let refresher = PairRefresher(pair: expired, flow: bank, pairs: pairs, baseURL: Self.base)
        try pairs.forget(Self.base)
        guard case .failure(let error) = await refresher.refreshNow() else {
            Issue.record("a refresh after logout succeeded")
            return
        }
        #expect(error.message.hasPrefix("signed out: the token pair was removed"))
        #expect(bank.refreshes == 0)
        #expect(pairs.pair(for: Self.base) == nil)
    }
}
