import Foundation

/// The Round-ups tab's data: one week's payments (loaded through the API, stale answers
/// dropped) and the transfer of its total into a goal.
///
/// What is saved, what is left and each transfer's `transferId` follow `RoundUpSaver`: a week is
/// saved whole once it is over, under an id from (source, account, week), kept in the
/// `RoundUpRecord` before it is sent. A retry, a restart or another machine sends the same id,
/// so a week's round-ups move once; a saved week shows as saved.
@MainActor
public final class RoundUpStore {
    /// One transfer of a week's round-ups, through all its attempts.
    public struct Transfer: Hashable, Sendable {
        public enum Phase: Hashable, Sendable {
            case sending
            /// The answer was lost: the saver checks with the same key (or looks, per the source).
            case checking
            /// Nothing moved (refused, or never sent): what happened, in words.
            case failed(String)
            /// A request left and no answer came, not even to the check: the money may have
            /// moved. `s` checks again with the same key.
            case mayHaveMoved(String)
            /// The goal as the server answered, with its new balance. `checked`: found moved by
            /// checking after a lost answer.
            case succeeded(Goal, checked: Bool = false)
            /// The id was already used: another run or machine saved these round-ups; nothing moved
            /// now. `said`: the source's own words when it knows more (a bank without idempotency
            /// keys finds its mark: "already saved on 27 Nov 2026 into Dog").
            case savedElsewhere(said: String? = nil)
        }

        public let id: UUID
        public let week: Week
        public let goalId: GoalID
        public let goalName: String
        public let amount: Money
        public internal(set) var phase: Phase
        /// Requests sent so far with this id.
        public internal(set) var attempts: Int
        /// The transfer as the record keeps it (its key, payments and amount).
        public let part: SavedRoundUp

        init(part: SavedRoundUp, week: Week, phase: Phase) {
            id = part.key
            self.week = week
            goalId = part.goalId
            goalName = part.goalName
            amount = part.amount
            self.phase = phase
            attempts = 0
            self.part = part
        }

        public var isSending: Bool { phase == .sending || phase == .checking }
        /// What went wrong, while `s` may act on it (nothing moved, or it may have moved).
        public var failureMessage: String? {
            switch phase {
            case .failed(let message), .mayHaveMoved(let message): message
            default: nil
            }
        }
    }

    /// Why the week cannot be saved now, in words for the screen.
    public enum SaveProblem: Error, Hashable, Sendable {
        case notLoaded
        case nothingToSave
        case inFlight
        case failedTransferPending
        /// Every payment of the week is in a transfer with an answer: the last one.
        case alreadySaved(SavedRoundUp)
        /// The week's record is in another currency than the account's, or in more than one.
        case currencyMismatch(String)
        /// The week is under way: it is saved whole once it is over (on the day given).
        case weekUnderWay(endsOn: String)

        public var message: String {
            switch self {
            case .notLoaded: "The week's payments have not loaded yet."
            case .nothingToSave: "Nothing to save: the round-ups come to zero."
            case .inFlight: "A transfer is still in flight."
            case .failedTransferPending: "A failed transfer is waiting: retry it with s or r, or drop it with Esc."
            case .currencyMismatch(let problem): problem.prefix(1).uppercased() + problem.dropFirst() + "."
            case .weekUnderWay(let day): "This week is under way: save it from \(day)."
            case .alreadySaved(let part):
                part.state == .savedElsewhere
                    ? "Already saved (by another run or machine)."
                    : "Already saved: \(part.amount.formatted) into \(part.goalName)\(part.savedAt.map { " on " + RoundUpStore.dayText($0) } ?? "")."
            }
        }
    }

    public let accountCurrency: Currency
    /// What payments in the account's currency round up to, in minor units (nil: the currency's default).
    public let roundUpStep: Int64?
    public let calendar: Calendar
    public private(set) var week: Week
    public private(set) var status: LoadStatus = .idle
    /// The shown week's payments, once loaded.
    public private(set) var summary: RoundUp.Summary?
    /// The latest transfer (in flight, failed, or done), until dismissed.
    public private(set) var transfer: Transfer?
    /// What the record says of the shown week, once its payments are loaded.
    public private(set) var progress: RoundUpSaver.Progress?
    public let saver: RoundUpSaver
    /// The last `historyWeeks` weeks' saveable round-ups through the current week, oldest first
    /// (empty until loaded): one request for the whole span, so the same rule as a week's.
    public private(set) var history: [WeekTotal] = []
    public private(set) var historyStatus: LoadStatus = .idle
    public static let historyWeeks = 12
    private var historyGeneration = 0
    private let events: EventSink<StoreEvent>

    private let api: any SavingsAPI
    private let goals: GoalStore
    private let now: @Sendable () -> Date
    private var generation = 0
    private var pending = 0

