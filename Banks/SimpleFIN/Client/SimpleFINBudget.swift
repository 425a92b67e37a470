import FeedModel
import Foundation

/// SimpleFIN Bridge's request budget, kept per access URL in the cache directory: the times of
/// the requests of the last rolling day (`simplefin-requests-<fingerprint>.json`). The Bridge
/// expects 24 or fewer a day and disables an access URL that goes on past them; so at 20 the
/// status bar warns, and past 24 a request needs the user's yes (`r` once more in the app,
/// `--force` headless). A budget warning from the Bridge, a 402 or a 403 after working requests
/// stops every request for the rest of the session, with the reason.
public final class SimpleFINBudget: Sendable {
    public static let daily = 24
    public static let warnAt = 20
    public let fileURL: URL?
    private let now: @Sendable () -> Date
    private let state: Locked<State>

    struct State {
        var times: [Date]
        var stopped: String?
        /// Requests the user allowed past the budget (one per `r` after the question; `--force`: all).
        var allowedPast = 0
        var forced = false
        /// The question was asked: the next `r` is the yes.
        var asked = false
    }

    struct Contents: Codable { var requests: [Date] }

    public init(fileURL: URL?, forced: Bool = false, now: @escaping @Sendable () -> Date = { Date() }) {
        self.fileURL = fileURL
        self.now = now
        state = Locked(State(times: fileURL.flatMap(SimpleFINBudget.read) ?? [], forced: forced))
    }

    /// The times the file holds (nil: no file, or one that cannot be read).
    static func read(_ fileURL: URL) -> [Date]? {
        guard let data = try? Data(contentsOf: fileURL) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode(Contents.self, from: data))?.requests
    }

    /// `simplefin-requests-….lock` beside the file: the app and a timer's command count in one
    /// file, so each request is read, decided and written under an exclusive lock of it.
    var lockURL: URL? {
        fileURL.map { $0.deletingLastPathComponent().appendingPathComponent($0.deletingPathExtension().lastPathComponent + ".lock") }
    }

    /// Requests sent in the last 24 hours.
    public var usedToday: Int {
        let cutoff = now().addingTimeInterval(-86_400)
        return state.withLock { $0.times.count { $0 > cutoff } }
    }

    /// Why requests stopped for this session, if they did.
    public var stopReason: String? { state.withLock { $0.stopped } }

    /// "4 of SimpleFIN's 24 daily requests left", from 20 on; the stop reason once stopped.
    public var note: String? {
        if let stopped = stopReason { return stopped }
        let used = usedToday
        guard used >= SimpleFINBudget.warnAt else { return nil }
        let left = max(0, SimpleFINBudget.daily - used)
        return "\(left) of SimpleFIN's \(SimpleFINBudget.daily) daily requests left"
    }

    /// Before a request: throws when requests stopped, or when the day's budget is used and the
    /// user has not said yes (the message is the question). Counts the request when it may go.
    public func take(label: String, headless: Bool) throws(APIError) {
        let refusal: String?
        if let fileURL, let lockURL {
            // Another process's requests count too: the file, read under the lock, is the count.
            try? FileManager.default.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
            do {
                refusal = try FileLock.exclusively(lockURL) {
                    let decided = decide(headless: headless, counted: SimpleFINBudget.read(fileURL))
                    if decided == nil { save() }
                    return decided
                }
            } catch {
                // No lock to be had (a read-only folder): this process's own count, as before.
                refusal = decide(headless: headless, counted: nil)
                if refusal == nil { save() }
            }
        } else {
            refusal = decide(headless: headless, counted: nil)
        }
        if let refusal { throw APIError(kind: .rejected, request: SimpleFINBudget.label, message: refusal) }
    }

    /// Whether one more request may go (nil) or why not; counts it when it may. `counted`: the
    /// times the file holds now, every process's (nil: this process's own).
    private func decide(headless: Bool, counted: [Date]?) -> String? {
        let date = now()
        let cutoff = date.addingTimeInterval(-86_400)
        return state.withLock { state in
            if let counted { state.times = counted }
            let used = state.times.count { $0 > cutoff }
            if let stopped = state.stopped { return stopped }
            if used >= SimpleFINBudget.daily && !state.forced {
                guard state.allowedPast > 0 else {
                    state.asked = true
                    return headless
                        ? "\(used) SimpleFIN requests in the last 24 hours, past the Bridge's \(SimpleFINBudget.daily) a day: "
                            + "not sent (run again later, or with --force to send it anyway)"
                        : "\(used) SimpleFIN requests in the last 24 hours, past the Bridge's \(SimpleFINBudget.daily) a day: "
                            + "press r again to send one more anyway"
                }
                state.allowedPast -= 1
            }
            state.times = state.times.filter { $0 > cutoff }
            state.times.append(date)
            return nil
        }
    }

    /// `r`: after the question, one request past the budget.
    public func userAskedAgain() {
        state.withLock { state in
            if state.asked {
                state.asked = false
                state.allowedPast += 1
            }
        }
    }

    /// No request for the rest of the session; `reason` is what `r` says instead.
    public func stop(_ reason: String) {
        state.withLock { if $0.stopped == nil { $0.stopped = reason } }
    }

    private func save() {
        guard let fileURL else { return }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(Contents(requests: state.withLock { $0.times })) else { return }
        try? PrivateFile.write(data, to: fileURL)
    }

    /// The `request` of a refusal by the budget (no request was sent).
    public static let label = "SimpleFIN's request budget"

    public static let refused = "SimpleFIN refused the access URL: it was revoked, or disabled after too many requests — make a new setup token"
    public static let unpaid = "the SimpleFIN Bridge subscription needs paying"
}
