import Foundation

/// Every endpoint of the API (docs/api.md). Implementations throw `APIError`.
public protocol SavingsAPI: Sendable {
    /// What the status bar calls the source: "demo" or the server's host.
    var sourceName: String { get }
    func goals() async throws -> [Goal]
    func feed(goalId: GoalID) async throws -> [FeedItem]
    func rules() async throws -> [SavingsRule]
    /// Throws `APIError` with kind `.notFound` for a user the server does not know.
    func user(id: Int) async throws -> User
    func activities(from: Date, to: Date) async throws -> ActivityPage
    func transactions(from: Date, to: Date) async throws -> [Transaction]
    func createGoal(name: String, target: Money?) async throws -> Goal
    /// A goal with a photo (PNG or JPEG bytes, at most 10 MB); a source that keeps no photos
    /// creates the goal without it.
    func createGoal(name: String, target: Money?, photo: Data?) async throws -> Goal
    /// Moves `amount` into the goal. The same `transferId` twice moves money once. `attempt` says
    /// which period moves and whether it is sent again (a source that marks its transfers looks for it).
    func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal
    /// The bytes of a goal image or avatar (HTTP sources fetch them with HTTPTransport's `ImageFetch`).
    func imageData(at url: URL) async throws -> Data
    /// The bank account behind the source, with its holder, numbers and balance; nil for a
    /// source that has none (the demo and the Qapital API).
    func account() async throws -> Account?
    /// The account as the source says it now, never a copy kept from before: what a decision
    /// that moves money reads (the rules' floor). Sources without a cache answer `account()`.
    func currentAccount() async throws -> Account?
    /// Whether `user(id:)` and `rules()` are answered without a request (a bank that knows its
    /// people and has no rules): their answers then say nothing of whether the server is reached.
    var answersUsersAndRulesItself: Bool { get }
    /// Whether `account()` carries `feedBalance` (SimpleFIN): `export` asks for the account only
    /// then, since for any other source that would be a request for nothing.
    var saysFeedBalance: Bool { get }
    /// The user asked for fresh data (`r`): a source that answers from what it keeps (a bank
    /// with a request budget) asks its server again at the next look. Nothing by default.
    func userAskedToRefresh()
}

extension SavingsAPI {
    public var answersUsersAndRulesItself: Bool { false }

    public var saysFeedBalance: Bool { false }

    public func userAskedToRefresh() {}

    /// A source without photos: the goal is created without it.
    public func createGoal(name: String, target: Money?, photo: Data?) async throws -> Goal {
        try await createGoal(name: name, target: target)
    }

    /// A source without an account of its own.
    public func account() async throws -> Account? { nil }

    public func currentAccount() async throws -> Account? { try await account() }

    /// A source without pictures: every picture is "not found" (monograms are drawn instead).
    public func imageData(at url: URL) async throws -> Data {
        let label = "GET \(TextSanitizer.clean(url.absoluteString))"
        throw APIError(kind: .notFound, request: label, message: "\(label): this source has no pictures")
    }
}

/// A request that failed, with what a person needs to read: "GET /activities: HTTP 500".
public struct APIError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The `request` of a refusal that only says nothing is kept yet to sign in with (no
    /// session): the app's sign-in screen is the way in, not an error it shows.
    public static let notSignedInYet = "not signed in yet"

    public enum Kind: Equatable, Sendable {
        case notFound
        case unauthorized
        case http(status: Int)
        case cannotConnect
        case timedOut
        case malformed
        case rejected
        case transport
        case cancelled
    }

    public let kind: Kind
    /// "GET /activities"
    public let request: String
    public let message: String
    /// The HTTP status behind the error, where there was one (a server tells 400 from 409 by it).
    public let status: Int?
    /// The token is good, but the customer has yet to approve it in the bank's app (Monzo's
    /// strong customer authentication): the request is refused (`.unauthorized`) without the
    /// token being refused, and is asked again when the user says so, never in a loop.
    public let awaitsApproval: Bool
    /// A request that changes state went out and no answer came back whole: the server may have
    /// acted on it. Only the caller decides what next, by its own protocol (the same key again,
    /// look first, or ask the user); the transport never sends it again.
    public let mayHaveArrived: Bool

    public init(kind: Kind, request: String, message: String, status: Int? = nil, awaitsApproval: Bool = false,
                mayHaveArrived: Bool = false) {
        self.kind = kind
        self.request = request
        self.message = message
        self.status = status
        self.awaitsApproval = awaitsApproval
        self.mayHaveArrived = mayHaveArrived
    }

    public var description: String { message }

    /// Whether a state-changing request that ended in this error may have been carried out: it
    /// left and no answer came (`mayHaveArrived`), an answer came that cannot be read, or the
    /// server failed (5xx) or asked to wait (408, 429), which some servers do after acting.
    public var mayHaveActed: Bool {
        if mayHaveArrived || kind == .malformed { return true }
        guard let status else { return false }
        return status >= 500 || status == 408 || status == 429
    }

    /// `error`, met after a state-changing request left (reading its result, or looking for it):
    /// whatever it says, the change may have been made, so it is never "nothing moved" and
    /// never "cannot connect". A source's `transfer` throws a plain connectivity error only when
    /// nothing that changes state was sent.
    public static func afterSending(_ error: any Error, _ what: String = "the request") -> APIError {
        if let error = error as? APIError, error.mayHaveArrived { return error }
        let api = error as? APIError
        return APIError(kind: api.map { $0.kind == .cannotConnect ? .transport : $0.kind } ?? .transport,
                        request: api?.request ?? "",
                        message: "\(api?.message ?? String(describing: error)); \(what) was sent and may have been made",
                        mayHaveArrived: true)
    }
}
