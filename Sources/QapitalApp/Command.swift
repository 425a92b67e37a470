import FeedModel

/// Work for the stores that a screen or an overlay asks for (bubbletea's `Cmd`): handling a key
/// returns it in an `Outcome` (`.run`), `start`, `appear`, `refresh` and `receive` return it, and
/// the core's `CommandRunner` carries it out. Screens read the stores and never call them, so a
/// screen is tested by the commands it returns, with nothing started behind it. The answers come
/// back as `StoreEvent`s through the one event queue.
enum Command: Hashable, Sendable {
    /// The goal list (tab 1 at launch, `r`, reconnecting while offline).
    case loadGoals
    /// One goal's feed (opening it, `r` on it, People's "saved").
    case loadGoalFeed(GoalID)
    /// The activity feed's newest page, the cache's first (at launch).
    case startActivity
    /// The activity feed from its newest page again (`r`).
    case refreshActivity
    /// The activity page that failed, again (`r` after a failure).
    case retryActivity
    /// `m`: after a year without activity, look a year further back.
    case fetchOlderActivity
    /// `r` where the offline cache answers: ask the server again for what the cache would answer.
    case refreshCache
    /// Users whose look-up failed, again.
    case retryUsers
    /// The round-ups week shown and the twelve weeks' history.
    case loadWeek
    case showPreviousWeek
    case showNextWeek
    /// Round-ups' `s` (after the confirmation): the shown week's round-ups into that goal.
    case save(into: GoalID)
    /// The failed transfer again, with its transfer id (never saved twice).
    case retryTransfer
    /// Drops the transfer's message (a failure is given up on).
    case dismissTransfer
    /// The new-goal form's Enter.
    case createGoal(NewGoal)
    /// A new-goal form opens or closes: what an earlier one sent is no longer reported.
    case resetGoalCreation
    /// The bank account for the status bar's header (at launch, after money moved, after signing in).
    case loadAccount
    /// The sign-in form's Enter over the app: check the token (`TokenCheck`).
    case checkToken(SignInAttempt)

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
