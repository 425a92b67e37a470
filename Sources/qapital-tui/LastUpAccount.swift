import FeedCache
import FeedModel
import Foundation
import UpClient

/// The spending account last opened on an Up base URL, kept beside the offline cache (no token
/// in it), so that the app can start when Up cannot be reached: the cache file is chosen by the
/// account, which otherwise only Up could name. (As `LastStarlingAccount` does for Starling.)
struct LastUpAccount {
    struct Record: Codable, Equatable {
        var spending: Up.AccountResource
        /// The savers' and other accounts' names by id ("Saved into Holiday" offline too).
        var accounts: [Up.AccountResource]
        /// The header as it was ("2Up Spending (joint) · A$1,234.56").
        var header: String
    }

    let fileURL: URL

    init(cacheDirectory: URL, baseURL: URL) {
        let name = SQLiteCache.fileName(for: baseURL).replacingOccurrences(of: ".sqlite", with: "")
        fileURL = cacheDirectory.appendingPathComponent("up-account-\(name).json")
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
