import Foundation
import TermUI

/// Pictures by URL for screens that draw synchronously: `image(for:columns:rows:)` answers at
/// once with what is cached (or nil) and never fetches; `want(_:)` fetches, and `arrived`
/// (given at init: the app posts it into its event stream) says when one came.
///
/// - Each URL is fetched once at a time: concurrent asks share one request.
/// - Decoding and scaling run off the main actor; what is kept is the picture shrunk to at
///   most `sourceSide` pixels plus the cells of each size drawn, so any size is cheap later.
/// - An LRU bounded in bytes holds them (failures too, so a broken image is not fetched on
///   every frame); the newest entry is always kept.
/// - Frames: after drawing, the app hands `want(_:)` the URLs the screens show; it fetches the
///   missing ones and cancels fetches no longer shown (the row scrolled away).
/// - Disk caching (the offline cache) belongs in `loader`: it sees every fetch.
@MainActor
public final class ImageStore {
    public typealias Loader = @Sendable (URL) async throws -> Data

    /// Told on the main actor when a fetch for the URL finished (picture or failure).
    private let arrived: @MainActor (URL) -> Void
    public let byteLimit: Int
    public let sourceSide: Int
    /// URL schemes handed to the loader; any other URL is a monogram at once.
    public let schemes: Set<String>
    /// The terminal's cell in pixels where it draws pictures itself (kitty, sixel): each size
    /// drawn is also made at that resolution. nil: half blocks only.
    public let cellPixels: PixelSize?
    private let loader: Loader

    private final class Decoded {
        let source: RGBAImage
        var cells: [Size: HalfBlockImage] = [:]
        init(source: RGBAImage) { self.source = source }
        var byteCount: Int { source.byteCount + cells.values.reduce(0) { $0 + $1.byteCount } + 128 }
    }

    private struct Size: Hashable { let columns: Int, rows: Int }

    /// The longest side kept where the terminal draws pictures: a 16 × 8 summary picture is
    /// about 160 pixels wide on a usual font.
    public static let pictureSourceSide = 256

    private enum Entry {
        case pending(id: Int, task: Task<Void, Never>)
        case ready(Decoded)
        case failed
    }

    private var entries: [URL: Entry] = [:]
    private var lastUse: [URL: Int] = [:]
    private var clock = 0
    private var nextFetchId = 0
    public private(set) var totalBytes = 0
    /// Fetches started so far (for tests: coalescing means one per URL).
    public private(set) var fetchCount = 0
    /// Fetches cancelled because no frame asked for them any more.
    public private(set) var cancelCount = 0

    /// `schemes`: http and https by default; the in-process demo adds its own `demo:`.
    /// `sourceSide`: the longest side kept of each picture (64, or `pictureSourceSide` where the
    /// terminal draws pictures: thumbnails at their real resolution).
    /// The LRU's bound where the caller gives none: 8 MB.
    public static let defaultByteLimit = 8 * 1024 * 1024

    public init(byteLimit: Int = ImageStore.defaultByteLimit, sourceSide: Int? = nil, schemes: Set<String> = ["http", "https"],
                cellPixels: PixelSize? = nil, arrived: @escaping @MainActor (URL) -> Void = { _ in }, loader: @escaping Loader) {
        self.arrived = arrived
        self.byteLimit = byteLimit
        self.cellPixels = cellPixels
        self.sourceSide = sourceSide ?? (cellPixels == nil ? 64 : Self.pictureSourceSide)
        self.schemes = schemes
        self.loader = loader
    }

