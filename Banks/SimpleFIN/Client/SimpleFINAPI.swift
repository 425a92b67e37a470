import FeedModel
import Foundation
import HTTPTransport

/// SimpleFIN Bridge (US and Canadian banks) as a read-only `BankAPI` (docs/banks.md, SimpleFIN).
///
/// Every screen is answered from `SimpleFINStore`, what SimpleFIN answered so far (kept in the
/// cache directory). A request is one `GET /accounts` for all accounts over one window of at
/// most 90 days, made only when the store lacks something: on a cold start, when the newest
/// window was fetched more than an hour ago, on `r` (one per press, one at a time), or when the
/// activity scrolls past what is kept (the next older window). No timer, no retry loop; each
/// request goes through `SimpleFINBudget`. SimpleFIN has no goals and cannot move money: goals
/// are the accounts the config file names, and `createGoal`/`transfer` refuse without a request.
public struct SimpleFINAPI: BankAPI {
    public static let bridgeURL = URL(string: "https://bridge.simplefin.org/simplefin")!
    public static let source = SourceDescription(
        name: "simplefin", title: "SimpleFIN Bridge", baseURL: bridgeURL, signIn: .token,
        tokenVariables: ["SIMPLEFIN_TOKEN", "QAPITAL_TOKEN"], abilities: [.bankAccount], noGoalCreation: cannotCreateGoals,
        tokenCheck: "a setup token's claim, or GET /accounts", configKeys: ["goals", "goal-targets", "spending"],
        documentation: "docs/banks.md", noMoneyMoves: cannotMoveMoney,
        noRuleMoves: ReadOnlyBank.noRuleMoves("SimpleFIN"), tokenLabel: "Setup token")

    public static let cannotMoveMoney = ReadOnlyBank.noRoundUpMoves("SimpleFIN")
    public static let cannotCreateGoals = ReadOnlyBank.noGoalCreation("SimpleFIN", table: "simplefin")
    /// One request spans at most this (the Bridge's limit).
    public static let window: Int64 = 90 * 86_400
    /// The newest window is asked again after this long (or on `r`).
    public static let staleAfter: TimeInterval = 3_600

    public let access: SimpleFINAccess
    public let settings: Settings
    let session: Session
    public let budget: SimpleFINBudget
    /// Said in the status bar for the whole run (the claimed access URL could not be kept).
    public let startNote: String?
    private let skipped = SkippedRecords()

    /// The config file's `[simplefin]` table, read.
    public struct Settings: Sendable, Equatable {
        /// Accounts shown as goals, by name or id, in order.
        public var goals: [String]
        /// Targets in whole units of the goal's currency, by name or id.
        public var targets: [String: String]
        /// Spending accounts; nil: every ISO-currency account that is not a goal.
        public var spending: [String]?
        /// Where the config file is, as the note without goals shows it (`~/.config/qapital-tui/config.toml`).
        public var configFileShown = "the config file"

        public init(goals: [String] = [], targets: [String: String] = [:], spending: [String]? = nil) {
            self.goals = goals
            self.targets = targets
            self.spending = spending
        }

