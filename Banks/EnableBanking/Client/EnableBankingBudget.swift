import FeedModel
import Foundation

/// PSD2's budget: a bank lets a provider read an account without the user at most four times in
/// 24 hours, per account, endpoint and consent. Every read counts here (sign-in, attended and
/// unattended alike), per (session, account, endpoint), over a rolling day, in
/// `enablebanking-reads-F.json` under an exclusive lock, so the app and a timer's command count
/// in one file. Past four, a read needs the user's yes (`r` once more in the app, `--force`
/// headless). A 429 marks the account used up until its count rolls over; nothing retries.
public final class EnableBankingBudget: Sendable {
    public static let daily = 4
    /// From this many reads the status bar says so.
    public static let warnAt = 3
    public static let day: TimeInterval = 86_400

    public enum Endpoint: String, Sendable, CaseIterable {
        case balances, transactions
    }

    public let fileURL: URL?
    /// 16 hex of SHA-256 of the session's id: the count is per consent, the id is never written.
    var session: String { sessionKey.withLock { $0 } }
    private let sessionKey: Locked<String>
    private let forced: Bool
    private let now: @Sendable () -> Date
    private let state: Locked<State>

    struct State {
        var contents = Contents()
        /// Accounts the user said yes for (one read each past the budget).
        var allowedPast: Set<String> = []
        /// Accounts whose question was asked: the next `r` is the yes.
        var asked: Set<String> = []
    }

    struct Contents: Codable, Equatable {
        /// "SESSION ACCOUNT ENDPOINT" → the reads' times.
        var reads: [String: [Date]] = [:]
        /// "SESSION ACCOUNT" → until when the bank said its limit was reached.
        var limited: [String: Date] = [:]
    }

    public init(fileURL: URL?, sessionId: String, forced: Bool = false, now: @escaping @Sendable () -> Date = { Date() }) {
        self.fileURL = fileURL
        sessionKey = Locked(EnableBankingIDs.hex(sessionId, count: 16))
        self.forced = forced
        self.now = now
        state = Locked(State(contents: fileURL.flatMap(EnableBankingBudget.read) ?? Contents()))
    }

    /// A new consent (signed in again in the app): its reads are counted from here on.
    public func adopt(sessionId: String) {
        sessionKey.withLock { $0 = EnableBankingIDs.hex(sessionId, count: 16) }
        state.withLock { state in
            state.allowedPast = []
            state.asked = []
        }
    }

    static func read(_ fileURL: URL) -> Contents? {
        guard let data = try? Data(contentsOf: fileURL) else { return nil }
        return try? EnableBankingFiles.decoder().decode(Contents.self, from: data)
    }

    var lockURL: URL? {
        fileURL.map { $0.deletingLastPathComponent().appendingPathComponent($0.deletingPathExtension().lastPathComponent + ".lock") }
    }

    private func key(_ account: String, _ endpoint: Endpoint) -> String { "\(session) \(account) \(endpoint.rawValue)" }

    /// Reads of `account` at `endpoint` in the last 24 hours (as this process last saw the file).
    public func used(_ account: String, _ endpoint: Endpoint) -> Int {
        let cutoff = now().addingTimeInterval(-EnableBankingBudget.day)
        return state.withLock { ($0.contents.reads[key(account, endpoint)] ?? []).count { $0 > cutoff } }
    }

    /// The most reads of any endpoint of `account` today.
    public func usedToday(_ account: String) -> Int {
        Endpoint.allCases.map { used(account, $0) }.max() ?? 0
    }

    /// Before one read of `account` (both endpoints): throws, sending nothing, when the bank said
    /// its limit is reached, or when four reads were made today and nobody said yes; counts the
    /// read when it may go. `shown`: the account's name in the refusal.
    public func take(_ account: String, shown: String, headless: Bool) throws(APIError) {
        let refusal: String?
        if let fileURL, let lockURL {
            try? FileManager.default.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
            do {
                refusal = try FileLock.exclusively(lockURL) {
                    let decided = decide(account, shown: shown, headless: headless, counted: EnableBankingBudget.read(fileURL) ?? Contents())
                    if decided == nil { save() }
                    return decided
                }
            } catch {
                refusal = decide(account, shown: shown, headless: headless, counted: nil)
                if refusal == nil { save() }
            }
        } else {
            refusal = decide(account, shown: shown, headless: headless, counted: nil)
        }
        if let refusal { throw APIError(kind: .rejected, request: EnableBankingBudget.label, message: refusal) }
    }

