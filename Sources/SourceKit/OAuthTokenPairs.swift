import FeedModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Token pairs from `qapital-tui login NAME` (OAuth), kept between runs: one JSON file, mode
/// 0600, in the 0700 directory of the remembered tokens, one pair per origin (scheme, host,
/// port), only ever read back for that origin. Every change (a login, a refresh, which makes
/// the old pair useless) writes the whole file anew and renames it into place.
public struct OAuthTokenPairs: Sendable {
    public typealias Pair = OAuthTokenPair

    public let fileURL: URL

    public init(fileURL: URL) { self.fileURL = fileURL }

    /// `oauth-tokens.json` beside the remembered tokens.
    public static func defaultFile(environment: [String: String]) -> URL {
        ConfigFolder.url(environment: environment).appendingPathComponent("oauth-tokens.json")
    }

    public func pair(for baseURL: URL) -> Pair? {
        read()?[PrivateFile.origin(of: baseURL)]
    }

    public func keep(_ pair: Pair, for baseURL: URL) throws(PrivateFile.Failure) {
        var pairs = read() ?? [:]
        pairs[PrivateFile.origin(of: baseURL)] = pair
        try write(pairs)
    }

    /// `keep` under the refreshes' lock (`login`): a refresh another process is making of the
    /// same file is neither lost nor overwritten by this write.
    public func keepLocked(_ pair: Pair, for baseURL: URL) async throws(PrivateFile.Failure) {
        try await whileLocked { Result { () throws(PrivateFile.Failure) in try self.keep(pair, for: baseURL) } }.get()
    }

    /// Whether the file is there, readable, and holds no pair for `baseURL`'s origin (`logout`
    /// took it); false when the file cannot be read (nothing can be said then).
    public func removed(_ baseURL: URL) -> Bool {
        read().map { $0[PrivateFile.origin(of: baseURL)] == nil } ?? false
    }

    public func forget(_ baseURL: URL) throws(PrivateFile.Failure) {
        guard var pairs = read(), pairs.removeValue(forKey: PrivateFile.origin(of: baseURL)) != nil else { return }
        try write(pairs)
    }

    /// `oauth-tokens.lock` beside the file: refreshes of one pair take it, in every process.
    public var lockURL: URL { fileURL.deletingLastPathComponent().appendingPathComponent("oauth-tokens.lock") }

    /// Runs `body` holding an exclusive `flock` of `lockURL`, taken on a thread of its own (a
    /// wait for another process never blocks the cooperative pool). Without a lock file (the
    /// directory cannot be made) `body` runs unlocked.
    public func whileLocked<T: Sendable>(_ body: @Sendable () async -> T) async -> T {
        let directory = lockURL.deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = open(lockURL.path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return await body() }
        defer { close(descriptor) }
        let locked = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread {
                var result: Int32
                repeat { result = flock(descriptor, LOCK_EX) } while result != 0 && errno == EINTR
                continuation.resume(returning: result == 0)
            }.start()
        }
        defer { if locked { flock(descriptor, LOCK_UN) } }
        return await body()
    }

    private func read() -> [String: Pair]? {
        guard let data = PrivateFile.read(fileURL) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode([String: Pair].self, from: data)
    }

    private func write(_ pairs: [String: Pair]) throws(PrivateFile.Failure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
        guard let data = try? encoder.encode(pairs) else { throw PrivateFile.Failure(message: "cannot write the token file") }
        try PrivateFile.write(data, to: fileURL)
    }
}

