@testable import DemoData
import FeedModel
import Foundation
import Testing
@testable import TermImage
import TermUI

/// A loader the test controls: it counts calls, holds every fetch until released, and tells
/// how each one ended (cancelled or not). No sleeps: everything is awaited.
actor ScriptedLoader {
    private var released = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private(set) var calls: [URL] = []
    private(set) var cancelled: [URL] = []
    private var ended: [CheckedContinuation<Void, Never>] = []
    private var endedCount = 0
    let body: @Sendable (URL) -> Data

    init(held: Bool = true, body: @escaping @Sendable (URL) -> Data = { _ in DemoImages.goalPNG(id: 1) }) {
        released = !held
        self.body = body
    }

    func load(_ url: URL) async throws -> Data {
        calls.append(url)
        if !released { await withCheckedContinuation { waiters.append($0) } }
        defer { finished() }
        if Task.isCancelled {
            cancelled.append(url)
            throw CancellationError()
        }
        return body(url)
    }

    func release() {
        released = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }

    private func finished() {
        endedCount += 1
        for waiter in ended { waiter.resume() }
        ended = []
    }

    /// Waits until `count` loads have ended.
    func waitForEnds(_ count: Int) async {
        while endedCount < count { await withCheckedContinuation { ended.append($0) } }
    }

    /// Waits until `count` loads have started.
    func waitForCalls(_ count: Int) async {
        while calls.count < count { await Task.yield() }
    }
}

@MainActor
@Suite struct ImageStoreTests {
    static func url(_ n: Int) -> URL { URL(string: "http://images.example/\(n).png")! }

    /// A store whose arrivals feed a stream, so a test can await them.
    static func store(_ loader: ScriptedLoader, byteLimit: Int = 1 << 20) -> (ImageStore, AsyncStream<URL>) {
        let (arrivals, continuation) = AsyncStream<URL>.makeStream()
        let store = ImageStore(byteLimit: byteLimit, sourceSide: 16, arrived: { continuation.yield($0) }) { try await loader.load($0) }
        return (store, arrivals)
    }

    @Test func concurrentAsksForOneURLShareOneFetch() async {
        let loader = ScriptedLoader()
        let (store, arrivals) = ImageStoreTests.store(loader)
        for _ in 0..<10 {
            store.request(ImageStoreTests.url(1))
            #expect(store.image(for: ImageStoreTests.url(1), columns: 4, rows: 1) == nil)
        }
        #expect(store.fetchCount == 1 && store.pendingCount == 1 && store.isBusy)
        await loader.waitForCalls(1)
        await loader.release()
        var iterator = arrivals.makeAsyncIterator()
        #expect(await iterator.next() == ImageStoreTests.url(1))
        #expect(await loader.calls.count == 1)
        #expect(!store.isBusy)
        let cells = store.image(for: ImageStoreTests.url(1), columns: 4, rows: 1)
        #expect(cells?.columns == 4 && cells?.rows == 1)
        // Another size of the same picture needs no fetch.
        #expect(store.image(for: ImageStoreTests.url(1), columns: 16, rows: 8)?.pixels.count == 16 * 16)
        #expect(store.fetchCount == 1)
    }

    @Test func onlyHTTPAndHTTPSAreFetched() async {
        let loader = ScriptedLoader(held: false)
        let (store, _) = ImageStoreTests.store(loader)
        for text in ["ftp://example.com/a.png", "file:///etc/passwd", "javascript:alert(1)", "data:image/png;base64,AAAA", "http:///nohost.png"] {
            let url = URL(string: text)!
            store.request(url)
            #expect(store.image(for: url, columns: 4, rows: 1) == nil)
            #expect(store.hasFailed(url), "\(text)")
        }
        #expect(store.image(for: nil, columns: 4, rows: 1) == nil)
        #expect(store.fetchCount == 0 && !store.isBusy)
    }

