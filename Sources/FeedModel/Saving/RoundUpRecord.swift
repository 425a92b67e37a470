import Foundation

/// One transfer of a week's round-ups as the local record keeps it: which payments it covers,
/// into which goal, how much, under which key, and whether its answer came.
public struct SavedRoundUp: Hashable, Sendable, Codable {
    public enum State: String, Hashable, Sendable, Codable {
        /// Sent (or about to be), no answer yet: it may have moved money. Sent again with the
        /// same key before anything else of its week, so it moves money at most once.
        case pending
        /// The server answered: the money moved (once).
        case saved
        /// The server said the key was already used (another run or machine saved the week): the
        /// week counts as saved, nothing moved now, and the part claims no payment (`payments`
        /// is empty: which ones moved is the other record's to say).
        case savedElsewhere
    }

    /// The idempotency key (Qapital `transferId`, Starling `transferUid`).
    public let key: UUID
    /// "2026-W47"
    public let week: String
    public let goalId: GoalID
    public let goalName: String
    public let amount: Money
    /// The ids of the payments whose round-ups it moves.
    public let payments: [String]
    public let startedAt: Date
    public internal(set) var state: State
    public internal(set) var savedAt: Date?
    /// The savings rule that moved it (its name), nil for the Round-ups tab's week (and the
    /// round-up rule's, which is the same transfer). `week` is then the rule's period: an ISO
    /// week, or a month ("2026-11") for a monthly rule.
    public internal(set) var rule: String?

    public init(key: UUID, week: String, goalId: GoalID, goalName: String, amount: Money, payments: [String],
                startedAt: Date, state: State = .pending, savedAt: Date? = nil, rule: String? = nil) {
        self.key = key
        self.week = week
        self.goalId = goalId
        self.goalName = TextSanitizer.clean(goalName)
        self.amount = amount
        self.payments = payments
        self.startedAt = startedAt
        self.state = state
        self.savedAt = savedAt
        self.rule = rule
    }

    public var isDone: Bool { state != .pending }

    enum CodingKeys: String, CodingKey {
        case key, week, goalId, goalName, minorUnits, currency, minorDigits, payments, startedAt, state, savedAt, rule
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let code = try container.decode(String.self, forKey: .currency)
        let digits = try container.decode(Int.self, forKey: .minorDigits)
        guard (0...4).contains(digits), code.count == 3, code.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw DecodingError.dataCorruptedError(forKey: .currency, in: container, debugDescription: "not a currency")
        }
        let currency = Currency.from(code: code).flatMap { $0.minorDigits == digits ? $0 : nil }
            ?? Currency(code: code, minorDigits: digits)
        self.init(key: try container.decode(UUID.self, forKey: .key),
                  week: try container.decode(String.self, forKey: .week),
                  goalId: try container.decode(GoalID.self, forKey: .goalId),
                  goalName: try container.decode(String.self, forKey: .goalName),
                  amount: Money(minorUnits: try container.decode(Int64.self, forKey: .minorUnits), currency: currency),
                  payments: try container.decode([String].self, forKey: .payments),
                  startedAt: try container.decode(Date.self, forKey: .startedAt),
                  state: try container.decode(State.self, forKey: .state),
                  savedAt: try container.decodeIfPresent(Date.self, forKey: .savedAt),
                  rule: try container.decodeIfPresent(String.self, forKey: .rule))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(week, forKey: .week)
        try container.encode(goalId, forKey: .goalId)
        try container.encode(goalName, forKey: .goalName)
        try container.encode(amount.minorUnits, forKey: .minorUnits)
        try container.encode(amount.currency.code, forKey: .currency)
        try container.encode(amount.currency.minorDigits, forKey: .minorDigits)
        try container.encode(payments, forKey: .payments)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(savedAt, forKey: .savedAt)
        try container.encodeIfPresent(rule, forKey: .rule)
    }
}

/// Where the weeks' transfers are kept across runs (FeedCache keeps them in a file beside the
/// offline cache; `MemoryRoundUpRecord` for the demo and tests).
public protocol RoundUpRecord: Sendable {
    /// The transfers of one week ("2026-W47"), in the order they were started.
    func parts(week: String) -> [SavedRoundUp]
    /// Adds the transfer, or replaces the one with the same key. Throws when it cannot be kept.
    func keep(_ part: SavedRoundUp) throws
    /// Forgets a transfer the server refused (it moved nothing).
    func forget(key: UUID) throws
    /// Every transfer kept, of every week (the journal's `rule:` tags).
    func allParts() -> [SavedRoundUp]
}

