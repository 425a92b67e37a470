import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file only its owner may read, for what a sign-in or a bank keeps (remembered tokens, OAuth
/// pairs, Enable Banking's and SimpleFIN's sessions, counts and caches):
/// written whole, 0600 from the first byte, in a 0700 folder, synced and renamed into place;
/// read back only when it is still the user's own, private and small. And the origin a
/// credential is kept for, so that it only ever goes back to the server that gave it.
public enum PrivateFile {
    /// A one-line refusal that never quotes what was being written.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
        public init(message: String) { self.message = message }
    }

    /// `https://api.starlingbank.com:443`: scheme, host and port, lowercased.
    public static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\((url.host ?? "").lowercased()):\(port)"
    }

    /// Writes `data` to `fileURL` for its owner only: a new file created 0600 from the start
    /// (never readable by others, not even for a moment) in a 0700 directory, synced, then
    /// renamed over the old one, so a reader sees the old file or the new one, never half.
    public static func write(_ data: Data, to fileURL: URL) throws(Failure) {
        let directory = fileURL.deletingLastPathComponent()
        let shownDirectory = TextSanitizer.clean(directory.path)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw Failure(message: "cannot create \(shownDirectory)")
        }
        let temporary = directory.appendingPathComponent(".\(fileURL.lastPathComponent)-\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure(message: "cannot write in \(shownDirectory)") }
        let written = data.withUnsafeBytes { bytes in Glibc.write(descriptor, bytes.baseAddress, bytes.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == data.count, synced, rename(temporary.path, fileURL.path) == 0 else {
            unlink(temporary.path)
            throw Failure(message: "cannot write \(TextSanitizer.clean(fileURL.path))")
        }
    }

    /// The bytes of `fileURL` when it is a regular file of this user's that only they can read
    /// (0600 or stricter) and small; else nil (not trusted, not read).
    public static func read(_ fileURL: URL) -> Data? {
        var info = stat()
        guard lstat(fileURL.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid(),
              info.st_mode & 0o077 == 0, info.st_size < 65_536 else { return nil }
        return FileManager.default.contents(atPath: fileURL.path)
    }
}