    public init(api: any SavingsAPI, goals: GoalStore, accountCurrency: Currency, roundUpStep: Int64? = nil, calendar: Calendar,
                now: @escaping @Sendable () -> Date = { Date() }, events: EventSink<StoreEvent> = .ignored,
                saver: RoundUpSaver = RoundUpSaver(identity: .demo, record: MemoryRoundUpRecord())) {
        self.api = api
        self.roundUpStep = roundUpStep
        self.saver = saver
        self.events = events
        self.goals = goals
        self.accountCurrency = accountCurrency
        self.calendar = calendar
        self.now = now
        week = Week(containing: now(), calendar: calendar)
    }

    public var isBusy: Bool { pending > 0 }
    public var currentWeek: Week { Week(containing: now(), calendar: calendar) }
    public var isCurrentWeek: Bool { week == currentWeek }
    /// Weeks after the current one have no payments yet: never shown.
    public var canShowNextWeek: Bool { week < currentWeek }

    // MARK: - Weeks

    /// Loads the shown week (again). What is shown stays until the answer arrives.
    public func load() {
        generation += 1
        let generation = self.generation
        let week = self.week
        status = .loading
        pending += 1
        let api = self.api
        Task { [weak self] in
            let result: Result<[Transaction], Error>
            do {
                result = .success(try await api.transactions(from: week.start, to: week.end))
            } catch {
                result = .failure(error)
            }
            self?.finishLoad(result, generation: generation)
        }
        events.send(.week)
    }

    private func finishLoad(_ result: Result<[Transaction], Error>, generation: Int) {
        pending -= 1
        // An answer for a week the user has left (or an older load of this one) is dropped.
        guard generation == self.generation else {
            events.send(.week)
            return
        }
        switch result {
        case .success(let transactions):
            // Only what lies in the week, whatever the server sent.
            let inWeek = transactions.filter { week.contains($0.timestamp) }
            summary = RoundUp.Summary(transactions: inWeek, accountCurrency: accountCurrency, step: roundUpStep)
            status = .loaded
            readProgress()
            // A transfer of this week that got no answer in an earlier run: offered to send again.
            if transfer == nil, let pending = progress?.pending {
                transfer = Transfer(part: pending, week: week,
                                    phase: .mayHaveMoved("an earlier save got no answer; it may have moved the money"))
            }
            patchHistory()
        case .failure(let error):
            status = .failed(GoalStore.message(error, request: "GET /transactions"))
        }
        events.send(.week)
    }

    /// Loads the last twelve weeks' totals (again) with one request for their whole span.
    public func loadHistory() {
        historyGeneration += 1
        let generation = historyGeneration
        let current = currentWeek
        var first = current
        for _ in 1..<Self.historyWeeks { first = first.previous }
        historyStatus = .loading
        pending += 1
        let api = self.api
        Task { [weak self, first] in
            let result: Result<[Transaction], Error>
            do {
                result = .success(try await api.transactions(from: first.start, to: current.end))
            } catch {
                result = .failure(error)
            }
            self?.finishHistory(result, generation: generation, through: current.start)
        }
        events.send(.week)
    }

    private func finishHistory(_ result: Result<[Transaction], Error>, generation: Int, through: Date) {
        pending -= 1
        guard generation == historyGeneration else {
            events.send(.week)
            return
        }
        switch result {
        case .success(let transactions):
            history = RoundUp.weeklyTotals(transactions, accountCurrency: accountCurrency, step: roundUpStep, calendar: calendar,
                                           weeks: Self.historyWeeks, through: through)
            historyStatus = .loaded
            patchHistory()
        case .failure(let error):
            historyStatus = .failed(GoalStore.message(error, request: "GET /transactions"))
        }
        events.send(.week)
    }

    /// The shown week's total as its own load found it, so the chart and the list agree.
    private func patchHistory() {
        guard status == .loaded, let summary, let index = history.firstIndex(where: { $0.week == week }) else { return }
        history[index] = WeekTotal(week: week, total: summary.saveable)
    }

    /// Shows the week before and loads it.
    public func showPreviousWeek() {
        show(week.previous)
    }

    /// Shows the week after, unless the shown week is the current one. Returns whether it moved.
    @discardableResult
    public func showNextWeek() -> Bool {
        guard canShowNextWeek else { return false }
        show(week.next)
        return true
    }

    private func show(_ target: Week) {
        week = target
        summary = nil
        progress = nil
        load()
    }

    /// Reads the record again for the shown week's loaded payments.
    private func readProgress() {
        guard let summary else { return }
        progress = saver.progress(week: week, summary: summary, now: now())
    }

    /// "Tue 24 Nov 2026" in the store's calendar.
    nonisolated static func dayText(_ date: Date, calendar: Calendar = Week.calendar(in: .current)) -> String {
        CalendarWords.day(date, calendar: calendar, year: true)
    }

    // MARK: - Saving

    /// Why the shown week cannot be saved now; nil when it can.
    public var saveProblem: SaveProblem? {
        if let transfer {
            if transfer.isSending { return .inFlight }
            if transfer.failureMessage != nil { return .failedTransferPending }
        }
        guard status == .loaded, summary != nil, let progress else { return .notLoaded }
        if let problem = progress.currencyProblem { return .currencyMismatch(problem) }
        if progress.pending != nil { return .failedTransferPending }
        if let last = progress.saved.last { return .alreadySaved(last) }
        if !progress.isOver { return .weekUnderWay(endsOn: RoundUpStore.dayText(progress.week.end, calendar: calendar)) }
        if progress.remainingTotal.minorUnits <= 0 { return .nothingToSave }
        return nil
    }

