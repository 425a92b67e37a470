import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Signals that should end the process cleanly, delivered as values instead of killing it.
///
/// Each signal's default action is ignored first (`signal(SIG_IGN)`), then a dispatch source
/// reports it, so no code runs inside a signal handler.
/// Owned by one task (not Sendable); other tasks post through `continuation`.
public final class StopSignals {
    private let stream: AsyncStream<Int32>
    /// Posts a value of one's own (0: "stop for another reason"); safe from any task.
    public let continuation: AsyncStream<Int32>.Continuation
    private let sources: [any DispatchSourceSignal]

    public init(_ numbers: [Int32]) {
        (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let queue = DispatchQueue(label: "qapital-tui.signals")
        let continuation = self.continuation
        sources = numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    /// The next signal (or posted value); 0 if cancelled.
    public func next() async -> Int32 {
        for await number in stream { return number }
        return 0
    }

    public func cancel() {
        for source in sources { source.cancel() }
        continuation.finish()
    }
}
