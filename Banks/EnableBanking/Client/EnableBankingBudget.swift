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

    /// The count as the file keeps it: none yet (no file), or nil when the file is there but
    /// cannot be read or decoded (then the count is not known).
    static func load(_ fileURL: URL) -> Contents? {
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return Contents() }
        return read(fileURL)
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

    /// What the budget decided for the accounts a look wants read.
    public struct Decision: Sendable {
        /// The accounts that may be read now, each counted.
        public var taken: [String] = []
        /// The others, each with why; nothing is sent to them.
        public var refused: [(account: String, error: APIError)] = []
        /// When the taken reads were counted (whole seconds, as the file keeps them): what
        /// `giveBack` takes back.
        public var at = Date.distantPast
    }

    /// Before one read of `account` (both endpoints): throws, sending nothing, when it is refused
    /// (`takeAll`); counts the read when it may go. `shown`: the account's name in the refusal.
    public func take(_ account: String, shown: String, headless: Bool) throws(APIError) {
        if let refused = takeAll([(account, shown)], headless: headless).refused.first { throw refused.error }
    }

    /// Before a look reads `accounts` (both endpoints each): every account decided under one lock
    /// of the file, before anything is sent. An account is refused when the bank said its limit is
    /// reached, or when four reads were made today and nobody said yes. Headless it is all or
    /// nothing: one refusal refuses every account and counts nothing, so a command that cannot
    /// answer spends no read; the app reads what it may and shows what is kept for the rest.
    ///
    /// The count must be kept for an unattended read: headless, a count file that cannot be
    /// locked, read or written refuses every account (nothing sent), since another process could
    /// not see the read. The app goes on with its own count (the user is there to ask).
    public func takeAll(_ accounts: [(key: String, shown: String)], headless: Bool) -> Decision {
        guard !accounts.isEmpty else { return Decision() }
        if let fileURL, let lockURL {
            try? FileManager.default.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
            let locked = try? FileLock.exclusively(lockURL) { () -> Decision in
                guard let counted = EnableBankingBudget.load(fileURL) else {
                    return headless ? refuseAll(accounts, "the read count in \(fileURL.path) cannot be read") : decide(accounts, headless: false, counted: nil)
                }
                let decision = decide(accounts, headless: headless, counted: counted)
                if !decision.taken.isEmpty && !save() && headless {
                    return refuseAll(accounts, "the read count cannot be written to \(fileURL.path)")
                }
                return decision
            }
            if let locked { return locked }
            if headless { return refuseAll(accounts, "the read count cannot be locked (\(lockURL.path))") }
        }
        let decision = decide(accounts, headless: headless, counted: nil)
        if !decision.taken.isEmpty { save() }
        return decision
    }

    /// Every account refused for `why` (the count cannot be kept): nothing is sent.
    private func refuseAll(_ accounts: [(key: String, shown: String)], _ why: String) -> Decision {
        let error = APIError(kind: .rejected, request: EnableBankingBudget.label,
                             message: TextSanitizer.clean(why) + ": nothing was sent (unattended reads must be counted)")
        return Decision(taken: [], refused: accounts.map { ($0.key, error) })
    }

    /// Reads counted at `at` (a decision's) that were never sent (the look stopped first, or the
    /// bank could not be reached at all): taken back, so they do not stand against the budget.
    public func giveBack(_ accounts: [String], takenAt at: Date) {
        guard !accounts.isEmpty else { return }
        change { state in
            for account in accounts {
                for endpoint in Endpoint.allCases {
                    let key = self.key(account, endpoint)
                    guard var times = state.contents.reads[key], let index = times.lastIndex(of: at) else { continue }
                    times.remove(at: index)
                    state.contents.reads[key] = times.isEmpty ? nil : times
                }
            }
        }
    }

    /// Changes the count as the file has it now, under its lock, and writes it back (without a
    /// file: this process's count only).
    private func change(_ update: (inout State) -> Void) {
        guard let fileURL, let lockURL else {
            state.withLock { update(&$0) }
            return
        }
        _ = try? FileLock.exclusively(lockURL) {
            state.withLock { state in
                if let counted = EnableBankingBudget.read(fileURL) { state.contents = counted }
                update(&state)
            }
            save()
        }
    }

    private func decide(_ accounts: [(key: String, shown: String)], headless: Bool, counted: Contents?) -> Decision {
        // Whole seconds, rounded up: the file keeps no fractions, and a read kept a moment late
        // rolls over a moment late (never early).
        let date = Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.up))
        let cutoff = date.addingTimeInterval(-EnableBankingBudget.day)
        return state.withLock { state in
            if let counted { state.contents = counted }
            var next = state
            var decision = Decision()
            decision.at = date
            for (account, shown) in accounts {
                if let refusal = refusal(account, shown: shown, headless: headless, state: &next, at: date) {
                    decision.refused.append((account, APIError(kind: .rejected, request: EnableBankingBudget.label, message: refusal)))
                    continue
                }
                for endpoint in Endpoint.allCases {
                    let times = (next.contents.reads[key(account, endpoint)] ?? []).filter { $0 > cutoff } + [date]
                    next.contents.reads[key(account, endpoint)] = times
                }
                decision.taken.append(account)
            }
            if headless && !decision.refused.isEmpty {
                decision.taken = []
                return decision
            }
            // What rolled over is dropped, every session's.
            next.contents.reads = next.contents.reads.compactMapValues { times in
                let kept = times.filter { $0 > cutoff }
                return kept.isEmpty ? nil : kept
            }
            next.contents.limited = next.contents.limited.filter { $0.value > date }
            state = next
            return decision
        }
    }

    /// Why `account` may not be read now (nil: it may); a yes it used is spent.
    private func refusal(_ account: String, shown: String, headless: Bool, state: inout State, at date: Date) -> String? {
        if let until = state.contents.limited["\(session) \(account)"], until > date {
            let when = EnableBankingBudget.clock(until)
            return headless
                ? "the bank's daily limit of reads of \(shown) is used up until \(when): nothing was sent"
                : "\(shown): the bank's daily limit of reads is used up until \(when); showing what is kept"
        }
        let cutoff = date.addingTimeInterval(-EnableBankingBudget.day)
        let used = Endpoint.allCases.map { (state.contents.reads[key(account, $0)] ?? []).count { $0 > cutoff } }.max() ?? 0
        guard used >= EnableBankingBudget.daily && !forced else { return nil }
        guard state.allowedPast.contains(account) else {
            state.asked.insert(account)
            return headless
                ? "\(used) of \(EnableBankingBudget.daily) reads of \(shown) used today: --force reads anyway"
                : "\(used) of \(EnableBankingBudget.daily) reads of \(shown) used today: r asks whether to read anyway"
        }
        state.allowedPast.remove(account)
        return nil
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
        change { state in
            let cutoff = date.addingTimeInterval(-EnableBankingBudget.day)
            let oldest = Endpoint.allCases.flatMap { state.contents.reads[self.key(account, $0)] ?? [] }.filter { $0 > cutoff }.min()
            state.contents.limited["\(self.session) \(account)"] = (oldest ?? date).addingTimeInterval(EnableBankingBudget.day)
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

    /// Writes the count; whether it was written.
    @discardableResult
    private func save() -> Bool {
        guard let fileURL, let data = try? EnableBankingFiles.encoder().encode(state.withLock({ $0.contents })) else { return false }
        return EnableBankingFiles.writePrivate(data, to: fileURL)
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
