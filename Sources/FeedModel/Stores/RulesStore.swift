import Foundation

/// The Rules tab's data: the rules file, each rule's line for the week shown and last week's
/// status beside it, a save in flight and what it said, a rule's backtest. All of it comes from
/// the `RulesBook` (the figures and the engine of `rules` and `rules --save`); an answer for a
/// week no longer shown is dropped.
@MainActor
public final class RulesStore {
    public private(set) var file = RulesFile(rules: [])
    public private(set) var week: Week
    public private(set) var status: LoadStatus = .idle
    public private(set) var lines: [RuleLine] = []
    /// Last week's lines, for the status column beside this week's figures.
    public private(set) var lastWeek: [RuleLine] = []
    /// The transfers the records keep, for the labels of a goal's feed (read with each load).
    public private(set) var transfers: [SavedRoundUp] = [] { didSet { transfersVersion &+= 1 } }
    /// Changes with `transfers`: what the labels worked out from them are kept under.
    public private(set) var transfersVersion = 0
    public private(set) var isSaving = false
    /// What the last save said (nil until one ran).
    public private(set) var report: RulesReport?
    /// Saves finished so far: the app loads the goals and the account again after each.
    public private(set) var saves = 0
    /// The backtest asked for last: the rule's name and its weeks, or the failure.
    public private(set) var backtest: (rule: String, weeks: Result<[RuleBacktestWeek], BookProblem>)?
    public var readOnlyFile: String? { book.readOnlyFile }

    /// A failure in words (`Result` needs an `Error`).
    public struct BookProblem: Error, Hashable, Sendable {
        public let message: String
    }

    private let book: any RulesBook
    private let events: EventSink<StoreEvent>
    private let now: @Sendable () -> Date
    private var generation = 0
    private var busy = 0

    public init(book: any RulesBook, calendar: Calendar, now: @escaping @Sendable () -> Date, events: EventSink<StoreEvent> = .ignored) {
        self.book = book
        self.now = now
        self.events = events
        week = Week(containing: now(), calendar: calendar)
    }

    public var isBusy: Bool { busy > 0 }
    public var isCurrentWeek: Bool { week == Week(containing: now(), calendar: week.calendar) }
    public var canShowNextWeek: Bool { !isCurrentWeek }
    /// The last week that is over: what `s` settles up to.
    public var lastWeekOver: Week { Week(containing: now(), calendar: week.calendar).previous }

    /// The file, then the week shown and the one before it.
    public func load() {
        generation += 1
        let generation = self.generation
        let (book, week) = (self.book, self.week)
        status = .loading
        busy += 1
        Task { [weak self] in
            let file = await book.file()
            let transfers = await book.transfers()
            self?.keep(transfers)
            do {
                let lines = try await book.lines(week: week)
                let before = (try? await book.lines(week: week.previous)) ?? []
                self?.finish(generation, file: file, result: .success((lines, before)))
            } catch {
                self?.finish(generation, file: file, result: .failure(BookProblem(message: Self.words(error))))
            }
        }
    }

    private func keep(_ transfers: [SavedRoundUp]) { self.transfers = transfers }

    /// Only the records' transfers (read from disk, no request): at start, so a goal's feed labels
    /// a rule's moves before the Rules tab is opened.
    public func loadTransfers() {
        busy += 1
        let book = self.book
        Task { [weak self] in
            let transfers = await book.transfers()
            self?.keep(transfers)
            self?.busy -= 1
            self?.events.send(.rules)
        }
    }

    private func finish(_ generation: Int, file: RulesFile, result: Result<([RuleLine], [RuleLine]), BookProblem>) {
        busy -= 1
        guard generation == self.generation else { return }
        self.file = file
        switch result {
        case .success(let (lines, before)):
            (self.lines, lastWeek, status) = (lines, before, .loaded)
        case .failure(let problem):
            status = .failed(problem.message)
        }
        events.send(.rules)
    }

    public func showPreviousWeek() {
        week = week.previous
        load()
    }

    public func showNextWeek() {
        guard canShowNextWeek else { return }
        week = week.next
        load()
    }

    /// Moves every due week up to `last` (a week that is over), once each; then the figures again.
    public func save(through last: Week) {
        guard !isSaving, last <= lastWeekOver else { return }
        isSaving = true
        busy += 1
        let book = self.book
        events.send(.rules)
        Task { [weak self] in
            let report = await book.save(through: last)
            self?.saved(report)
        }
    }

    private func saved(_ report: RulesReport) {
        busy -= 1
        isSaving = false
        self.report = report
        saves += 1
        events.send(.rules)
        load()
    }

    /// Why the last change to the file could not be written (nothing changed), until the next one.
    public private(set) var writeProblem: String?

    /// Writes `file` (a rule added, edited, paused or deleted), then reads everything again; a
    /// problem is kept in `writeProblem` and the file stays as it was.
    public func write(_ file: RulesFile) {
        busy += 1
        let book = self.book
        Task { [weak self] in
            var problem: String?
            do {
                try await book.write(file)
            } catch {
                problem = Self.words(error)
            }
            self?.wrote(problem)
        }
    }

    private func wrote(_ problem: String?) {
        busy -= 1
        writeProblem = problem
        events.send(.rules)
        if problem == nil { load() }
    }

    /// What `rule` of `file` would have moved in each of the last `weeks` weeks.
    public func loadBacktest(_ file: RulesFile, rule: String, weeks: Int = 12) {
        backtest = nil
        busy += 1
        let book = self.book
        events.send(.rules)
        Task { [weak self] in
            let result: Result<[RuleBacktestWeek], BookProblem>
            do {
                result = .success(try await book.backtest(file, rule: rule, weeks: weeks))
            } catch {
                result = .failure(BookProblem(message: Self.words(error)))
            }
            self?.backtested(rule, result)
        }
    }

    private func backtested(_ rule: String, _ result: Result<[RuleBacktestWeek], BookProblem>) {
        busy -= 1
        backtest = (rule, result)
        events.send(.rules)
    }

    nonisolated static func words(_ error: any Error) -> String {
        if let problem = error as? RulesFile.Problem { return problem.message }
        if let error = error as? APIError { return error.message }
        return String(describing: error)
    }
}
