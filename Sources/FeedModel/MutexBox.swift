import Synchronization

/// A value behind a lock, for the few small pieces of state shared across tasks.
final class MutexBox<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    var value: Value {
        get { mutex.withLock { $0 } }
        set { mutex.withLock { $0 = newValue } }
    }

    func update(_ change: (inout Value) -> Void) {
        mutex.withLock { change(&$0) }
    }
}
