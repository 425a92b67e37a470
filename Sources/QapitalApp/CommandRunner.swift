import FeedModel
import TermUI

/// Carries out the `Command`s screens and overlays return: the one place that hands the stores
/// to them. It knows no command; each carries what it does.
@MainActor
struct CommandRunner {
    let stores: AppStores
    /// The offline cache's refresh, when the source has a cache.
    let refreshCache: (@Sendable () -> Void)?
    /// `r` past the source's budget: the question first, and its yes (`AppCore.Capabilities`).
    var readQuestion: (@Sendable () -> String?)?
    var readAnyway: (@Sendable () -> Void)?

    /// `r`'s work; when it reaches the source past its budget, the question first: y reads anyway
    /// and runs it, n or Esc sends nothing.
    func refreshing(_ work: [Command]) -> Outcome {
        guard work.contains(.refreshCache), let question = readQuestion?() else { return .run(work, then: .consumed) }
        return .present(Question(title: "Read anyway?", lines: SpanWrap.wrap([Span(question)], width: 64), verb: "read anyway", yes: [.readAnyway] + work,
                                 onlyY: true))
    }

    /// Runs `command`; returns a one-line note when it could not be done (saving a week that
    /// cannot be saved now), for the status bar.
    func run(_ command: Command) -> String? { command.perform(self) }
}
