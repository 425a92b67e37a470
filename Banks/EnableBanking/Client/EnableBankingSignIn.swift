import FeedModel
import Foundation
import HTTPTransport

/// A sign-in: `POST /auth` for the chosen bank (the address the user opens), the address the
/// browser came back to read (its `state` compared in constant time), and `POST /sessions` with
/// the code, recorded at once (a code works once, for minutes); an older session for that bank
/// is then closed.
public struct EnableBankingSignIn: Sendable {
    public let client: EnableBankingClient
    public let applicationId: String
    public let sessionFile: EnableBankingSessionFile
    let now: @Sendable () -> Date

    public init(client: EnableBankingClient, applicationId: String, sessionFile: EnableBankingSessionFile,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.client = client
        self.applicationId = applicationId
        self.sessionFile = sessionFile
        self.now = now
    }

    /// The `state` of one sign-in (`SignInRedirect.newState`).
    public static func newState() -> String { SignInRedirect.newState() }

    /// RFC 3339 with an offset: `2027-05-28T10:00:00+00:00`.
    public static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date).replacingOccurrences(of: "Z", with: "+00:00")
    }

    /// `POST /auth`: where the user gives consent at `aspsp`, for `days` days.
    public func start(aspsp: String, country: String, psuType: String, redirectURL: String, days: Int,
                      state: String) async throws(EnableBankingFailure) -> URL {
        let validUntil = EnableBankingSignIn.rfc3339(now().addingTimeInterval(Double(days) * 86_400))
        let answer = try await client.startAuthorization(aspsp: aspsp, country: country, validUntil: validUntil, state: state,
                                                         redirectURL: redirectURL, psuType: psuType)
        guard let url = URL(string: answer.url), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw EnableBankingFailure(error: APIError(kind: .malformed, request: "POST /auth", message: "POST /auth: the bank's address is not a web address"),
                                       code: nil)
        }
        return url
    }

    /// What the browser was sent back with.
    public typealias Callback = SignInRedirect.Return

    /// Reads the address the browser was sent to (or its query alone).
    public static func callback(_ text: String, state: String) -> Callback { SignInRedirect.read(text, state: state) }

    /// `POST /sessions` with `code`: the session recorded at once; an older one for that bank closed.
    public func finish(code: String, aspsp: String, country: String) async throws(EnableBankingFailure) -> EnableBankingSessionRecord {
        let session = try await client.createSession(code: code)
        guard let id = session.sessionId, !id.isEmpty, let validUntil = session.validUntil else {
            throw EnableBankingFailure(error: APIError(kind: .malformed, request: "POST /sessions",
                                                       message: "POST /sessions: no session_id or valid_until in the answer"), code: nil)
        }
        let origin = EnableBankingFiles.origin(client.transport.baseURL)
        let record = EnableBankingSessionRecord(origin: origin, applicationId: applicationId, aspsp: session.aspspName ?? aspsp,
                                                country: session.aspspCountry ?? country, sessionId: id, validUntil: validUntil,
                                                psuType: session.psuType ?? "personal", signedInAt: now(), accounts: session.accounts)
        let older = sessionFile.record(for: record.fingerprint)
        guard sessionFile.keep(record, for: record.fingerprint) else {
            throw EnableBankingFailure(error: APIError(kind: .rejected, request: "POST /sessions",
                                                       message: "the session could not be kept in \(sessionFile.fileURL.path)"), code: nil)
        }
        if let older, older.sessionId != id {
            // Best effort: a session left open ends with its consent anyway.
            try? await client.closeSession(id: older.sessionId)
        }
        return record
    }
}
