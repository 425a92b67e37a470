import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A lock between processes: an exclusive `flock` on a lock file, for files several runs of the
/// app (the TUI and a cron job) change (the saved weeks' record, the demo's saves).
public enum FileLock {
    /// Runs `body` holding an exclusive `flock` of `url`, made 0600 if missing and never
    /// followed through a link; the caller makes its folder first.
    public static func exclusively<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission) }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else { throw CocoaError(.fileLocking) }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
