import FeedCache
import FeedModel
import Foundation

/// The account last opened on a bank's base URL, kept beside the offline cache (no token in
/// it), so that the app can start when the bank cannot be reached: the cache file is chosen by
/// the account, which otherwise only the bank could name. One file per source and base URL:
/// `<source>-account-<name>.json`. What is kept (`Kept`) is the bank's own, declared in its target.
public struct LastBankAccount<Kept: Codable & Sendable>: Sendable {
    public struct Record: Codable {
        public var account: Kept
        /// The header as it was ("Mikael · 60-83-71 12345678 · £9,111.60").
        public var header: String

        public init(account: Kept, header: String) {
            self.account = account
            self.header = header
        }
    }

    public let fileURL: URL

    public init(source: String, cacheDirectory: URL, baseURL: URL) {
        let name = SQLiteCache.fileName(for: baseURL).replacingOccurrences(of: ".sqlite", with: "")
        fileURL = cacheDirectory.appendingPathComponent("\(source)-account-\(name).json")
    }

    public func load() -> Record? {
        guard let data = try? Data(contentsOf: fileURL) else { return nil }
        return try? JSONDecoder().decode(Record.self, from: data)
    }

    /// Best effort: without it the app only cannot start offline.
    public func save(_ record: Record) {
        guard let data = try? JSONEncoder().encode(record) else { return }
        try? CacheFiles.preparePrivateDirectory(fileURL.deletingLastPathComponent())
        try? data.write(to: fileURL, options: .atomic)
        CacheFiles.makePrivate(fileURL)
    }
}
