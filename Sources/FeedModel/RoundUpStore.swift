import Foundation

/// The Round-ups tab's data: one week's payments (loaded through the API, stale answers
/// dropped) and the transfer of its total into a goal.
///
/// A transfer keeps one `transferId` for its whole attempt chain: a retry after a failure sends
/// the same id, so a transfer that reached the server before its answer was lost is never
/// applied twice. A chain given up on is remembered by week, goal and amount, and saving that
/// same transfer again reuses its id too.
@MainActor
public final class RoundUpStore {
    /// One transfer of a week's round-ups, through all its attempts.
    public struct Transfer: Hashable, Sendable {
        public enum Phase: Hashable, Sendable {
            case sending
            case failed(String)
            /// The goal as the server answered, with its new balance.
            case succeeded(Goal)
        }

        public let id: UUID
        public let week: Week
        public let goalId: GoalID
        public let goalName: String
        public let amount: Money
        public internal(set) var phase: Phase
        /// Requests sent so far with this id.
        public internal(set) var attempts: Int

        public var isSending: Bool { phase == .sending }
        public var failureMessage: String? {
            if case .failed(let message) = phase { return message }
            return nil
        }
    }

    /// Why the week cannot be saved now, in words for the screen.
    public enum SaveProblem: Error, Hashable, Sendable {
        case notLoaded
        case nothingToSave
        case inFlight
        case failedTransferPending
        case alreadySaved(Transfer)

        public var message: String {
            switch self {
            case .notLoaded: "The week's payments have not loaded yet."
            case .nothingToSave: "Nothing to save: the round-ups come to zero."
            case .inFlight: "A transfer is still in flight."
            case .failedTransferPending: "A failed transfer is waiting: retry it with s or r, or drop it with Esc."
            case .alreadySaved(let transfer): "Already saved: \(transfer.amount.formatted) into \(transfer.goalName)."
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
    /// Weeks saved in this session, so one week is not saved twice by accident.
    public private(set) var savedWeeks: [Week: Transfer] = [:]
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
    private var givenUp: [GivenUpKey: UUID] = [:]

    private struct GivenUpKey: Hashable {
        let week: Week
        let goalId: GoalID
        let amount: Money
    }

    public init(api: any SavingsAPI, goals: GoalStore, accountCurrency: Currency, roundUpStep: Int64? = nil, calendar: Calendar,
                now: @escaping @Sendable () -> Date = { Date() }, events: EventSink<StoreEvent> = .ignored) {
        self.api = api
        self.roundUpStep = roundUpStep
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
        load()
    }

    // MARK: - Saving

    /// Why the shown week cannot be saved now; nil when it can.
    public var saveProblem: SaveProblem? {
        if let transfer {
            if transfer.isSending { return .inFlight }
            if transfer.failureMessage != nil { return .failedTransferPending }
        }
        if let saved = savedWeeks[week] { return .alreadySaved(saved) }
        guard status == .loaded, let summary else { return .notLoaded }
        if summary.saveable.minorUnits <= 0 { return .nothingToSave }
        return nil
    }

    /// Starts moving the shown week's saveable total into `goal`, with a fresh `transferId`
    /// (or the id of the same transfer given up on before).
    public func save(into goal: Goal) throws(SaveProblem) {
        if let problem = saveProblem { throw problem }
        guard let amount = summary?.saveable else { throw .notLoaded }
        let key = GivenUpKey(week: week, goalId: goal.id, amount: amount)
        let id = givenUp.removeValue(forKey: key) ?? UUID()
        transfer = Transfer(id: id, week: week, goalId: goal.id, goalName: goal.name, amount: amount, phase: .sending, attempts: 0)
        send()
    }

    /// Sends the failed transfer again with the same `transferId`. Returns false when there is
    /// nothing to retry.
    @discardableResult
    public func retryTransfer() -> Bool {
        guard let transfer, transfer.failureMessage != nil else { return false }
        self.transfer?.phase = .sending
        send()
        return true
    }

    /// Drops the transfer message: a success is acknowledged; a failure is given up on (and its
    /// id kept in case the same transfer is saved again). Nothing happens while in flight.
    public func dismissTransfer() {
        guard let transfer, !transfer.isSending else { return }
        if transfer.failureMessage != nil {
            givenUp[GivenUpKey(week: transfer.week, goalId: transfer.goalId, amount: transfer.amount)] = transfer.id
        }
        self.transfer = nil
        events.send(.transfer)
    }

    private func send() {
        guard var transfer else { return }
        transfer.attempts += 1
        self.transfer = transfer
        pending += 1
        let api = self.api
        let (goalId, id, amount) = (transfer.goalId, transfer.id, transfer.amount)
        Task { [weak self] in
            let result: Result<Goal, Error>
            do {
                // Where the source knows the balance (a bank account), a total it cannot cover
                // is refused here, in words, instead of at the bank.
                if let balance = await RoundUpStore.balanceTooLow(api, for: amount) {
                    throw BalanceTooLow(balance: balance, amount: amount)
                }
                result = .success(try await api.transfer(goalId: goalId, transferId: id, amount: amount))
            } catch let error as BalanceTooLow {
                result = .failure(error)
            } catch {
                result = .failure(error)
            }
            self?.finishTransfer(id: id, result)
        }
        events.send(.transfer)
    }

    /// The account's effective balance, where the source has an account and says it, when it is
    /// below `amount`; nil otherwise (no account, no balance, or it could not be read: the bank decides).
    nonisolated static func balanceTooLow(_ api: any SavingsAPI, for amount: Money) async -> Money? {
        guard let account = try? await api.account(), let balance = account.effectiveBalance,
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

    private func finishTransfer(id: UUID, _ result: Result<Goal, Error>) {
        pending -= 1
        guard var transfer, transfer.id == id else {
            events.send(.transfer)
            return
        }
        switch result {
        case .success(let goal):
            transfer.phase = .succeeded(goal)
            savedWeeks[transfer.week] = transfer
            self.transfer = transfer
            goals.apply(goal)
        case .failure(let error):
            let message = (error as? BalanceTooLow)?.description
                ?? GoalStore.message(error, request: "POST /savingsgoals/\(transfer.goalId)/transfers")
            transfer.phase = .failed(message)
            self.transfer = transfer
        }
        events.send(.transfer)
    }
}
