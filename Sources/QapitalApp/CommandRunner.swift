import FeedModel

/// Carries out the `Command`s screens and overlays return: the one place that hands the stores
/// to them. It knows no command; each carries what it does.
@MainActor
struct CommandRunner {
    let stores: AppStores
    /// The offline cache's refresh, when the source has a cache.
    let refreshCache: (@Sendable () -> Void)?

    /// Runs `command`; returns a one-line note when it could not be done (saving a week that
    /// cannot be saved now), for the status bar.
    func run(_ command: Command) -> String? { command.perform(self) }
}
