/// A value behind a lock, for the few small pieces of state shared across tasks.
final class MutexBox<Value: Sendable>: Sendable {
    private let lock: Locked<Value>

    init(_ value: Value) { lock = Locked(value) }

    var value: Value {
        get { lock.withLock { $0 } }
        set { lock.withLock { $0 = newValue } }
    }

    func update(_ change: (inout Value) -> Void) {
        lock.withLock { change(&$0) }
    }
}
