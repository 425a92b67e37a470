import FeedModel

/// The one stream of events and how many are posted but not yet handled.
@MainActor
final class EventQueue {
    let stream: AsyncStream<AppCore.Event>
    private let continuation: AsyncStream<AppCore.Event>.Continuation
    var pending = 0

    init() {
        (stream, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    func post(_ event: AppCore.Event) {
        pending += 1
        continuation.yield(event)
    }

    /// Where the stores post: into the same stream.
    nonisolated var sink: EventSink<AppCore.Event> {
        EventSink { [weak self] event in self?.post(event) }
    }
}