        /// From the table's text values; a malformed value is one line.
        public static func read(_ table: [String: String]) throws(SimpleFINCredentialError) -> Settings {
            func names(_ text: String?) -> [String]? {
                text.map { $0.split(separator: ";").map { TextSanitizer.clean($0.trimmingCharacters(in: .whitespaces)) }.filter { !$0.isEmpty } }
            }
            var targets: [String: String] = [:]
            for part in (table["goal-targets"] ?? "").split(separator: ";") {
                let trimmed = part.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty else { continue }
                guard let equals = trimmed.lastIndex(of: "="),
                      case let name = trimmed[..<equals].trimmingCharacters(in: .whitespaces), !name.isEmpty,
                      case let amount = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces),
                      SimpleFINAmount.minorUnits(amount, minorDigits: 3) != nil, !amount.hasPrefix("-") else {
                    throw SimpleFINCredentialError(message: "config file, [simplefin] goal-targets: \"\(TextSanitizer.clean(String(trimmed.prefix(40))))\" "
                                                   + "is not NAME = AMOUNT (e.g. High-Yield Savings = 10000)")
                }
                targets[TextSanitizer.clean(name)] = amount
            }
            return Settings(goals: names(table["goals"]) ?? [], targets: targets, spending: names(table["spending"]))
        }
    }

    /// `directory`: the cache directory (the store and the request count live there; nil: this run only);
    /// `budgetDirectory`: where the request count lives instead (nil: `directory`).
    public init(access: SimpleFINAccess, settings: Settings = Settings(), directory: URL?, budgetDirectory: URL? = nil, allowInsecureHTTP: Bool = false,
                log: RequestLog? = nil, forced: Bool = false, headless: Bool = false, timeout: TimeInterval = 30, startNote: String? = nil,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.access = access
        self.settings = settings
        self.startNote = startNote
        let budgetFolder = budgetDirectory ?? directory
        let budget = SimpleFINBudget(fileURL: budgetFolder?.appendingPathComponent("simplefin-requests-\(access.fingerprint).json"),
                                     forced: forced, now: now)
        self.budget = budget
        let transport = HTTPTransport(baseURL: access.root, token: access.basicCredential, timeout: timeout, deadline: 120,
                                      allowInsecureHTTP: allowInsecureHTTP, log: log, scheme: .basic)
        session = Session(transport: transport, budget: budget, file: SimpleFINStoreFile(directory: directory, fingerprint: access.fingerprint),
                          headless: headless, now: now)
    }

    /// Opens SimpleFIN with an access URL: the store as kept, refreshed when it is older than an
    /// hour (one request); a first start asks for the newest 90 days. A refusal is `.unauthorized`.
    public static func connect(access: SimpleFINAccess, settings: Settings, directory: URL?, budgetDirectory: URL? = nil, allowInsecureHTTP: Bool,
                               log: RequestLog?, forced: Bool = false, headless: Bool = false, startNote: String? = nil,
                               now: @escaping @Sendable () -> Date = { Date() }) async throws(APIError) -> SimpleFINAPI {
        do {
            try HTTPTransport.checkTokenTransport(baseURL: access.root, allowInsecureHTTP: allowInsecureHTTP)
        } catch {
            throw APIError(kind: .rejected, request: "GET /accounts", message: "GET /accounts: not sent: \(error.message)")
        }
        let api = SimpleFINAPI(access: access, settings: settings, directory: directory, budgetDirectory: budgetDirectory,
                               allowInsecureHTTP: allowInsecureHTTP,
                               log: log, forced: forced, headless: headless, startNote: startNote, now: now)
        let store = try await api.session.current()
        guard !store.accounts.isEmpty || !store.problems.isEmpty else {
            throw APIError(kind: .notFound, request: "GET /accounts", message: "GET /accounts: SimpleFIN lists no accounts for this access URL")
        }
        return api
    }

    // MARK: - BankAPI

    public var baseURL: URL { access.root }
    public var sourceName: String { session.transport.hostAndPort }
    /// The access URL's fingerprint: the offline cache's partition (never the URL itself).
    public var accountId: String { "simplefin-" + access.fingerprint }
    public var accountCurrency: Currency {
        let store = session.snapshot
        return SimpleFINMapping(store: store, settings: settings).accountCurrency
    }
    public var skippedRecords: SkippedRecords? { skipped }
    public var tokenRefused: Bool { session.transport.tokenRefused }
    public var answersUsersAndRulesItself: Bool { true }
    /// The header carries the spending accounts' balances together (`SimpleFINMapping.feedBalance`).
    public var saysFeedBalance: Bool { true }

    /// An access URL cannot be replaced by another while the app runs: a new one is a new start.
    public func replaceToken(_ token: String) async throws(APIError) {
        throw APIError(kind: .rejected, request: "sign-in", message: "a new SimpleFIN access URL needs a new start of qapital-tui")
    }

    /// The budget's warning or stop, else the Bridge's problems, else the data's age.
    public var statusNote: String? {
        var parts: [String] = startNote.map { [$0] } ?? []
        // The way out of an empty Goals tab first: it is what a new user needs.
        if let noGoals = SimpleFINMapping(store: session.snapshot, settings: settings).noGoalsNote { parts.append(noGoals) }
        if let note = budget.note { parts.append(note) }
        if let problem = session.lastProblem { parts.append(problem) }
        let store = session.snapshot
        parts += SimpleFINMapping.shownProblems(store.problems, store: store)
        parts += SimpleFINMapping(store: store, settings: settings).customNotes
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// `r`: the newest window is asked again at the next look (one request per press); after
    /// the budget's question, this is the yes.
    public func userAskedToRefresh() {
        budget.userAskedAgain()
        session.wantRefresh()
    }

    // MARK: - SavingsAPI

    public func account() async throws -> Account? {
        let store = try await session.current()
        return SimpleFINMapping(store: store, settings: settings).header(now: session.now())
    }

    public func goals() async throws -> [Goal] {
        let store = try await session.current()
        return SimpleFINMapping(store: store, settings: settings).goals(skipped: skipped)
    }

    public func feed(goalId: GoalID) async throws -> [FeedItem] {
        let store = try await session.current()
        return SimpleFINMapping(store: store, settings: settings).feed(accountKey: goalId.rawValue)
    }

    public func rules() async throws -> [SavingsRule] { [] }

    public func user(id: Int) async throws -> User { User(id: id, displayName: "You") }

    public func activities(from: Date, to: Date) async throws -> ActivityPage {
        let store = try await session.covering(from: Int64(from.timeIntervalSince1970.rounded(.down)))
        return SimpleFINMapping(store: store, settings: settings).activities(from: from, to: to)
    }

    public func transactions(from: Date, to: Date) async throws -> [FeedModel.Transaction] {
        let store = try await session.covering(from: Int64(from.timeIntervalSince1970.rounded(.down)))
        return SimpleFINMapping(store: store, settings: settings).transactions(from: from, to: to)
    }

    public func createGoal(name: String, target: Money?) async throws -> Goal {
        throw APIError(kind: .rejected, request: "new goal", message: SimpleFINAPI.cannotCreateGoals)
    }

    public func transfer(goalId: GoalID, transferId: UUID, amount: Money, attempt: TransferAttempt) async throws -> Goal {
        throw APIError(kind: .rejected, request: "transfer", message: SimpleFINAPI.cannotMoveMoney)
    }

    /// Requests sent in the last rolling day (for tests and the status bar).
    public var requestsToday: Int { budget.usedToday }

    // MARK: - The session

    /// The store and the requests that fill it, one at a time.
    final class Session: Sendable {
        let transport: HTTPTransport
        let budget: SimpleFINBudget
        let file: SimpleFINStoreFile
        let headless: Bool
        let now: @Sendable () -> Date
        private let state: Locked<State>
        private let gate = SimpleFINGate()

        struct State {
            var store: SimpleFINStore
            var refreshWanted = false
            var checkedThisRun = false
            var lastProblem: String?
        }

        init(transport: HTTPTransport, budget: SimpleFINBudget, file: SimpleFINStoreFile, headless: Bool, now: @escaping @Sendable () -> Date) {
            self.transport = transport
            self.budget = budget
            self.file = file
            self.headless = headless
            self.now = now
            state = Locked(State(store: file.load() ?? SimpleFINStore()))
        }

        var snapshot: SimpleFINStore { state.withLock { $0.store } }
        var lastProblem: String? { state.withLock { $0.lastProblem } }

        func wantRefresh() { state.withLock { $0.refreshWanted = true } }

        /// The store, with the newest window asked for first when it is missing, older than an
        /// hour, or `r` asked for it. With something kept, a failed request leaves what is kept
        /// (the reason goes to the status bar); with nothing kept, it is thrown.
        func current() async throws(APIError) -> SimpleFINStore {
            try await gate.run { () async throws(APIError) -> SimpleFINStore in
                let (store, wanted) = state.withLock { state in (state.store, state.refreshWanted) }
                let stale = store.lastFetch.map { now().timeIntervalSince($0) > SimpleFINAPI.staleAfter } ?? true
                guard stale || wanted else { return store }
                state.withLock { $0.refreshWanted = false }
                let end = Int64(now().timeIntervalSince1970.rounded(.up)) + 1
                let start = end - SimpleFINAPI.window
                do throws(APIError) {
                    let set = try await fetch(start: start, end: end)
                    return state.withLock { state in
                        state.store.merge(set, start: start, end: end, newest: true, at: now())
                        state.lastProblem = nil
                        file.save(state.store)
                        return state.store
                    }
                } catch {
                    // Headless, the budget's question is a refusal (exit 1) rather than old data.
                    guard !store.isEmpty, !(headless && error.request == SimpleFINBudget.label) else { throw error }
                    state.withLock { $0.lastProblem = error.message }
                    return store
                }
            }
        }

        /// The store covering back to `from` (older windows asked for, one request each, until
        /// it does or SimpleFIN has nothing older).
        func covering(from: Int64) async throws(APIError) -> SimpleFINStore {
            var store = try await current()
            while let coveredFrom = store.coveredFrom, from < coveredFrom, !store.reachedEnd {
                store = try await gate.run { () async throws(APIError) -> SimpleFINStore in
                    let store = state.withLock { $0.store }
                    guard let coveredFrom = store.coveredFrom, from < coveredFrom, !store.reachedEnd else { return store }
                    let end = coveredFrom
                    let start = end - SimpleFINAPI.window
                    let set = try await fetch(start: start, end: end)
                    return state.withLock { state in
                        state.store.merge(set, start: start, end: end, newest: false, at: now())
                        file.save(state.store)
                        return state.store
                    }
                }
            }
            return store
        }

        /// One `GET /accounts` for every account over `[start, end)`, through the budget.
        func fetch(start: Int64, end: Int64) async throws(APIError) -> SimpleFIN.AccountSet {
            let label = "GET /accounts"
            try budget.take(label: label, headless: headless)
            let query = [URLQueryItem(name: "version", value: "2"), URLQueryItem(name: "start-date", value: String(start)),
                         URLQueryItem(name: "end-date", value: String(end)), URLQueryItem(name: "pending", value: "1")]
            let answer = try await transport.answer("GET", "/accounts", query: query, label: label)
            switch answer.status {
            case 200..<300: break
            case 402:
                budget.stop(SimpleFINBudget.unpaid)
                throw APIError(kind: .http(status: 402), request: label, message: "\(label): \(SimpleFINBudget.unpaid)", status: 402)
            case 401, 403:
                budget.stop(SimpleFINBudget.refused)
                _ = transport.error(for: answer, label: label)
                throw APIError(kind: .unauthorized, request: label, message: "\(label): \(SimpleFINBudget.refused)", status: answer.status)
            default:
                throw transport.error(for: answer, label: label)
            }
            let set: SimpleFIN.AccountSet
            do {
                set = try PayloadDecoder().decode(SimpleFIN.AccountSet.self, from: answer.body, resource: label)
            } catch {
                throw APIError(kind: .malformed, request: label, message: error.description)
            }
            for problem in set.errlist {
                switch problem.known {
                case "gen.api":
                    transport.log?.note("SimpleFIN gen.api: " + problem.shown)
                case "gen.auth":
                    budget.stop(SimpleFINBudget.refused)
                case "gen":
                    budget.stop("SimpleFIN warned: \(problem.shown) — no more requests this session")
                default:
                    break
                }
            }
            return set
        }
    }
}

/// Runs one operation at a time, in order: one request in flight at most.
actor SimpleFINGate {
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
