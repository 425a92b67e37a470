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
    private var waiting: CheckedContinuation<Void, Never>?

    public init() {}

    /// Events posted and not taken by the loop yet.
    var pending: Int { queued.count }

    func post(_ event: AppCore.Event) {
        queued.append(event)
        wake()
    }

    /// Returns once something is queued. It always lets the main actor's other work run first
    /// (answers that arrived post theirs), so one batch takes everything ready.
    func wait() async {
        guard queued.isEmpty else {
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
        guard !queued.isEmpty else { return nil }
        return queued.removeFirst()
    }

    /// Where the stores post: into the same queue.
    nonisolated var sink: EventSink<AppCore.Event> {
        EventSink { [weak self] event in self?.post(event) }
    }
}
