import FeedModel
import Foundation
import HTTPTransport

/// EU and UK banks through Enable Banking as a read-only `BankAPI` (docs/banks.md, Enable Banking).
///
/// Every screen is answered from `EnableBankingStore`, what the bank answered so far (kept in
/// the cache folder). A start reads each account once, one at a time, only when the last read is
/// older than `refresh-after`; `r` reads every account once per press. No timer, no retry loop;
/// each read goes through `EnableBankingBudget` (four a day per account). Past the consent's end
/// nothing is sent: the store is shown, marked, with the way out. Nothing is ever written to
/// the bank: goals are the accounts the config file names, and `createGoal`/`transfer` refuse.
public struct EnableBankingAPI: BankAPI {
    public static let source: SourceDescription = {
        var source = SourceDescription(
            name: "enablebanking", title: "Enable Banking", baseURL: EnableBankingClient.apiURL, signIn: .token, tokenVariables: [],
            abilities: [.bankAccount], noGoalCreation: cannotCreateGoals,
            tokenCheck: "the key file and the session qapital-tui login enablebanking kept", configKeys: EnableBankingSettings.keys,
            documentation: "docs/banks.md", noMoneyMoves: cannotMoveMoney,
            noRuleMoves: ReadOnlyBank.noRuleMoves("Enable Banking"), tokenLabel: "Session")
        source.historyBeginning = "the bank gave history from"
        return source
    }()

    public static let cannotMoveMoney = ReadOnlyBank.noRoundUpMoves("Enable Banking")
    public static let cannotCreateGoals = ReadOnlyBank.noGoalCreation("Enable Banking", table: "enablebanking")
    /// What a new sign-in is: `L` in the app (its consent sign-in screen), or the command.
    public static let wayOut = "press L or run qapital-tui login enablebanking"
    /// The first read asks this far back (old history often comes only right after the bank sign-in).
    public static let firstHistoryDays = 730
    /// Later reads start this many days before the newest booking date kept.
    public static let overlapDays = 10

    public let client: EnableBankingClient
    public let settings: EnableBankingSettings
    public let record: EnableBankingSessionRecord
    public let bank: String
    public let fingerprint: String
    public let budget: EnableBankingBudget
    let session: Session
    private let skipped = SkippedRecords()

    /// `directory`: the cache folder (the store; nil: this run only); `budgetDirectory`: where the
    /// read count lives (nil: `directory`); `psu`: the PSU headers when the user is present.
    public init(client: EnableBankingClient, settings: EnableBankingSettings, record: EnableBankingSessionRecord, bank: String,
                fingerprint: String, sessionFile: EnableBankingSessionFile?, directory: URL?, budgetDirectory: URL?, psu: EnableBankingClient.PSU?,
                headless: Bool, forced: Bool, now: @escaping @Sendable () -> Date = { Date() }) {
        self.client = client
        self.settings = settings
        self.record = record
        self.bank = bank
        self.fingerprint = fingerprint
        let budget = EnableBankingBudget(fileURL: (budgetDirectory ?? directory)?.appendingPathComponent("enablebanking-reads-\(fingerprint).json"),
                                         sessionId: record.sessionId, forced: forced, now: now)
        self.budget = budget
        session = Session(client: client, budget: budget, file: EnableBankingStoreFile(directory: directory, fingerprint: fingerprint),
                          record: record, sessionFile: sessionFile, fingerprint: fingerprint, settings: settings, bank: bank, psu: psu,
                          headless: headless, now: now)
    }

    /// Opens the session: the store as kept, read when it is older than `refresh-after`.
    /// Headless past the consent's end, or with nothing kept and nothing readable: thrown.
    /// The request a read the bank refused with 429 (`ASPSP_RATE_LIMIT_EXCEEDED`) is reported as.
    public static let bankLimitLabel = "Enable Banking's daily limit at the bank"

    public static func connect(_ api: EnableBankingAPI) async throws(APIError) -> EnableBankingAPI {
        let store = try await api.session.current()
        guard !store.accounts.isEmpty else {
            throw APIError(kind: .notFound, request: "GET /accounts", message: "the Enable Banking session lists no accounts")
        }
        return api
    }

    // MARK: - BankAPI

    public var baseURL: URL { client.transport.baseURL }
    public var sourceName: String { client.transport.hostAndPort }
    /// The fingerprint (origin, application, bank, country): the offline cache's partition, never an id.
    public var accountId: String { "enablebanking-" + fingerprint }
    public var accountCurrency: Currency { EnableBankingMapping(store: session.snapshot, settings: settings).accountCurrency }
    public var skippedRecords: SkippedRecords? { skipped }
    public var tokenRefused: Bool { session.signInNeeded != nil }
    public var answersUsersAndRulesItself: Bool { true }