    private func decide(_ account: String, shown: String, headless: Bool, counted: Contents?) -> String? {
        let date = now()
        let cutoff = date.addingTimeInterval(-EnableBankingBudget.day)
        return state.withLock { state in
            if let counted { state.contents = counted }
            if let until = state.contents.limited["\(session) \(account)"], until > date {
                return "\(shown): the bank's daily limit of reads is used up until \(EnableBankingBudget.clock(until)); showing what is kept"
            }
            let used = Endpoint.allCases.map { (state.contents.reads[key(account, $0)] ?? []).count { $0 > cutoff } }.max() ?? 0
            if used >= EnableBankingBudget.daily && !forced {
                guard state.allowedPast.contains(account) else {
                    state.asked.insert(account)
                    return headless
                        ? "\(used) of \(EnableBankingBudget.daily) reads of \(shown) used today: --force reads anyway"
                        : "\(used) of \(EnableBankingBudget.daily) reads of \(shown) used today: r asks whether to read anyway"
                }
                state.allowedPast.remove(account)
            }
            for endpoint in Endpoint.allCases {
                let times = (state.contents.reads[key(account, endpoint)] ?? []).filter { $0 > cutoff } + [date]
                state.contents.reads[key(account, endpoint)] = times
            }
            // What rolled over is dropped, every session's.
            state.contents.reads = state.contents.reads.compactMapValues { times in
                let kept = times.filter { $0 > cutoff }
                return kept.isEmpty ? nil : kept
            }
            state.contents.limited = state.contents.limited.filter { $0.value > date }
            return nil
        }
    }

    /// The app's question before `r` reads, when it would pass the budget: "4 of 4 reads of
    /// Everyday Account used today: read anyway? read 5 today [y/N]" (nil: no account is past it,
    /// or `--force`). An account the bank said is used up is not asked about: nothing is sent to it.
    public func question(_ accounts: [(key: String, shown: String)]) -> String? {
        guard !forced else { return nil }
        let over = pastBudget(accounts.map(\.key))
        guard let most = over.map({ usedToday($0) }).max() else { return nil }
        let names = accounts.filter { over.contains($0.key) }.map(\.shown).joined(separator: ", ")
        return "\(most) of \(EnableBankingBudget.daily) reads of \(names) used today: read anyway? read \(most + 1) today [y/N]"
    }

    /// The question's yes: one read more of each of `accounts` past its four (the next read only).
    public func allowPast(_ accounts: [String]) {
        let over = pastBudget(accounts)
        state.withLock { state in
            state.allowedPast.formUnion(over)
            state.asked.subtract(over)
        }
    }

    /// Those of `accounts` whose reads today are used and whose bank limit is not reached, as the
    /// file says now.
    private func pastBudget(_ accounts: [String]) -> [String] {
        if let fileURL, let counted = EnableBankingBudget.read(fileURL) { state.withLock { $0.contents = counted } }
        let date = now()
        return accounts.filter { account in
            let limited = state.withLock { ($0.contents.limited["\(session) \(account)"] ?? .distantPast) > date }
            return !limited && usedToday(account) >= EnableBankingBudget.daily
        }
    }

    /// The bank answered 429 for `account`: no read of it until its oldest read of the day rolls over.
    public func bankLimited(_ account: String) {
        let date = now()
        let update = { () in
            self.state.withLock { state in
                let cutoff = date.addingTimeInterval(-EnableBankingBudget.day)
                let oldest = Endpoint.allCases.flatMap { state.contents.reads[self.key(account, $0)] ?? [] }.filter { $0 > cutoff }.min()
                state.contents.limited["\(self.session) \(account)"] = (oldest ?? date).addingTimeInterval(EnableBankingBudget.day)
            }
        }
        if let fileURL, let lockURL {
            _ = try? FileLock.exclusively(lockURL) {
                if let counted = EnableBankingBudget.read(fileURL) { state.withLock { $0.contents = counted } }
                update()
                save()
            }
        } else {
            update()
        }
    }

    /// "3 of 4 reads today" from three reads of any account; nil before.
    public var note: String? {
        let cutoff = now().addingTimeInterval(-EnableBankingBudget.day)
        let most = state.withLock { state in
            state.contents.reads.filter { $0.key.hasPrefix(session + " ") }.map { $0.value.count { $0 > cutoff } }.max() ?? 0
        }
        guard most >= EnableBankingBudget.warnAt else { return nil }
        return "\(min(most, EnableBankingBudget.daily)) of \(EnableBankingBudget.daily) reads today"
    }

    private func save() {
        guard let fileURL, let data = try? EnableBankingFiles.encoder().encode(state.withLock({ $0.contents })) else { return }
        EnableBankingFiles.writePrivate(data, to: fileURL)
    }

    static func clock(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    /// The `request` of a refusal by the budget (nothing was sent).
    public static let label = "Enable Banking's read budget"
}
