import FeedModel
import Foundation
import TermUI

/// What the event loop reads: the terminal's events, the stores' typed events, pictures that
/// arrived, ticks.
public enum AppEvent: Sendable {
    case terminal(TerminalEvent)
    case store(StoreEvent)
    case picture(URL)
    case tick
}

/// The one queue the loop reads: terminal events, the stores' typed events, pictures that
/// arrived, ticks. The loop waits until something is queued, then takes everything queued at
/// once and draws one frame for it all (a burst of arrivals is one frame).
@MainActor
public final class EventQueue {
    private var queued: [AppCore.Event] = []
    /// Where the next event to take is in `queued` (taking from the front costs nothing).
    private var head = 0
    private var waiting: CheckedContinuation<Void, Never>?

    public init() {}

    /// Events posted and not taken by the loop yet.
    var pending: Int { queued.count - head }

    func post(_ event: AppCore.Event) {
        queued.append(event)
        wake()
    }

    /// Returns once something is queued. It always lets the main actor's other work run first
    /// (answers that arrived post theirs), so one batch takes everything ready.
    func wait() async {
        guard pending == 0 else {
            await Task.yield()
            return
        }
        // A cancelled loop (a test past its time limit) wakes up and ends.
        await withTaskCancellationHandler {
            await withCheckedContinuation { waiting = $0 }
        } onCancel: {
            Task { @MainActor [weak self] in self?.wake() }
        }
    }

    private func wake() {
        waiting?.resume()
        waiting = nil
    }

    /// The oldest event queued, if any.
    func take() -> AppCore.Event? {
        guard head < queued.count else { return nil }
        let event = queued[head]
        head += 1
        if head == queued.count {
            queued.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 4_096 && head * 2 >= queued.count {
            // A queue that never runs dry drops what was taken now and then.
            queued.removeFirst(head)
            head = 0
        }
        return event
    }

    /// Where the stores post: into the same queue.
    nonisolated var sink: EventSink<AppCore.Event> {
        EventSink { [weak self] event in self?.post(event) }
    }
}