    /// What saving now would move: the round-ups of the week's payments not saved yet.
    public var unsavedTotal: Money? { progress?.remainingTotal }

    /// Starts moving the shown week's round-ups not saved yet into `goal`, with the week's
    /// `transferId` (the week is over and nothing of it is in the record).
    public func save(into goal: Goal) throws(SaveProblem) {
        if let problem = saveProblem { throw problem }
        guard let progress, let part = saver.nextPart(progress, goal: goal, now: now()) else { throw .nothingToSave }
        transfer = Transfer(part: part, week: week, phase: .sending)
        send()
    }

    /// Sends the failed transfer (or one of the shown week that got no answer in an earlier run)
    /// again with the same `transferId`. Returns false when there is nothing to retry.
    @discardableResult
    public func retryTransfer() -> Bool {
        // The shown week's transfer without an answer, unless another transfer is in flight or failed.
        if transfer?.isSending != true, transfer?.failureMessage == nil, let pending = progress?.pending {
            transfer = Transfer(part: pending, week: week, phase: .failed(""))
        }
        guard let transfer, transfer.failureMessage != nil else { return false }
        self.transfer?.phase = .sending
        send()
        return true
    }

    /// Drops the transfer message. A failure whose answer was lost stays in the record: its
    /// payments are not offered again, and `s` sends it again with the same id.
    /// Nothing happens while in flight.
    public func dismissTransfer() {
        guard let transfer, !transfer.isSending else { return }
        self.transfer = nil
        events.send(.transfer)
    }

    private func send() {
        guard var transfer else { return }
        transfer.attempts += 1
        self.transfer = transfer
        pending += 1
        let api = self.api
        let (part, id, amount, saver, now) = (transfer.part, transfer.id, transfer.amount, saver, now)
        let before = goals.goal(id: part.goalId)
        Task { [weak self] in
            // Where the source knows the balance (a bank account), a total it cannot cover
            // is refused here, in words, instead of at the bank (and nothing is recorded).
            let outcome: RoundUpSaver.Outcome
            if let balance = await RoundUpStore.balanceTooLow(api, for: amount) {
                outcome = .unknown(BalanceTooLow(balance: balance, amount: amount), mayHaveMoved: false)
            } else {
                outcome = await saver.send(part, api: api, before: before, now: now,
                                           checking: { [weak self] in await self?.checking(id: id) })
            }
            self?.finishTransfer(id: id, outcome)
        }
        events.send(.transfer)
    }

    /// The account's effective balance, where the source has an account and says it, when it is
    /// below `amount`; nil otherwise (no account, no balance, or it could not be read: the bank decides).
    /// Asked live (`currentAccount`): a balance kept by a cache is no ground for moving money.
    public nonisolated static func balanceTooLow(_ api: any SavingsAPI, for amount: Money) async -> Money? {
        guard let account = try? await api.currentAccount(), let balance = account.effectiveBalance,
              balance.currency == amount.currency, balance.minorUnits < amount.minorUnits else { return nil }
        return balance
    }

    /// The balance checked before a transfer does not cover it; nothing was sent.
    public struct BalanceTooLow: Error, Hashable, Sendable, CustomStringConvertible {
        public let balance: Money
        public let amount: Money
        public var description: String {
            "the balance is only \(balance.formatted); nothing was sent"
        }
    }

    /// The answer was lost and the saver checks: the screen says so until the check answers.
    private func checking(id: UUID) {
        guard transfer?.id == id else { return }
        transfer?.phase = .checking
        events.send(.transfer)
    }

    private func finishTransfer(id: UUID, _ outcome: RoundUpSaver.Outcome) {
        pending -= 1
        readProgress()
        guard var transfer, transfer.id == id else {
            events.send(.transfer)
            return
        }
        let request = "POST /savingsgoals/\(transfer.goalId)/transfers"
        switch outcome {
        case .saved(_, let goal, let checked):
            transfer.phase = .succeeded(goal, checked: checked)
            goals.apply(goal)
        case .savedElsewhere(_, let said):
            transfer.phase = .savedElsewhere(said: said)
        case .savedTwice(_, let twice):
            transfer.phase = .failed(twice.message)
            goals.apply(twice.goal)
        case .refused(let error):
            transfer.phase = .failed(GoalStore.message(error, request: request))
        case .unknown(let error, let mayHaveMoved):
            let said = (error as? BalanceTooLow)?.description
                ?? (error as? RoundUpSaver.RecordProblem)?.message
                ?? (error as? RoundUpSaver.CheckFailed)?.description
                ?? GoalStore.message(error, request: request)
            transfer.phase = mayHaveMoved ? .mayHaveMoved(said) : .failed(said)
        }
        self.transfer = transfer
        events.send(.transfer)
    }
}
