import FeedModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The record of saved round-ups, one JSON file per source and account in the cache directory
/// (`roundups-<hash>.json`, 0600, beside the offline cache but never pruned with it: it says
/// what money moved). Each change is read, changed and written whole (a new file renamed over
/// the old one) under an exclusive `flock` of `roundups-<hash>.lock`, so two runs at once (the
/// app and a timer) keep both their transfers.
public final class RoundUpRecordFile: RuleRecord {
    public let fileURL: URL
    private let lockURL: URL

    struct Contents: Codable {
        var version: Int
        var identity: SaveIdentity
        var parts: [SavedRoundUp]
        /// The savings rules' record only: the week each rule was first read in.
        var starts: [String: String]?
    }

    private let identity: SaveIdentity

    private let prefix: String

    /// `kind`: "roundups" for the Round-ups tab's weeks, "rules" for the savings rules' periods
    /// (a file of their own, so a rule's transfer never closes a round-ups week).
    public init(directory: URL, identity: SaveIdentity, kind: String = "roundups") {
        let hash = SHA1.hex(Array("\(identity.source)\n\(identity.account)".utf8)).prefix(16)
        fileURL = directory.appendingPathComponent("\(kind)-\(hash).json")
        lockURL = directory.appendingPathComponent("\(kind)-\(hash).lock")
        self.identity = identity
        prefix = kind
    }

    public func start(of rule: String) -> String? {
        ((try? withFileLock { try readContents() })?.starts ?? [:])[rule]
    }

    public func keepStart(_ week: String, of rule: String) throws {
        try withFileLock {
            let contents = try readContents()
            var starts = contents.starts ?? [:]
            guard starts[rule] == nil else { return }
            starts[rule] = week
            try write(contents.parts, starts: starts)
        }
    }

    public func parts(week: String) -> [SavedRoundUp] {
        // Read anew every time: another run may have saved since.
        (((try? withFileLock { try read() }) ?? []) + earlierParts()).filter { $0.week == week }
    }

    /// What earlier versions kept for this source under a token's digest as its account (the
    /// Qapital API names none; issue 37): read, never written, so a week saved before still
    /// counts as saved.
    private func earlierParts() -> [SavedRoundUp] {
        guard identity.byGoalOwner, prefix == "roundups" else { return [] }
        let directory = fileURL.deletingLastPathComponent()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return names.sorted().filter { $0.hasPrefix("roundups-") && $0.hasSuffix(".json") && $0 != fileURL.lastPathComponent }
            .compactMap { name -> [SavedRoundUp]? in
                guard let data = try? Data(contentsOf: directory.appendingPathComponent(name)),
                      let contents = try? decoder.decode(Contents.self, from: data),
                      contents.identity.source == identity.source, !contents.identity.byGoalOwner else { return nil }
                return contents.parts
            }
            .flatMap { $0 }
    }

    public func keep(_ part: SavedRoundUp) throws {
        try withFileLock {
            var parts = try read()
            if let index = parts.firstIndex(where: { $0.key == part.key }) { parts[index] = part } else { parts.append(part) }
            try write(parts)
        }
    }

    public func forget(key: UUID) throws {
        try withFileLock {
            var parts = try read()
            parts.removeAll { $0.key == key }
            try write(parts)
        }
    }

    /// Removes the record (`--reset-demo`: the demo forgets what it saved).
    public func removeAll() throws {
        try withFileLock {
            if unlink(fileURL.path) != 0 && errno != ENOENT { throw CocoaError(.fileWriteNoPermission) }
        }
    }

    /// Every transfer kept, oldest first.
    public func allParts() -> [SavedRoundUp] {
        ((try? withFileLock { try read() }) ?? []) + earlierParts()
    }

    public struct DamagedRecord: Error, CustomStringConvertible {
        public let description: String
    }

    private func read() throws -> [SavedRoundUp] { try readContents().parts }

    private func readContents() throws -> Contents {
        guard let data = try? Data(contentsOf: fileURL) else { return Contents(version: 1, identity: identity, parts: []) }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(Contents.self, from: data)
        } catch {
            // A damaged record is not replaced (that would forget money moved): every save refuses.
            throw DamagedRecord(description: "\(fileURL.path) cannot be read; move it aside to save again")
        }
    }

    private func write(_ parts: [SavedRoundUp]) throws {
        try write(parts, starts: try readContents().starts)
    }

    private func write(_ parts: [SavedRoundUp], starts: [String: String]?) throws {
        try CacheFiles.preparePrivateDirectory(fileURL.deletingLastPathComponent())
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(Contents(version: 1, identity: identity, parts: parts, starts: starts))
        let temporary = fileURL.deletingLastPathComponent().appendingPathComponent(".\(fileURL.lastPathComponent).\(getpid())")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission) }
        let written = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count <= 0 { return false }
                offset += count
            }
            return fsync(descriptor) == 0
        }
        close(descriptor)
        guard written, rename(temporary.path, fileURL.path) == 0 else {
            unlink(temporary.path)
            throw CocoaError(.fileWriteOutOfSpace)
        }
    }

    private func withFileLock<T>(_ body: () throws -> T) throws -> T {
        try CacheFiles.preparePrivateDirectory(lockURL.deletingLastPathComponent())
        return try FileLock.exclusively(lockURL, body)
    }
}
