import FeedModel
import Foundation

/// What `export --new` exported last, kept per source, account and format beside the offline
/// cache (`export-<hash>.latest`), the way `hledger import` keeps a `.latest` file: the newest
/// row's time and the rows at that very time. The next `--new` run writes only rows after it
/// (and those at it that were not written), so appending to a journal never counts one twice.
public struct ExportMark: Codable, Equatable, Sendable {
    /// 2: `atNewest` holds the rows' ids; 1 (the first version's marks): their fingerprints.
    public var version = 2
    /// The newest time written.
    public var newest: Date
    /// The rows written at `newest` (their ids, a row twice if it came twice).
    public var atNewest: [String]

    public init(newest: Date, atNewest: [String], version: Int = 2) {
        self.newest = newest
        self.atNewest = atNewest
        self.version = version
    }

    /// How a mark of `version` names a row: by the id its source gave it (version 2), or by the
    /// first version's fingerprint, so a mark written before ids still reads.
    static func key(_ activity: Activity, version: Int) -> String {
        version >= 2 ? activity.id : fingerprint(activity)
    }

    /// The first version's identity of a row: its time to the millisecond, amount, person, kind
    /// and message. FNV-1a, 64 bits, hex.
    public static func fingerprint(_ activity: Activity) -> String {
        let text = "\(millis(activity.timestamp))|\(activity.amount.minorUnits)|\(activity.amount.currency.code)|\(activity.userId)|\(activity.kind.rawValue)|\(activity.message.markupSource)"
        let hex = String(FNV1a.hash(text.utf8), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// A time to the millisecond, as the mark keeps it.
    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// What an `--new` run skips and keeps: rows up to the mark (those at its time only when
    /// written before), then the newest row written and the rows at its time.
    struct Tracker {
        private let mark: ExportMark?
        private var left: [String: Int] = [:]
        private(set) var newest: Int64?
        private(set) var newestDate: Date?
        private(set) var atNewest: [String] = []

        init(_ mark: ExportMark?) {
            self.mark = mark
            for print in mark?.atNewest ?? [] { left[print, default: 0] += 1 }
            // A first version's mark is carried on in ids: its rows at the newest time come again
            // only if newer rows do not move the mark on.
            if let mark, mark.version >= 2 { (newest, newestDate, atNewest) = (millis(mark.newest), mark.newest, mark.atNewest) }
        }

        /// Whether the row was written by an earlier run (then it is not written again).
        mutating func written(_ activity: Activity) -> Bool {
            guard let mark else { return false }
            let at = millis(activity.timestamp)
            let marked = millis(mark.newest)
            if at < marked { return true }
            if at > marked { return false }
            let print = ExportMark.key(activity, version: mark.version)
            guard let count = left[print], count > 0 else { return false }
            left[print] = count - 1
            return true
        }

        /// The row was written now.
        mutating func wrote(_ activity: Activity) {
            let at = millis(activity.timestamp)
            if let newest, at < newest { return }
            if newest != at {
                newest = at
                newestDate = activity.timestamp
                atNewest = []
            }
            atNewest.append(activity.id)
        }

        var result: ExportMark? { newestDate.map { ExportMark(newest: $0, atNewest: atNewest.sorted()) } }
    }
}

/// Where the mark is kept: a file in the cache directory (0600), written whole and renamed over.
public struct ExportMarkFile: Sendable {
    public let fileURL: URL

    public init(fileURL: URL) { self.fileURL = fileURL }

    /// nil when there is none yet; a damaged one is an error (never silently all again).
    public func read() throws(CommandFailure) -> ExportMark? {
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return nil }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .custom { decoder in
                let text = try decoder.singleValueContainer().decode(String.self)
                guard let date = Timestamp.parse(text) else {
                    throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a time"))
                }
                return date
            }
            return try decoder.decode(ExportMark.self, from: Data(contentsOf: fileURL))
        } catch {
            throw CommandFailure(.failed, "\(fileURL.path) cannot be read (--new keeps what was exported there); move it aside to export everything again")
        }
    }

    public func write(_ mark: ExportMark) throws(CommandFailure) {
        do {
            try FileManager.default.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .custom { date, encoder in
                var container = encoder.singleValueContainer()
                try container.encode(Timestamp.feedString(date))
            }
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(mark).write(to: fileURL, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: fileURL.path)
        } catch {
            throw CommandFailure(.failed, "\(fileURL.path) cannot be written: the next export --new would write these rows again")
        }
    }
}