/// The savings rules' record: their transfers as a round-up record keeps them (each rule's
/// period under its own key, so one rule's transfer never closes another's), and the week each
/// rule was first read in, from which it may owe (a rule without `since` never owes a week
/// before it was first seen).
public protocol RuleRecord: RoundUpRecord {
    /// The ISO week ("2026-W48") the rule of this name was first read in, if kept.
    func start(of rule: String) -> String?
    /// Keeps the week the rule was first read in (an earlier one kept stays).
    func keepStart(_ week: String, of rule: String) throws
}

/// A record that lives as long as the process (the demo's, whose data is made anew each run).
public final class MemoryRoundUpRecord: RuleRecord {
    private let state = Locked<[SavedRoundUp]>([])
    private let starts = Locked<[String: String]>([:])

    public init() {}

    public func start(of rule: String) -> String? { starts.withLock { $0[rule] } }

    public func keepStart(_ week: String, of rule: String) throws {
        starts.withLock { starts in if starts[rule] == nil { starts[rule] = week } }
    }

    public func parts(week: String) -> [SavedRoundUp] {
        state.withLock { parts in parts.filter { $0.week == week } }
    }

    public func allParts() -> [SavedRoundUp] { state.withLock { $0 } }

    public func keep(_ part: SavedRoundUp) throws {
        state.withLock { parts in
            if let index = parts.firstIndex(where: { $0.key == part.key }) { parts[index] = part } else { parts.append(part) }
        }
    }

    public func forget(key: UUID) throws {
        state.withLock { parts in parts.removeAll { $0.key == key } }
    }
}

/// The one rule for saving a week's round-ups, shared by the Round-ups tab and the
/// `roundups --save` command (docs/roundups.md, "Saved exactly once"):
///
/// - A week is saved whole, once it is over, in one transfer under the week's key, from
///   (source, account, week): every machine that saves the week after it ended sees the same
///   payments and sends the same key and amount, so the server moves them once, whichever
///   machine comes first and whatever crashed or lost its answer before. A week under way is
///   not saved (its payments are not all there yet).
/// - A week with a transfer in the record is closed: nothing more of it is sent under another
///   key. A transfer that got no answer stays pending and is sent again, the same key and
///   amount; a key the server says was used (409) means another machine saved the week.
public struct RoundUpSaver: Sendable {
    public let identity: SaveIdentity
    public let record: any RoundUpRecord

    public init(identity: SaveIdentity, record: any RoundUpRecord) {
        self.identity = identity
        self.record = record
    }

    /// What the record says about a week's payments.
    public struct Progress: Sendable {
        public let week: Week
        /// Transfers with an answer (saved here or elsewhere), oldest first.
        public let saved: [SavedRoundUp]
        /// A transfer without an answer, to send again first.
        public let pending: SavedRoundUp?
        /// Saveable payments in no transfer yet (with a round-up above zero).
        public let remaining: [RoundUp.Line]
        /// Their round-ups, summed (checked).
        public let remainingTotal: Money

        /// The week has ended: only then is it saved.
        public let isOver: Bool
        /// Something was saved (here or elsewhere) and nothing waits for an answer: the week is closed.
        public var isSaved: Bool { pending == nil && !saved.isEmpty }
        /// When the week's last transfer was saved.
        public var lastSavedAt: Date? { saved.compactMap(\.savedAt).max() }
        /// What the transfers with an answer moved; nil when there are none, or when they are in
        /// more than one currency (`currencyProblem` says so).
        public var savedTotal: Money? {
            guard let first = saved.first, saved.allSatisfy({ $0.amount.currency == first.amount.currency }) else { return nil }
            return Money(minorUnits: Money.sum(saved.map(\.amount.minorUnits)), currency: first.amount.currency)
        }
        /// The account's currency when the week was read.
        public let accountCurrency: Currency
        /// Set when the week's record is in another currency than the account's, or in more than one
        /// (`--currency` changed between saves): in words, for a refusal. Nothing of such a week is sent.
        public var currencyProblem: String? {
            let parts = saved + [pending].compactMap { $0 }
            let codes = Set(parts.map(\.amount.currency.code))
            guard !codes.isEmpty, codes != [accountCurrency.code] else { return nil }
            let listed = codes.sorted().joined(separator: " and ")
            return codes.count > 1
                ? "week \(week.isoLabel) was saved in \(listed) (the currency changed between saves); nothing was sent"
                : "week \(week.isoLabel) was saved in \(listed), not \(accountCurrency.code) (--currency); nothing was sent"
        }
    }