/// The kept OAuth pair of one run, refreshed one at a time: requests the bank refuses together
/// (401) share one refresh, and a token refused after another request already refreshed gets
/// the new one. Each new pair is written at once (a refresh makes the old pair useless); a
/// refresh the bank refuses ends the sign-in. Other processes (the app and a timer's
/// `roundups --save`) share the pair through the file, under its lock (`refreshNow`).
public actor PairRefresher {
    public private(set) var pair: OAuthTokenPairs.Pair
    /// Why the last refresh was refused (not a network failure), if it was.
    public private(set) var refusal: APIError?
    private let flow: any OAuthFlow
    private let pairs: OAuthTokenPairs
    private let baseURL: URL
    private var running: Task<Result<OAuthTokenPairs.Pair, APIError>, Never>?
    /// Every access token of this pair's line: a token pasted in the sign-in form meanwhile is
    /// not this refresher's to replace.
    private var lineage: Set<String>

    public init(pair: OAuthTokenPairs.Pair, flow: any OAuthFlow, pairs: OAuthTokenPairs, baseURL: URL) {
        self.pair = pair
        lineage = [pair.accessToken]
        self.flow = flow
        self.pairs = pairs
        self.baseURL = baseURL
    }

    /// A fresh access token for `refused`; nil when none can be had. A token not of this line
    /// but the one the file keeps now (a sign-in by `L` in this run) becomes this line's.
    public func fresh(after refused: String?) async -> String? {
        guard let refused else { return nil }
        if !lineage.contains(refused), let kept = pairs.pair(for: baseURL), kept.accessToken == refused {
            pair = kept
            lineage.insert(refused)
        }
        guard lineage.contains(refused) else { return nil }
        if refused != pair.accessToken { return pair.accessToken }
        if case .success(let new) = await refreshNow() { return new.accessToken }
        return nil
    }

    /// Why the last pair the bank issued could not be kept on disk (the next run will have to
    /// sign in again), if it could not.
    public private(set) var keepProblem: String?

    /// Refreshes the pair, one at a time in this run and across processes: under the pairs'
    /// file lock, the pair is read again first, and one another process kept meanwhile is taken
    /// instead of asking the bank (its refresh token is spent). A refusal forgets the pair on
    /// disk only when it is still the one refused, never a newer one. A pair the bank issued
    /// that cannot be written is said on stderr: the bank has spent the old refresh token.
    public func refreshNow() async -> Result<OAuthTokenPairs.Pair, APIError> {
        if let running { return await running.value }
        guard refusal == nil, let token = pair.refreshToken else {
            return .failure(refusal ?? APIError(kind: .unauthorized, request: "POST /oauth2/token", message: "POST /oauth2/token: no refresh token"))
        }
        let (flow, pairs, baseURL, held) = (self.flow, self.pairs, self.baseURL, pair)
        let task = Task { () -> Result<OAuthTokenPairs.Pair, APIError> in
            let outcome = await pairs.whileLocked { () async -> RefreshOutcome in
                // `logout` removed the pair meanwhile: signed out, and no new pair is written.
                if pairs.removed(baseURL) {
                    return .failed(APIError(kind: .unauthorized, request: "POST /oauth2/token",
                                            message: "signed out: the token pair was removed (logout); sign in again"))
                }
                if let kept = pairs.pair(for: baseURL), !kept.sameTokens(as: held) { return .kept(kept) }
                do throws(APIError) {
                    let new = try await flow.refresh(token)
                    do throws(PrivateFile.Failure) {
                        try pairs.keep(new, for: baseURL)
                        return .issued(new, keepProblem: nil)
                    } catch {
                        return .issued(new, keepProblem: error.message)
                    }
                } catch {
                    if !error.isConnectivity, pairs.pair(for: baseURL)?.sameTokens(as: held) ?? false { try? pairs.forget(baseURL) }
                    return .failed(error)
                }
            }
            return self.settle(outcome)
        }
        running = task
        let result = await task.value
        running = nil
        return result
    }

    private enum RefreshOutcome: Sendable {
        /// Another process refreshed first: its pair, from the file.
        case kept(OAuthTokenPairs.Pair)
        case issued(OAuthTokenPairs.Pair, keepProblem: String?)
        case failed(APIError)
    }

    private func settle(_ outcome: RefreshOutcome) -> Result<OAuthTokenPairs.Pair, APIError> {
        switch outcome {
        case .kept(let new), .issued(let new, nil):
            pair = new
            lineage.insert(new.accessToken)
            return .success(new)
        case .issued(let new, let problem?):
            pair = new
            lineage.insert(new.accessToken)
            keepProblem = problem
            StandardStream.error.line("qapital-tui: the bank renewed the sign-in, but it could not be kept (\(problem)): "
                                      + "this run goes on; the next one will need qapital-tui login again")
            return .success(new)
        case .failed(let error):
            if !error.isConnectivity { refusal = error }
            return .failure(error)
        }
    }
}