    @Test func aBrokenBodyIsRememberedAsAFailure() async {
        let loader = ScriptedLoader(held: false) { _ in Data("<html>not found</html>".utf8) }
        let (store, arrivals) = ImageStoreTests.store(loader)
        store.request(ImageStoreTests.url(1))
        var iterator = arrivals.makeAsyncIterator()
        _ = await iterator.next()
        #expect(store.hasFailed(ImageStoreTests.url(1)))
        #expect(store.image(for: ImageStoreTests.url(1), columns: 4, rows: 1) == nil)
        #expect(store.fetchCount == 1)
    }

    @Test func aFetchNoFrameAsksForAnyMoreIsCancelled() async {
        let loader = ScriptedLoader()
        let (store, _) = ImageStoreTests.store(loader)
        store.want([ImageStoreTests.url(1), ImageStoreTests.url(2)])
        #expect(store.pendingCount == 2)
        await loader.waitForCalls(2)
        // The row of picture 1 scrolled away: the next frame asks for picture 2 only.
        store.want([ImageStoreTests.url(2)])
        #expect(store.cancelCount == 1 && store.pendingCount == 1)
        await loader.release()
        await loader.waitForEnds(2)
        #expect(await loader.cancelled == [ImageStoreTests.url(1)])
        // Picture 2 arrives; picture 1 left nothing behind and is fetched afresh when asked again.
        while store.isBusy { await Task.yield() }
        #expect(store.image(for: ImageStoreTests.url(2), columns: 4, rows: 1) != nil)
        #expect(!store.hasFailed(ImageStoreTests.url(1)))
        #expect(store.image(for: ImageStoreTests.url(1), columns: 4, rows: 1) == nil)
        store.request(ImageStoreTests.url(1))
        #expect(store.fetchCount == 3)
    }

    @Test func theCacheStaysWithinItsByteLimitDroppingTheLeastRecentlyUsed() async {
        let loader = ScriptedLoader(held: false)
        // One entry: a 16×16 source (1 KB) plus a 4×1 strip; the limit holds three.
        let (probe, probeArrivals) = ImageStoreTests.store(loader)
        probe.request(ImageStoreTests.url(0))
        var probeIterator = probeArrivals.makeAsyncIterator()
        _ = await probeIterator.next()
        _ = probe.image(for: ImageStoreTests.url(0), columns: 4, rows: 1)
        let entry = probe.totalBytes
        #expect(entry > 1024 && entry < 2048)

        let (store, arrivals) = ImageStoreTests.store(loader, byteLimit: entry * 3 + entry / 2)
        var iterator = arrivals.makeAsyncIterator()
        for n in 1...3 {
            store.request(ImageStoreTests.url(n))
            _ = await iterator.next()
            #expect(store.image(for: ImageStoreTests.url(n), columns: 4, rows: 1) != nil)
        }
        #expect(store.totalBytes == entry * 3)
        // Drawing reads only: the order of use stays as it was.
        let order = store.useOrder
        #expect(store.image(for: ImageStoreTests.url(1), columns: 4, rows: 1) != nil)
        #expect(store.useOrder == order)
        // A frame showed picture 1 again, so 2 is now the least recently used and goes for picture 4.
        store.want([ImageStoreTests.url(1)])
        #expect(store.useOrder.last == ImageStoreTests.url(1))
        store.request(ImageStoreTests.url(4))
        _ = await iterator.next()
        #expect(store.image(for: ImageStoreTests.url(4), columns: 4, rows: 1) != nil)
        #expect(store.totalBytes <= store.byteLimit)
        #expect(store.image(for: ImageStoreTests.url(1), columns: 4, rows: 1) != nil)
        #expect(store.image(for: ImageStoreTests.url(3), columns: 4, rows: 1) != nil)
        #expect(store.fetchCount == 4)
        #expect(store.image(for: ImageStoreTests.url(2), columns: 4, rows: 1) == nil)
        store.request(ImageStoreTests.url(2))
        #expect(store.fetchCount == 5, "an evicted picture is fetched again")
    }
}