    /// What the record says of `week`, whose payments are `summary`'s, at `now`. A week with any
    /// transfer in the record has nothing remaining: it is saved whole, once.
    public func progress(week: Week, summary: RoundUp.Summary, now: Date) -> Progress {
        let parts = record.parts(week: week.isoLabel)
        let remaining = parts.isEmpty ? summary.lines.filter { summary.isSaveable($0) && $0.roundUp.minorUnits > 0 } : []
        let total = Money(minorUnits: Money.sum(remaining.map(\.roundUp.minorUnits)), currency: summary.accountCurrency)
        return Progress(week: week, saved: parts.filter(\.isDone), pending: parts.first { !$0.isDone },
                        remaining: remaining, remainingTotal: total, isOver: now >= week.end, accountCurrency: summary.accountCurrency)
    }

    /// The transfer of the week's round-ups into `goal`, under the week's key: nil while the week
    /// is under way, once anything of it is in the record, or when nothing rounds up. `rule`: the
    /// savings rule that moves it (the round-up rule's name, for the journal's `rule:` tag).
    public func nextPart(_ progress: Progress, goal: Goal, now: Date, rule: String? = nil) -> SavedRoundUp? {
        guard progress.isOver, progress.pending == nil, progress.saved.isEmpty, progress.currencyProblem == nil,
              progress.remainingTotal.minorUnits > 0, record.parts(week: progress.week.isoLabel).isEmpty else { return nil }
        return SavedRoundUp(key: identity.weekKey(progress.week, goal: goal), week: progress.week.isoLabel, goalId: goal.id,
                            goalName: goal.name, amount: progress.remainingTotal, payments: progress.remaining.map(\.id).sorted(),
                            startedAt: now, rule: rule)
    }

    /// How a transfer's attempt ended: the four things a save can say (docs/roundups.md, "After
    /// a lost answer"): nothing moved (`refused`), it may have moved (`unknown`, still so after
    /// checking), it moved (`saved`, by this run), it was already saved (`savedElsewhere`, by
    /// an earlier run or another machine, only when the server or the bank's list says so).
    public enum Outcome: Sendable {
        /// The money moved, by this run: the goal as the server answered. `checked`: the first
        /// answer was lost, and checking (the same key again, or looking, per the source) found it.
        case saved(SavedRoundUp, Goal, checked: Bool)
        /// The key was already used for another transfer: the week was saved by another run.
        /// `said`: the source's own words for it, where it has them ("already saved on DATE into GOAL").
        case savedElsewhere(SavedRoundUp, said: String? = nil)
        /// Refused by the server: nothing moved; the record forgets it.
        case refused(APIError)
        /// No answer, even to the check (or an answer that does not say): kept pending, checked
        /// first by the next save with the same key. `mayHaveMoved`: a request left and its
        /// answer was lost (this attempt's or an earlier one's), so the money may have moved.
        case unknown(any Error, mayHaveMoved: Bool)
        /// Moved, and found moved twice (`SavedTwice`: two runs raced on a source without an
        /// idempotency key): recorded as saved; the message says what to move back by hand.
        case savedTwice(SavedRoundUp, SavedTwice)
    }

    /// Sends `part` (kept as pending first, so a crash or a lost answer sends the same key again).
    ///
    /// A request that left and lost its answer is checked once, at once, by the saver (never by
    /// the transport): the same key again, which the source moves at most once (an idempotency
    /// key, or bunq's look-before-sending); `checking` is told first, so a screen can say so.
    ///
    /// `before` is the goal as it was read before sending: for a first send, an answer whose
    /// balance is the same says the server replayed the key (another run or machine had moved
    /// the money): `.savedElsewhere`, nothing moved now. A transfer sent again is its own.
    public func send(_ part: SavedRoundUp, api: any SavingsAPI, before: Goal? = nil, kind: String? = nil,
                     now: @Sendable () -> Date = { Date() }, checking: @Sendable () async -> Void = {}) async -> Outcome {
        // Sent before (its answer lost): a replayed answer is its own earlier attempt's.
        let resent = record.parts(week: part.week).contains { $0.key == part.key }
        let first = await attempt(part, api: api, before: before, resent: resent, kind: kind, now: now)
        guard case .unknown(let error, let mayHaveMoved) = first, mayHaveMoved else { return first }
        await checking()
        switch await attempt(part, api: api, before: before, resent: true, kind: kind, now: now) {
        case .saved(let done, let goal, _): return .saved(done, goal, checked: true)
        case .unknown(let again, _):
            // The check's own failure says less than the lost answer: both are said.
            return .unknown(CheckFailed(lost: error, check: again), mayHaveMoved: true)
        // A key the server had used answers as used (or replays): a refusal of the same key means
        // neither request moved anything; so does bunq's look that found no payment.
        case let other: return other
        }
    }

