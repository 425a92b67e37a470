import FeedCache
import FeedModel
import Foundation
import StarlingClient

/// The account last opened on a Starling base URL, kept beside the offline cache (no token in
/// it), so that the app can start when Starling cannot be reached: the cache file is chosen by
/// the account, which otherwise only the server could name.
struct LastStarlingAccount {
    struct Record: Codable, Equatable {
        var account: Starling.AccountItem
        /// The header as it was ("Mikael · 60-83-71 12345678 · £9,111.60").
        var header: String
    }

    let fileURL: URL

    init(cacheDirectory: URL, baseURL: URL) {
        let name = SQLiteCache.fileName(for: baseURL).replacingOccurrences(of: ".sqlite", with: "")
        fileURL = cacheDirectory.appendingPathComponent("starling-account-\(name).json")
    }

    func load() -> Record? {
        guard let data = try? Data(contentsOf: fileURL) else { return nil }
        return try? JSONDecoder().decode(Record.self, from: data)
    }

    /// Best effort: without it the app only cannot start offline.
    func save(_ record: Record) {
        guard let data = try? JSONEncoder().encode(record) else { return }
        try? CacheFiles.preparePrivateDirectory(fileURL.deletingLastPathComponent())
        try? data.write(to: fileURL, options: .atomic)
        CacheFiles.makePrivate(fileURL)
    }
}
