import FeedModel

/// Carries out the `Command`s screens and overlays return: the one place that calls the
/// stores on their behalf.
@MainActor
struct CommandRunner {
    let stores: AppStores
    /// The offline cache's refresh, when the source has a cache.
    let refreshCache: (@Sendable () -> Void)?

    /// Runs `command`; returns a one-line note when it could not be done (saving a week that
    /// cannot be saved now), for the status bar.
    func run(_ command: Command) -> String? {
        switch command {
        case .loadGoals: stores.goals.load()
        case .loadGoalFeed(let goalId): stores.goals.loadFeed(goalId: goalId)
        case .startActivity: stores.feed.start()
        case .refreshActivity: stores.feed.refresh()
        case .retryActivity: stores.feed.retry()
        case .fetchOlderActivity: stores.feed.keepLooking()
        case .refreshCache: refreshCache?()
        case .retryUsers: stores.users.retryFailed()
        case .loadWeek:
            stores.roundUps.load()
            stores.roundUps.loadHistory()
        case .showPreviousWeek: stores.roundUps.showPreviousWeek()
        case .showNextWeek: stores.roundUps.showNextWeek()
        case .save(let goalId):
            guard let goal = stores.goals.goal(id: goalId) else { return "That goal is no longer there." }
            do {
                try stores.roundUps.save(into: goal)
            } catch {
                return error.message
            }
        case .retryTransfer: stores.roundUps.retryTransfer()
        case .dismissTransfer: stores.roundUps.dismissTransfer()
        case .createGoal(let goal): stores.goalCreator.create(goal)
        case .resetGoalCreation: stores.goalCreator.reset()
        case .loadAccount: stores.account.load()
        case .checkToken(let attempt): stores.tokenCheck?.check(attempt)
        }
        return nil
    }
}