    /// The answer to a transfer was lost, and so was the check's.
    public struct CheckFailed: Error, Sendable, CustomStringConvertible {
        public let lost: any Error
        public let check: any Error
        public var description: String {
            let lost = String(describing: lost), check = String(describing: check)
            return lost == check ? "\(lost) (and the check at once: the same)" : "\(lost) (and the check at once: \(check))"
        }
    }

    /// One request of `part` and what its answer says.
    private func attempt(_ part: SavedRoundUp, api: any SavingsAPI, before: Goal?, resent: Bool, kind: String?,
                         now: @Sendable () -> Date) async -> Outcome {
        do {
            try record.keep(part)
        } catch {
            // Without the record a lost answer could not be told from none: nothing is sent.
            return .unknown(RecordProblem(message: "the record of saved round-ups cannot be written (\(error)); nothing was sent"),
                            mayHaveMoved: resent)
        }
        do {
            let goal = try await api.transfer(goalId: part.goalId, transferId: part.key, amount: part.amount,
                                              attempt: TransferAttempt(week: part.week, resent: resent, rule: part.rule, kind: kind))
            var done = part
            // The same key, goal and amount answered as before: the payments moved, under this
            // key, but not now.
            let replayed = !resent && before.map { $0.id == goal.id && $0.balance == goal.balance && part.amount.minorUnits > 0 } ?? false
            done.state = replayed ? .savedElsewhere : .saved
            done.savedAt = now()
            try? record.keep(done)
            return replayed ? .savedElsewhere(done) : .saved(done, goal, checked: false)
        } catch let already as AlreadySaved {
            let done = SavedRoundUp(key: part.key, week: part.week, goalId: part.goalId, goalName: part.goalName,
                                    amount: part.amount, payments: [], startedAt: part.startedAt,
                                    state: .savedElsewhere, savedAt: now(), rule: part.rule)
            try? record.keep(done)
            return .savedElsewhere(done, said: already.message)
        } catch let twice as SavedTwice {
            var done = part
            done.state = .saved
            done.savedAt = now()
            try? record.keep(done)
            return .savedTwice(done, twice)
        } catch let error as APIError {
            if error.status == 409 {
                // Another run or machine saved the week under this key: which payments it covered
                // is its record's to say; this one claims none of them.
                let done = SavedRoundUp(key: part.key, week: part.week, goalId: part.goalId, goalName: part.goalName,
                                        amount: part.amount, payments: [], startedAt: part.startedAt,
                                        state: .savedElsewhere, savedAt: now(), rule: part.rule)
                try? record.keep(done)
                return .savedElsewhere(done)
            }
            // Refused: nothing moved, also for a key sent again (a server answers a used key as
            // used, or replays it; bunq's look found nothing before sending).
            if RoundUpSaver.isRefusal(error) {
                try? record.forget(key: part.key)
                return .refused(error)
            }
            return .unknown(error, mayHaveMoved: resent || error.mayHaveArrived || RoundUpSaver.isLost(error))
        } catch {
            return .unknown(error, mayHaveMoved: true)
        }
    }

    /// An answer after which the transfer may have been made: a 5xx, a 408 or 429 (which some
    /// servers send after acting), an answer that cannot be read (it came, but does not say), or
    /// one the transport says left without an answer.
    static func isLost(_ error: APIError) -> Bool { error.mayHaveActed }

    /// An answer that says nothing moved: a 4xx other than 401 (a token refused before the
    /// request was read also moved nothing, but is kept to send again once signed in), 408 and 429.
    static func isRefusal(_ error: APIError) -> Bool {
        guard let status = error.status, (400..<500).contains(status) else { return false }
        return ![401, 408, 429].contains(status)
    }

    public struct RecordProblem: Error, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }
}
