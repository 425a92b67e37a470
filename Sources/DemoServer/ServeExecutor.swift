import Dispatch

/// Where `serve`'s handlers run: threads of their own (a concurrent dispatch queue), not Swift's
/// cooperative pool, which has one thread a core. A process that serves and also computes (the
/// test suite, with its in-process servers beside CPU-bound tests) then never leaves a request
/// waiting for a pool thread: before, two long computations on two cores held both threads and
/// requests went unanswered for seconds ("no answer within 10 s"). Default actors the handlers
/// call (the backend) run here too (SE-0417).
final class ServeExecutor: TaskExecutor {
    static let shared = ServeExecutor()

    private let queue = DispatchQueue(label: "qapital-tui.serve.handlers", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