    /// No token replaces a consent: after a new sign-in (the app's `L`, or `login enablebanking`
    /// meanwhile) the newest session recorded for this bank is taken up, with what that sign-in
    /// read; without one, the way out.
    public func replaceToken(_ token: String) async throws(APIError) {
        guard session.adoptNewestSession() else {
            throw APIError(kind: .rejected, request: "sign-in", message: "a new Enable Banking consent is a new sign-in: " + EnableBankingAPI.wayOut)
        }
    }

    /// The consent's end, then the goals' way, then the budget, then the last problem.
    public var statusNote: String? {
        var parts: [String] = []
        if let consent = session.consentNote { parts.append(consent) }
        let mapping = EnableBankingMapping(store: session.snapshot, settings: settings)
        if let noGoals = mapping.noGoalsNote { parts.append(noGoals) }
        if let unmatched = mapping.unmatchedNote { parts.append(unmatched) }
        if let note = budget.note { parts.append(note) }
        if let problem = session.lastProblem { parts.append(problem) }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// From 14 days before the consent's end: "The consent with BANK ends in N days: press L or
    /// run qapital-tui login enablebanking" (once it ended a command exits 77 instead).
    /// Goals or spending accounts named in the config file that match no account are named too,
    /// and a read that failed while what was kept is answered (`ASPSP_ERROR`, an account gone).
    public var headlessWarning: String? {
        let parts = [session.endedNote == nil ? session.consentNote : nil,
                     EnableBankingMapping(store: session.snapshot, settings: settings).unmatchedNote,
                     session.lastProblem].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// `r`: every account is read at the next look (one read each per press); one past its
    /// four reads today only after the question's yes (`readPastBudget`).
    public func userAskedToRefresh() {
        session.wantRefresh()
    }

    /// Each spending account's rows: the account (the 12 hex its rows' ids begin with, and its
    /// name) and whether the row is pending.
    public var activityDetails: [String: ActivityDetails] {
        EnableBankingMapping(store: session.snapshot, settings: settings).activityDetails
    }

    /// Each spending account and each goal account with its booked balance: a whole export
    /// opens and asserts each on its own (`EnableBankingMapping.bookedBalances`).
    public var bookedBalances: [BookedBalance] {
        EnableBankingMapping(store: session.snapshot, settings: settings).bookedBalances
    }

    /// The app asks this before `r` reads: nil, or the question for the accounts past their four.
    public var readQuestion: String? {
        budget.question(session.snapshot.accounts.map { ($0.account.key, $0.account.shownName) })
    }

    /// The question's yes: one read more of each account past its four.
    public func readPastBudget() {
        budget.allowPast(session.snapshot.accounts.map(\.account.key))
    }

    // MARK: - SavingsAPI

    public func account() async throws -> Account? {
        let store = try await session.current()
        return EnableBankingMapping(store: store, settings: settings).header(bank: bank, consent: session.consentShort)
    }

    public func goals() async throws -> [Goal] {
        EnableBankingMapping(store: try await session.current(), settings: settings).goals(skipped: skipped)
    }

    public func feed(goalId: GoalID) async throws -> [FeedItem] {
        EnableBankingMapping(store: try await session.current(), settings: settings).feed(accountKey: goalId.rawValue)
    }

    public func rules() async throws -> [SavingsRule] { [] }

    public func user(id: Int) async throws -> User { User(id: id, displayName: "You") }

    public func activities(from: Date, to: Date) async throws -> ActivityPage {
        EnableBankingMapping(store: try await session.current(), settings: settings).activities(from: from, to: to)
    }

    public func transactions(from: Date, to: Date) async throws -> [FeedModel.Transaction] {
        EnableBankingMapping(store: try await session.current(), settings: settings).transactions(from: from, to: to)
    }

    public func createGoal(name: String, target: Money?) async throws -> Goal {
        throw APIError(kind: .rejected, request: "new goal", message: EnableBankingAPI.cannotCreateGoals)
    }

    public func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
        throw APIError(kind: .rejected, request: "transfer", message: EnableBankingAPI.cannotMoveMoney)
    }

    /// The store as kept (for tests and `logout`).
    public var store: EnableBankingStore { session.snapshot }

    // MARK: - The session

    /// The store and the reads that fill it, one at a time.
    final class Session: Sendable {
        let client: EnableBankingClient
        let budget: EnableBankingBudget
        let file: EnableBankingStoreFile
        let sessionFile: EnableBankingSessionFile?
        let fingerprint: String
        let settings: EnableBankingSettings
        let bank: String
        let psu: EnableBankingClient.PSU?
        let headless: Bool
        let now: @Sendable () -> Date
        private let state: Locked<State>
        private let gate = EnableBankingGate()

        struct State {
            var store: EnableBankingStore
            var record: EnableBankingSessionRecord
            var refreshWanted = false
            /// A start reads once however many screens look; `r` reads again.
            var readThisRun = false
            var lastProblem: String?
            /// Why nothing more is read this session (the key refused, the consent ended at the bank).
            var stopped: String?
            var signInNeeded: String?
        }

        init(client: EnableBankingClient, budget: EnableBankingBudget, file: EnableBankingStoreFile, record: EnableBankingSessionRecord,
             sessionFile: EnableBankingSessionFile?, fingerprint: String, settings: EnableBankingSettings, bank: String,
             psu: EnableBankingClient.PSU?, headless: Bool, now: @escaping @Sendable () -> Date) {
            self.bank = TextSanitizer.clean(bank)
            self.client = client
            self.budget = budget
            self.file = file
            self.sessionFile = sessionFile
            self.fingerprint = fingerprint
            self.settings = settings
            self.psu = psu
            self.headless = headless
            self.now = now
            var store = file.load() ?? EnableBankingStore()
            store.adopt(record.accounts)
            state = Locked(State(store: store, record: record))
        }

        var snapshot: EnableBankingStore { state.withLock { $0.store } }
        var lastProblem: String? { state.withLock { $0.lastProblem } }
        var signInNeeded: String? { state.withLock { $0.signInNeeded } }
        var record: EnableBankingSessionRecord { state.withLock { $0.record } }

        func wantRefresh() { state.withLock { $0.refreshWanted = true } }

        /// Takes up the newest session recorded for this bank when it is another one that
        /// holds: what its sign-in read (the store file), its count, nothing stopped. Whether it did.
        func adoptNewestSession() -> Bool {
            let current = record
            guard let sessionFile,
                  let newest = sessionFile.newest(origin: current.origin, applicationId: current.applicationId, aspsp: current.aspsp,
                                                  country: current.country),
                  newest.sessionId != current.sessionId, newest.endedEarly == nil, !newest.hasEnded(at: now())
            else { return false }
            budget.adopt(sessionId: newest.sessionId)
            state.withLock { state in
                var store = file.load() ?? state.store
                store.adopt(newest.accounts)
                state.store = store
                state.record = newest
                state.stopped = nil
                state.signInNeeded = nil
                state.lastProblem = nil
                // The sign-in read every account just now: the next look shows it, `r` reads again.
                state.readThisRun = true
                state.refreshWanted = false
            }
            return true
        }

        static func day(_ date: Date) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd"
            return formatter.string(from: date)
        }

        /// "consent ended 2027-05-28: run qapital-tui login enablebanking", or nil while it holds.
        var endedNote: String? {
            let record = self.record
            guard record.hasEnded(at: now()) else { return nil }
            let date = record.endDate().map(Session.day) ?? record.validUntil
            return "consent ended \(date): " + EnableBankingAPI.wayOut
        }

        /// The header's word on the consent: "87 days left", or "consent ended DATE".
        var consentShort: String {
            let record = self.record
            if record.hasEnded(at: now()) { return "consent ended " + (record.endDate().map(Session.day) ?? record.validUntil) }
            let days = record.daysLeft(at: now())
            return days == 1 ? "1 day left" : "\(days) days left"
        }

        /// The status bar's: ended, or ending within 14 days.
        var consentNote: String? {
            if let ended = endedNote { return "The " + ended }
            let days = record.daysLeft(at: now())
            guard days <= 14 else { return nil }
            return "The consent with \(bank) ends in \(days == 1 ? "1 day" : "\(days) days"): " + EnableBankingAPI.wayOut
        }

        /// The store, every account read first when the last read is older than `refresh-after`
        /// or `r` asked. Past the consent's end nothing is sent (headless: thrown, 77). A failed
        /// read leaves what is kept, its reason in the status bar (headless: thrown with nothing kept).
        func current() async throws(APIError) -> EnableBankingStore {
            try await gate.run { () async throws(APIError) -> EnableBankingStore in
                let (store, wanted, stopped, readThisRun) = state.withLock { ($0.store, $0.refreshWanted, $0.stopped, $0.readThisRun) }
                if let ended = endedNote {
                    if headless || store.lastRead == nil && store.accounts.allSatisfy({ $0.lastRead == nil }) {
                        throw APIError(kind: .unauthorized, request: "consent", message: "the " + ended)
                    }
                    return store
                }
                let stale = store.lastRead.map { now().timeIntervalSince($0) >= settings.refreshAfter } ?? true
                guard (stale && !readThisRun) || wanted, stopped == nil else { return store }
                state.withLock { state in
                    state.refreshWanted = false
                    state.readThisRun = true
                }
                // Every account is decided before anything is sent: headless, one refusal refuses
                // the command whole (exit 1, no read spent); the app reads what it may.
                let decision = budget.takeAll(store.accounts.map { ($0.account.key, $0.account.shownName) }, headless: headless)
                if headless, let refused = decision.refused.first?.error {
                    state.withLock { $0.lastProblem = refused.message }
                    throw refused
                }
                let refusals = Dictionary(decision.refused.map { ($0.account, $0.error) }, uniquingKeysWith: { first, _ in first })
                var failures: [APIError] = []
                var unsent: [String] = []
                var stoppedEarly = false
                for data in store.accounts {
                    if let refused = refusals[data.account.key] {
                        failures.append(refused)
                        continue
                    }
                    guard decision.taken.contains(data.account.key) else { continue }
                    // Counted but never sent (the look stopped at an earlier account): given back below.
                    if stoppedEarly {
                        unsent.append(data.account.key)
                        continue
                    }
                    do throws(APIError) {
                        try await read(data)
                    } catch {
                        failures.append(error)
                        // The bank was not reached at all (its first request could not connect): no read was made.
                        if error.kind == .cannotConnect && error.request.hasSuffix("/balances") { unsent.append(data.account.key) }
                        if state.withLock({ $0.stopped }) != nil { stoppedEarly = true }
                        // Headless, the bank's limit is the command's answer (exit 1): no more reads for it.
                        if headless && error.request == EnableBankingAPI.bankLimitLabel { stoppedEarly = true }
                    }
                }
                budget.giveBack(unsent, takenAt: decision.at)
                let after = state.withLock { state in
                    state.lastProblem = failures.first?.message
                    return state.store
                }
                file.save(after)
                if let first = failures.first {
                    let nothingKept = after.accounts.allSatisfy { $0.lastRead == nil }
                    // Headless: the budget's refusal, the bank's 429 and an ended consent are the
                    // answer (exit 1 or 77 with the bank's words), not old data; the cache stays.
                    let refused = failures.first { $0.request == EnableBankingBudget.label || $0.request == EnableBankingAPI.bankLimitLabel }
                    if nothingKept { throw first }
                    if headless, let refused = first.kind == .unauthorized ? first : refused { throw refused }
                }
                return after
            }
        }

        /// One read of one account the budget took: its balances, then its transactions with every page.
        private func read(_ data: EnableBankingStore.AccountData) async throws(APIError) {
            let key = data.account.key
            let shown = data.account.shownName
            let today = Session.day(now())
            let first = data.lastRead == nil
            let from: String = if first {
                Session.day(now().addingTimeInterval(-Double(EnableBankingAPI.firstHistoryDays) * 86_400))
            } else {
                data.newestBooked.flatMap { EnableBankingSessionRecord.date($0 + "T00:00:00Z") }
                    .map { Session.day($0.addingTimeInterval(-Double(EnableBankingAPI.overlapDays) * 86_400)) } ?? today
            }
            do throws(EnableBankingFailure) {
                let balances = try await client.balances(uid: data.account.uid, psu: psu)
                let rows = try await client.transactions(uid: data.account.uid, dateFrom: from, dateTo: first ? nil : today, longest: first, psu: psu)
                state.withLock { state in
                    state.store.takeBalances(balances, accountKey: key)
                    state.store.takeTransactions(rows, accountKey: key, dateFrom: from, at: now())
                }
            } catch {
                settle(error, key: key, shown: shown)
                let request = if case .rateLimited = error.reading { EnableBankingAPI.bankLimitLabel } else { error.error.request }
                throw APIError(kind: error.error.kind, request: request, message: "\(shown): " + error.error.message,
                               status: error.error.status)
            }
        }

        /// What a failed read means for the rest of the session.
        private func settle(_ failure: EnableBankingFailure, key: String, shown: String) {
            switch failure.reading {
            case .rateLimited:
                budget.bankLimited(key)
                state.withLock { $0.store.mark("the bank's daily limit is used up", accountKey: key) }
            case .accountUnavailable:
                state.withLock { $0.store.mark("cannot be read now", accountKey: key) }
            case .signInAgain, .keyRefused:
                var ended: EnableBankingSessionRecord?
                state.withLock { state in
                    state.stopped = failure.error.message
                    state.signInNeeded = failure.error.message
                    if failure.endsConsent {
                        state.record.endedEarly = failure.code
                        state.record.endedAt = now()
                        ended = state.record
                    }
                }
                if let ended { sessionFile?.keep(ended, for: fingerprint) }
            case .notAllowed:
                state.withLock { $0.stopped = failure.error.message }
            case .bankUnavailable, .needsUser, .other:
                break
            }
        }
    }
}

/// Runs one operation at a time, in order: one read in flight at most.
actor EnableBankingGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func run<Value: Sendable>(_ operation: () async throws(APIError) -> Value) async throws(APIError) -> Value {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        }
        busy = true
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await operation()
    }
}
