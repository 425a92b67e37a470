import FeedModel

/// Work for the stores that a screen or an overlay asks for (bubbletea's `Cmd`): handling a key
/// returns it in an `Outcome` (`.run`), `start`, `appear`, `refresh` and `receive` return it, and
/// the core's `CommandRunner` carries it out. Screens read the stores and never call them, so a
/// screen is tested by the commands it returns, with nothing started behind it. The answers come
/// back as `StoreEvent`s through the one event queue.
///
/// A command is a value, not a case of a closed list: a screen declares its own next to itself
/// (`Command.showPreviousWeek` in RoundUpsScreen.swift, `Command.createGoal` in NewGoalForm.swift),
/// and the core runs it without knowing it. Two commands are equal when their names and what they
/// carry are, so a test compares what a key asked for.
struct Command: Hashable, Sendable, CustomStringConvertible {
    /// What it does, in words a test failure shows ("load-goal-feed").
    let name: String
    /// What it carries (a goal's id, a new goal), part of its identity; its own description is
    /// what `description` shows, so a secret carried hides itself.
    let argument: (any Hashable & Sendable)?
    /// Carries it out against the stores; a one-line note when it could not be done.
    let perform: @MainActor @Sendable (CommandRunner) -> String?

    /// A command that cannot fail in a way worth a note.
    init(_ name: String, _ argument: (any Hashable & Sendable)? = nil, run: @escaping @MainActor @Sendable (CommandRunner) -> Void) {
        self.name = name
        self.argument = argument
        perform = { runner in
            run(runner)
            return nil
        }
    }

    /// A command that may return a note for the status bar ("That goal is no longer there.").
    static func noting(_ name: String, _ argument: (any Hashable & Sendable)? = nil,
                       perform: @escaping @MainActor @Sendable (CommandRunner) -> String?) -> Command {
        Command(name: name, argument: argument, perform: perform)
    }

    private init(name: String, argument: (any Hashable & Sendable)?, perform: @escaping @MainActor @Sendable (CommandRunner) -> String?) {
        self.name = name
        self.argument = argument
        self.perform = perform
    }

    private var identity: AnyHashable? { argument.map { AnyHashable($0) } }

    static func == (lhs: Command, rhs: Command) -> Bool { lhs.name == rhs.name && lhs.identity == rhs.identity }

    func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(identity)
    }

    var description: String { argument.map { "\(name)(\(String(describing: $0)))" } ?? name }
}

/// The commands more than one screen asks for, and the core's own: the stores' loads.
extension Command {
    /// The goal list (tab 1 at launch, `r`, reconnecting while offline).
    static let loadGoals = Command("load-goals") { $0.stores.goals.load() }
    /// One goal's feed (opening it, `r` on it, People's "saved").
    static func loadGoalFeed(_ goal: GoalID) -> Command {
        Command("load-goal-feed", goal) { $0.stores.goals.loadFeed(goalId: goal) }
    }
    /// The activity feed's newest page, the cache's first (at launch).
    static let startActivity = Command("start-activity") { $0.stores.feed.start() }
    /// The activity feed from its newest page again (`r`, after money moved).
    static let refreshActivity = Command("refresh-activity") { $0.stores.feed.refresh() }
    /// The activity page that failed, again (`r` after a failure, reconnecting).
    static let retryActivity = Command("retry-activity") { $0.stores.feed.retry() }
    /// `r` where the offline cache answers: ask the server again for what the cache would answer.
    static let refreshCache = Command("refresh-cache") { runner in
        if let refresh = runner.refreshCache { refresh() }
    }
    /// The yes to `r`'s question past the source's budget: one read more, then `r`'s work.
    static let readAnyway = Command("read-anyway") { runner in
        if let yes = runner.readAnyway { yes() }
    }
    /// Users whose look-up failed, again.
    static let retryUsers = Command("retry-users") { $0.stores.users.retryFailed() }
    /// The round-ups week shown and the twelve weeks' history.
    static let loadWeek = Command("load-week") { runner in
        runner.stores.roundUps.load()
        runner.stores.roundUps.loadHistory()
    }
    /// The bank account for the status bar's header (at launch, after money moved, after signing in).
    static let loadAccount = Command("load-account") { $0.stores.account.load() }

    /// Money moved into a goal: the header's balance, and the goal's feed and the activity where
    /// loaded (the saving is now one of theirs), so every sum agrees.
    @MainActor static func afterSaving(into goal: GoalID, _ data: ScreenData) -> [Command] {
        [.loadAccount] + (data.goals.feed(for: goal).status != .idle ? [.loadGoalFeed(goal)] : [])
            + (data.feed.phase != .idle ? [.refreshActivity] : [])
    }

    /// The server answers again after it could not be reached: what failed meanwhile is asked
    /// again (the goals, a goal's feed, the activity page, the round-ups week, people), so an
    /// error that no longer holds leaves with the outage. A failed transfer waits for `s`.
    @MainActor static func afterReconnecting(_ stores: AppStores) -> [Command] {
        var work: [Command] = stores.goals.status.failureMessage != nil ? [.loadGoals] : []
        for (id, state) in stores.goals.feeds.sorted(by: { $0.key < $1.key }) where state.status.failureMessage != nil {
            work.append(.loadGoalFeed(id))
        }
        if case .failed = stores.feed.phase { work.append(.retryActivity) }
        if stores.roundUps.status.failureMessage != nil || stores.roundUps.historyStatus.failureMessage != nil { work.append(.loadWeek) }
        return work + [.retryUsers]
    }
}