/// Where the terminal draws pictures itself, each size is also made at the cell's pixel size.
@MainActor
@Suite struct TerminalPictureStoreTests {
    @Test func eachSizeCarriesAPictureAtTheCellsResolution() async throws {
        // Left half red, right half blue, half transparent at the bottom.
        let png = TestImages.png(width: 300, height: 300) { x, y in x < 150 ? (255, 0, 0, y < 150 ? 255 : 0) : (0, 0, 255, 255) }
        let (arrivals, continuation) = AsyncStream<URL>.makeStream()
        let store = ImageStore(cellPixels: PixelSize(width: 10, height: 20), arrived: { continuation.yield($0) }) { _ in png }
        #expect(store.sourceSide == ImageStore.pictureSourceSide)
        let url = URL(string: "http://images.example/p.png")!
        store.request(url)
        var iterator = arrivals.makeAsyncIterator()
        _ = await iterator.next()
        let cells = try #require(store.image(for: url, columns: 4, rows: 2))
        let picture = try #require(cells.picture)
        #expect(picture.width == 40 && picture.height == 40)
        #expect(picture.pixel(x: 0, y: 0) == (255, 0, 0))
        #expect(picture.pixel(x: 39, y: 39) == (0, 0, 255))
        // Transparent pixels lie on the backdrop, as the half blocks' do.
        let backdrop = HalfBlockImage.defaultBackdrop
        #expect(picture.pixel(x: 0, y: 39) == (backdrop.r, backdrop.g, backdrop.b))
        // The same size again is the same picture (kitty keeps it by its id).
        #expect(store.image(for: url, columns: 4, rows: 2)?.picture === picture)
        // Without a cell size: half blocks only, the source kept small.
        let plain = ImageStore { _ in png }
        #expect(plain.sourceSide == 64)
    }

    /// The aspect ratio of the picture as decoded (the goal detail sizes its large photo by it):
    /// nil until it arrives; kept within `sourceSide` without changing shape.
    @Test func theAspectRatioIsThePicturesOnceItArrived() async throws {
        let png = TestImages.png(width: 600, height: 400) { _, _ in (10, 20, 30, 255) }
        let (arrivals, continuation) = AsyncStream<URL>.makeStream()
        let store = ImageStore(sourceSide: 360, cellPixels: PixelSize(width: 10, height: 20), arrived: { continuation.yield($0) }) { _ in png }
        let url = URL(string: "http://images.example/wide.png")!
        #expect(store.aspectRatio(for: url) == nil && store.aspectRatio(for: nil) == nil)
        store.request(url)
        #expect(store.aspectRatio(for: url) == nil)
        var iterator = arrivals.makeAsyncIterator()
        _ = await iterator.next()
        #expect(store.aspectRatio(for: url) == 1.5)
        // The large photo of a 3:2 picture, 36 × 12 cells, is made from the 360 × 240 kept.
        let picture = try #require(store.image(for: url, columns: 36, rows: 12)?.picture)
        #expect(picture.width == 360 && picture.height == 240)
    }

    @Test func drawingPlacesThePictureOnlyWhenItIsWhole() throws {
        let image = TestImages.image(width: 8, height: 8) { _, _ in (10, 200, 30, 255) }
        let cells = HalfBlockImage(image, columns: 4, rows: 2, cellPixels: PixelSize(width: 10, height: 20))
        var buffer = CellBuffer(width: 10, height: 5)
        cells.draw(into: &buffer, x: 1, y: 1)
        #expect(buffer.visiblePictures.map(\.rect) == [Rect(x: 1, y: 1, width: 4, height: 2)])
        buffer.clear()
        cells.draw(into: &buffer, x: 1, y: 1, clip: Rect(x: 0, y: 0, width: 10, height: 2))
        #expect(buffer.pictures.isEmpty)
        #expect(buffer[1, 1].scalar == "▀")
    }
}
