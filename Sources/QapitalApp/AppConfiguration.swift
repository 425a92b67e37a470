import FeedModel
import Foundation

extension AppCore {
    public struct Configuration {
        public var sourceName: String
        public var colors: Bool
        public var timeZone: TimeZone = .current
        /// The account's currency: goals are in it, and only round-ups in it can be saved.
        public var currency: Currency = .usd
        /// How long an error stays in the status bar.
        public var errorLifetime: TimeInterval = 6
        /// Goal images and avatars (off with `--no-images`; never without colours).
        public var images: Bool = true
        /// The URL schemes whose pictures are fetched (the demo adds its own in-process one).
        public var pictureSchemes: Set<String> = ["http", "https"]

        public init(sourceName: String, colors: Bool, timeZone: TimeZone = .current, currency: Currency = .usd,
                    errorLifetime: TimeInterval = 6, images: Bool = true, pictureSchemes: Set<String> = ["http", "https"]) {
            self.sourceName = sourceName
            self.colors = colors
            self.timeZone = timeZone
            self.currency = currency
            self.errorLifetime = errorLifetime
            self.images = images
            self.pictureSchemes = pictureSchemes
        }
    }

    /// What the data source can do besides the `SavingsAPI`, handed in by the command that built it.
    public struct Capabilities: Sendable {
        /// The offline cache behind the API: shown first while the server is asked.
        public var cache: (any OfflineCache)?
        /// Whether the server is reachable (the status bar says offline; the app retries).
        public var connectivity: Connectivity?
        /// `r` on the activity feed: fetch again what the cache would answer.
        public var refreshCache: (@Sendable () -> Void)?
        /// Notes about records the source's answers held but it could not read (for the status bar).
        public var skippedRecords: SkippedRecords?

        public init(cache: (any OfflineCache)? = nil, connectivity: Connectivity? = nil, refreshCache: (@Sendable () -> Void)? = nil,
                    skippedRecords: SkippedRecords? = nil) {
            self.cache = cache
            self.connectivity = connectivity
            self.refreshCache = refreshCache
            self.skippedRecords = skippedRecords
        }
    }
}
