import FeedModel
import Foundation

/// Where Enable Banking's files live and how they are written: 0600 in a 0700 folder, written
/// whole then renamed over, so a crash leaves the old file or the new one, never half of one.
public enum EnableBankingFiles {
    /// F: 16 hex of SHA-256 of the API origin, application id, bank and country: the session,
    /// the reads and the data are kept per F (never the ids themselves in a name).
    public static func fingerprint(origin: String, applicationId: String, aspsp: String, country: String) -> String {
        EnableBankingIDs.hex([origin, applicationId, aspsp, country].joined(separator: "\n"), count: 16)
    }

    /// `scheme://host:port`, lowercased (`PrivateFile.origin`).
    public static func origin(_ url: URL) -> String { PrivateFile.origin(of: url) }

    /// `PrivateFile.write`: whether it was written.
    @discardableResult
    public static func writePrivate(_ data: Data, to fileURL: URL) -> Bool {
        (try? PrivateFile.write(data, to: fileURL)) != nil
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// What a sign-in gave, kept in `$XDG_CONFIG_HOME/qapital-tui/enablebanking-session.json`
/// (0600, renamed over), one entry per (API origin, application id, bank, country): the
/// session's id (a secret: only here and in memory), how long the consent lasts, and its accounts.
public struct EnableBankingSessionRecord: Codable, Sendable, Equatable {
    /// Whose session: the API's origin, the application, the bank and its country (none a secret).
    public var origin: String
    public var applicationId: String
    public var aspsp: String
    public var country: String
    public var sessionId: String
    /// RFC 3339, as the API said it.
    public var validUntil: String
    public var psuType: String
    public var signedInAt: Date
    public var accounts: [EnableBanking.Account]
    /// Set when the bank ended the consent early (`EXPIRED_SESSION`, `REVOKED_SESSION`…): the code and when.
    public var endedEarly: String?
    public var endedAt: Date?

    public init(origin: String, applicationId: String, aspsp: String, country: String, sessionId: String, validUntil: String,
                psuType: String, signedInAt: Date, accounts: [EnableBanking.Account]) {
        self.origin = origin
        self.applicationId = applicationId
        self.aspsp = aspsp
        self.country = country
        self.sessionId = sessionId
        self.validUntil = validUntil
        self.psuType = psuType
        self.signedInAt = signedInAt
        self.accounts = accounts
    }

    /// `valid_until` read (RFC 3339 with an offset, with or without fractions).
    public var validUntilDate: Date? { EnableBankingSessionRecord.date(validUntil) }

    public static func date(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    /// When the consent ended or ends: early at the bank, else `valid_until`.
    public func endDate() -> Date? { endedAt ?? validUntilDate }

    /// Whether nothing may be sent any more at `now`.
    public func hasEnded(at now: Date) -> Bool {
        if endedEarly != nil { return true }
        guard let end = validUntilDate else { return true }
        return now >= end
    }

    /// Days left to `valid_until`, a part of a day counting as one: a 180-day consent says 180
    /// right after the sign-in (rounded down it said 179), its last day 1, and 0 only from its end.
    public func daysLeft(at now: Date) -> Int {
        guard let end = validUntilDate else { return 0 }
        let seconds = end.timeIntervalSince(now)
        guard seconds > 0 else { return 0 }
        return Int((seconds / 86_400).rounded(.up))
    }

    /// The description never shows the session's id.
    public var shown: String { "session at \(aspsp) (\(country)) until \(validUntil), \(accounts.count) accounts" }

    /// The record's fingerprint (`EnableBankingFiles.fingerprint`).
    public var fingerprint: String {
        EnableBankingFiles.fingerprint(origin: origin, applicationId: applicationId, aspsp: aspsp, country: country)
    }
}

/// The session file: every sign-in's record, by fingerprint.
public struct EnableBankingSessionFile: Sendable {
    public let fileURL: URL

    public init(fileURL: URL) { self.fileURL = fileURL }

    public static func defaultFile(environment: [String: String]) -> URL {
        ConfigFolder.url(environment: environment).appendingPathComponent("enablebanking-session.json")
    }

    struct Contents: Codable { var sessions: [String: EnableBankingSessionRecord] }

    func all() -> [String: EnableBankingSessionRecord] {
        guard let data = try? Data(contentsOf: fileURL),
              let contents = try? EnableBankingFiles.decoder().decode(Contents.self, from: data) else { return [:] }
        return contents.sessions
    }

    public func record(for fingerprint: String) -> EnableBankingSessionRecord? { all()[fingerprint] }

    /// The newest sign-in for this origin and application, at `aspsp` in `country` when they are
    /// given (the config file may leave the bank to the sign-in).
    public func newest(origin: String, applicationId: String, aspsp: String?, country: String?) -> EnableBankingSessionRecord? {
        all().values.filter { record in
            record.origin == origin && record.applicationId == applicationId
                && aspsp.map { $0.caseInsensitiveCompare(record.aspsp) == .orderedSame } ?? true
                && country.map { $0.uppercased() == record.country.uppercased() } ?? true
        }.max { $0.signedInAt < $1.signedInAt }
    }

    /// Writes `record` for `fingerprint` (nil: removes it), under the file's lock: another
    /// process's records are kept.
    @discardableResult
    public func keep(_ record: EnableBankingSessionRecord?, for fingerprint: String) -> Bool {
        let lock = fileURL.deletingLastPathComponent().appendingPathComponent(".enablebanking-session.lock")
        try? FileManager.default.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        let write = { () -> Bool in
            var sessions = self.all()
            sessions[fingerprint] = record
            guard let data = try? EnableBankingFiles.encoder().encode(Contents(sessions: sessions)) else { return false }
            return EnableBankingFiles.writePrivate(data, to: self.fileURL)
        }
        return (try? FileLock.exclusively(lock, write)) ?? write()
    }
}
