import CNcurses

/// How the process asks glibc's allocator to keep its memory. By default glibc gives each
/// thread that allocates its own arena (up to eight per core); rows decoded off the main
/// thread and freed on it then stay resident in arenas no trim gives back: 22 B
/// more per activity at a million (`qapital-bench ids-*`, 306 B against 284 B; with two arenas
/// Monzo's ids still read 306 B once). One arena: the app allocates on its main thread almost
/// only, so the threads that decode wait on it seldom.
public enum MemoryPolicy {
    /// Called once, first thing, by the app and by the bench that measures it; whether glibc
    /// took the setting.
    @discardableResult
    public static func apply() -> Bool {
        qt_limit_malloc_arenas(1) == 1
    }
}
