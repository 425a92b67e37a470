import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The cache directory as a private place: the cache holds someone's transactions.
///
/// - Files are 0600 and the directory 0700, also when an older version made them 0644/0755.
/// - Cache files of servers not used for `maxAge` (30 days) are removed at start, so test runs
///   and old URLs do not pile up. Using a file (opening it) counts as use.
/// Only files this app names are touched (see `isCacheFile`): `--cache-dir` may point anywhere.
public enum CacheFiles {
    public static let maxAge: TimeInterval = 30 * 86_400

    /// Makes `directory` exist, private. An existing directory is made 0700 when it is the
    /// default one (`…/qapital-tui`) or holds nothing but cache files; another directory the
    /// user named is left as it is (its cache files are 0600 all the same).
    public static func preparePrivateDirectory(_ directory: URL) throws {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CocoaError(.fileWriteFileExists) }
            let entries = (try? manager.contentsOfDirectory(atPath: directory.path)) ?? []
            if directory.lastPathComponent == "qapital-tui" || entries.allSatisfy(isCacheFile) {
                chmod(directory.path, 0o700)
            }
        } else {
            try manager.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
            try manager.createDirectory(at: directory, withIntermediateDirectories: false,
                                        attributes: [.posixPermissions: 0o700])
        }
    }

    /// Creates the database file 0600 before SQLite opens it (SQLite gives its -wal and -shm the
    /// main file's mode), makes existing ones 0600, and marks the file used now.
    public static func prepareDatabaseFile(_ fileURL: URL) {
        let path = fileURL.path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            fchmod(descriptor, 0o600)
            // Opening is use: the pruning of other runs goes by this time.
            futimens(descriptor, nil)
            close(descriptor)
        }
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            chmod(path + suffix, 0o600)
        }
    }

    /// Makes a file this app wrote (e.g. with `Data.write(to:options:.atomic)`) 0600.
    public static func makePrivate(_ fileURL: URL) {
        chmod(fileURL.path, 0o600)
    }

    /// Removes the cache files in `directory` not used for `maxAge`, except `keeping`'s.
    /// Returns the names removed.
    @discardableResult
    public static func prune(_ directory: URL, keeping kept: URL? = nil, now: Date = Date(), maxAge: TimeInterval = maxAge) -> [String] {
        let manager = FileManager.default
        guard let entries = try? manager.contentsOfDirectory(atPath: directory.path) else { return [] }
        let keptName = kept?.lastPathComponent
        var removed: [String] = []
        for name in entries where isCacheFile(name) {
            // A database goes with its -wal and -shm; each is judged by the newest of the three.
            // A damaged copy moved aside, and anything else, by its own time.
            let base = databaseName(of: name)
            let isCompanion = base != name && !name.contains(".corrupt-")
            if base == keptName && (isCompanion || base == name) { continue }
            let group = isCompanion || base == name ? [base, base + "-wal", base + "-shm"] : [name]
            let newest = group.compactMap { modified(directory.appendingPathComponent($0)) }.max()
            guard let newest, now.timeIntervalSince(newest) > maxAge else { continue }
            if (try? manager.removeItem(at: directory.appendingPathComponent(name))) != nil { removed.append(name) }
        }
        return removed.sorted()
    }

    /// Names this app gives files in the cache directory: `<readable>-<hash>.sqlite` with its
    /// `-wal`, `-shm` and `.corrupt-<time>` companions, and a bank's last account,
    /// `<source>-account-….json` (`starling-account-…`, `monzo-account-…`).
    public static func isCacheFile(_ name: String) -> Bool {
        if name.hasSuffix(".json"), let marker = name.range(of: "-account-"),
           !name[..<marker.lowerBound].isEmpty, name[..<marker.lowerBound].allSatisfy({ $0.isASCII && $0.isLowercase }) {
            return true
        }
        let base = databaseName(of: name)
        guard base.hasSuffix(".sqlite"), let dash = base.lastIndex(of: "-") else { return false }
        let hash = base[base.index(after: dash)..<base.index(base.endIndex, offsetBy: -".sqlite".count)]
        return !hash.isEmpty && hash.allSatisfy(\.isHexDigit)
    }

    /// `x.sqlite-wal`, `x.sqlite.corrupt-123` → `x.sqlite`; anything else unchanged.
    private static func databaseName(of name: String) -> String {
        for suffix in ["-wal", "-shm"] where name.hasSuffix(".sqlite" + suffix) {
            return String(name.dropLast(suffix.count))
        }
        if let range = name.range(of: ".sqlite.corrupt-") { return String(name[..<range.lowerBound]) + ".sqlite" }
        return name
    }

    private static func modified(_ url: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    }
}