    /// Whether `url` goes to the loader: a scheme in `schemes`, and for http(s) a host.
    public func isFetchable(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), schemes.contains(scheme) else { return false }
        if scheme == "http" || scheme == "https" { return !(url.host ?? "").isEmpty }
        return true
    }

    /// The picture as `columns × rows` half-block cells, or nil while loading, after a failure,
    /// or without a URL. Only reads: nothing is fetched, nothing is dropped and the order of use
    /// stays (`want`, after the frame, marks what it showed as used). The cells of a size are
    /// kept with the picture once made, a memo that gives the same answer either way.
    public func image(for url: URL?, columns: Int, rows: Int) -> HalfBlockImage? {
        guard let url, columns > 0, rows > 0, case .ready(let decoded) = entries[url] else { return nil }
        let size = Size(columns: columns, rows: rows)
        if let cells = decoded.cells[size] { return cells }
        // A few hundred source pixels: cheap enough to do while drawing, once per size.
        let cells = HalfBlockImage(decoded.source, columns: columns, rows: rows, cellPixels: cellPixels)
        decoded.cells[size] = cells
        totalBytes += cells.byteCount
        return cells
    }

    /// The order in which pictures were last used, oldest first (what eviction follows).
    public var useOrder: [URL] { lastUse.sorted { $0.value < $1.value }.map(\.key) }

    /// The picture's width over its height as decoded, once it has arrived (nil while loading,
    /// after a failure, or without a URL). Only reads.
    public func aspectRatio(for url: URL?) -> Double? {
        guard let url, case .ready(let decoded) = entries[url] else { return nil }
        return Double(decoded.source.width) / Double(decoded.source.height)
    }

    /// Whether the URL has failed (or cannot be fetched): the caller shows its monogram for good.
    public func hasFailed(_ url: URL) -> Bool {
        if case .failed = entries[url] { return true }
        return false
    }

    public var isBusy: Bool { pendingCount > 0 }

    public var pendingCount: Int {
        entries.values.reduce(0) { count, entry in
            if case .pending = entry { return count + 1 }
            return count
        }
    }

    /// Fetches `url` unless it is known or on its way (concurrent asks share one fetch).
    public func request(_ url: URL) {
        if entries[url] == nil { fetch(url) }
    }

    /// The pictures a frame shows: fetches those not known yet and cancels the fetches of
    /// pictures no longer shown.
    public func want(_ urls: Set<URL>) {
        for (url, entry) in entries {
            guard case .pending(_, let task) = entry, !urls.contains(url) else { continue }
            task.cancel()
            entries[url] = nil
            cancelCount += 1
        }
        // Shown pictures are the most recently used (in a fixed order, so runs evict alike);
        // then what the frame's new sizes added is trimmed to the limit.
        for url in urls.sorted(by: { $0.absoluteString < $1.absoluteString }) {
            switch entries[url] {
            case .ready, .failed: touch(url)
            case .pending, nil: request(url)
            }
        }
        if let newest = useOrder.last { evict(keeping: newest) }
    }

    /// Forgets everything (a refresh): fetches in flight are cancelled.
    public func reset() {
        for entry in entries.values { if case .pending(_, let task) = entry { task.cancel() } }
        entries = [:]
        lastUse = [:]
        totalBytes = 0
    }

    // MARK: - Fetching

    private func fetch(_ url: URL) {
        guard isFetchable(url) else {
            store(.failed, for: url)
            return
        }
        nextFetchId += 1
        fetchCount += 1
        let id = nextFetchId
        let loader = self.loader
        let side = sourceSide
        let task = Task { [weak self] in
            var source: RGBAImage?
            if let data = try? await loader(url), !Task.isCancelled {
                source = await ImageStore.decode(data, side: side)
            }
            self?.finish(url, id: id, source: source)
        }
        entries[url] = .pending(id: id, task: task)
    }

    /// Off the main actor: decode, then shrink to what thumbnails need.
    @concurrent
    nonisolated static func decode(_ data: Data, side: Int) async -> RGBAImage? {
        guard data.count <= ImageDecoder.maxBytes else { return nil }
        return ImageDecoder.decode(data, atLeast: (side, side))?.limited(toMaxSide: side)
    }

    private func finish(_ url: URL, id: Int, source: RGBAImage?) {
        // A fetch cancelled (or reset) and asked for again has a newer id: this answer is stale.
        guard case .pending(let current, _) = entries[url], current == id else { return }
        store(source.map { .ready(Decoded(source: $0)) } ?? .failed, for: url)
        arrived(url)
    }

    // MARK: - The LRU

    private func cost(_ entry: Entry) -> Int {
        switch entry {
        case .ready(let decoded): decoded.byteCount
        case .failed: 64
        case .pending: 0
        }
    }

    private func store(_ entry: Entry, for url: URL) {
        if let old = entries[url] { totalBytes -= cost(old) }
        entries[url] = entry
        totalBytes += cost(entry)
        touch(url)
        evict(keeping: url)
    }

    private func touch(_ url: URL) {
        clock += 1
        lastUse[url] = clock
    }

    /// Drops the least recently used finished entries until the total is within the limit.
    private func evict(keeping kept: URL) {
        while totalBytes > byteLimit {
            var oldest: (url: URL, use: Int)?
            for (url, entry) in entries where url != kept {
                if case .pending = entry { continue }
                let use = lastUse[url] ?? 0
                if oldest == nil || use < oldest!.use { oldest = (url, use) }
            }
            guard let victim = oldest?.url, let entry = entries[victim] else { return }
            totalBytes -= cost(entry)
            entries[victim] = nil
            lastUse[victim] = nil
        }
    }
}
