import Foundation
import Synchronization

/// A value behind a lock: a `Synchronization.Mutex` that ThreadSanitizer can see.
///
/// On Linux `Mutex` waits with a raw futex, which ThreadSanitizer does not intercept, so under
/// `swift test --sanitize=thread` every access inside `withLock` was reported as a race. When
/// the ThreadSanitizer runtime is in the process, each critical section tells it so: an acquire
/// on entry and a release on exit, on this lock's address (`__tsan_acquire`/`__tsan_release`,
/// looked up once). In any other build that costs one nil check. Every lock in this package is
/// one of these.
public final class Locked<Value>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(Failure) -> sending Result in
            let address = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
            ThreadSanitizer.acquire?(address)
            defer { ThreadSanitizer.release?(address) }
            return try body(&value)
        }
    }
}

/// The ThreadSanitizer runtime's annotations, when it is loaded (`-sanitize=thread`).
private enum ThreadSanitizer {
    typealias Annotation = @convention(c) (UnsafeRawPointer?) -> Void

    static let acquire = lookUp("__tsan_acquire")
    static let release = lookUp("__tsan_release")

    private static func lookUp(_ name: String) -> Annotation? {
        dlsym(nil, name).map { unsafeBitCast($0, to: Annotation.self) }
    }
}
