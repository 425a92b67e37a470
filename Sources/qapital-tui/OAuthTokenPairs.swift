import FeedModel
import Foundation
import SourceKit

/// Token pairs from `qapital-tui login NAME` (OAuth), kept between runs: one JSON file, mode
/// 0600, in the 0700 directory of the remembered tokens, one pair per origin (scheme, host,
/// port), only ever read back for that origin. Every change (a login, a refresh, which makes
/// the old pair useless) writes the whole file anew and renames it into place.
struct OAuthTokenPairs {
    typealias Pair = OAuthTokenPair

    let fileURL: URL

    /// `oauth-tokens.json` beside the remembered tokens.
    static func defaultFile(environment: [String: String]) -> URL {
        RememberedTokens.defaultFile(environment: environment).deletingLastPathComponent().appendingPathComponent("oauth-tokens.json")
    }

    func pair(for baseURL: URL) -> Pair? {
        read()?[RememberedTokens.origin(of: baseURL)]
    }

    func keep(_ pair: Pair, for baseURL: URL) throws(RememberedTokens.Failure) {
        var pairs = read() ?? [:]
        pairs[RememberedTokens.origin(of: baseURL)] = pair
        try write(pairs)
    }

    func forget(_ baseURL: URL) throws(RememberedTokens.Failure) {
        guard var pairs = read(), pairs.removeValue(forKey: RememberedTokens.origin(of: baseURL)) != nil else { return }
        try write(pairs)
    }

    private func read() -> [String: Pair]? {
        guard let data = RememberedTokens.readPrivately(fileURL) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode([String: Pair].self, from: data)
    }

    private func write(_ pairs: [String: Pair]) throws(RememberedTokens.Failure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
        guard let data = try? encoder.encode(pairs) else { throw RememberedTokens.Failure(message: "cannot write the token file") }
        try RememberedTokens.writePrivately(data, to: fileURL)
    }
}

/// The kept OAuth pair of one run, refreshed one at a time: requests the bank refuses together
/// (401) share one refresh, and a token refused after another request already refreshed gets
/// the new one. Each new pair is written at once (a refresh makes the old pair useless); a
/// refresh the bank refuses drops the pair and ends the sign-in.
actor PairRefresher {
    private(set) var pair: OAuthTokenPairs.Pair
    /// Why the last refresh was refused (not a network failure), if it was.
    private(set) var refusal: APIError?
    private let flow: any OAuthFlow
    private let pairs: OAuthTokenPairs
    private let baseURL: URL
    private var running: Task<Result<OAuthTokenPairs.Pair, APIError>, Never>?
    /// Every access token of this pair's line: a token pasted in the sign-in form meanwhile is
    /// not this refresher's to replace.
    private var lineage: Set<String>

    init(pair: OAuthTokenPairs.Pair, flow: any OAuthFlow, pairs: OAuthTokenPairs, baseURL: URL) {
        self.pair = pair
        lineage = [pair.accessToken]
        self.flow = flow
        self.pairs = pairs
        self.baseURL = baseURL
    }

    /// A fresh access token for `refused`; nil when none can be had.
    func fresh(after refused: String?) async -> String? {
        guard let refused, lineage.contains(refused) else { return nil }
        if refused != pair.accessToken { return pair.accessToken }
        if case .success(let new) = await refreshNow() { return new.accessToken }
        return nil
    }

    func refreshNow() async -> Result<OAuthTokenPairs.Pair, APIError> {
        if let running { return await running.value }
        guard refusal == nil, let token = pair.refreshToken else {
            return .failure(refusal ?? APIError(kind: .unauthorized, request: "POST /oauth2/token", message: "POST /oauth2/token: no refresh token"))
        }
        let flow = self.flow
        let task = Task { () -> Result<OAuthTokenPairs.Pair, APIError> in
            do throws(APIError) {
                return .success(try await flow.refresh(token))
            } catch {
                return .failure(error)
            }
        }
        running = task
        let result = await task.value
        running = nil
        switch result {
        case .success(let new):
            pair = new
            lineage.insert(new.accessToken)
            try? pairs.keep(new, for: baseURL)
        case .failure(let error):
            if !error.isConnectivity {
                refusal = error
                try? pairs.forget(baseURL)
            }
        }
        return result
    }
}
