import FeedModel
import Foundation

/// The wait helper of the tests: hand `sink` to stores, then `wait(until:)` reads their events
/// until a condition holds or the deadline passes. Nothing sleeps; the deadline only ends a
/// wait that would otherwise hang.
@MainActor
public final class EventProbe<Event: Sendable> {
    private enum Wake: Sendable {
        case event(Event)
        case deadline(Int)
    }

    /// Every event sent so far, oldest first (kept as it is sent, so a wait that returns at
    /// once, its condition already true, leaves none out).
    public var received: [Event] { log.withLock { $0 } }
    private let log = Locked<[Event]>([])
    private let stream: AsyncStream<Wake>
    private let continuation: AsyncStream<Wake>.Continuation
    private var waits = 0

    public init() {
        (stream, continuation) = AsyncStream<Wake>.makeStream()
    }

    /// Where stores post their events.
    public var sink: EventSink<Event> {
        let continuation = self.continuation
        let log = self.log
        return EventSink { event in
            log.withLock { $0.append(event) }
            continuation.yield(.event(event))
        }
    }

    /// Waits until `condition` holds (checked now and after each event); false at the deadline.
    @discardableResult
    public func wait(timeout: Duration = .seconds(30), until condition: () -> Bool) async -> Bool {
        if condition() { return true }
        waits += 1
        let id = waits
        let continuation = self.continuation
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            continuation.yield(.deadline(id))
        }
        defer { timer.cancel() }
        for await wake in stream {
            switch wake {
            case .event:
                if condition() { return true }
            case .deadline(let expired):
                if expired == id { return condition() }
            }
        }
        return condition()
    }
}

/// A clock the test moves by hand.
public final class ManualClock: Sendable {
    private let current: Locked<Date>
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = Locked(start) }
    public var now: Date { current.withLock { $0 } }
    public func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
