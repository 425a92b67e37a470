import FeedModel
import Foundation
import TermUI

/// The status bar's state and drawing: the source, offline or cached, the spinner, the newest
/// error (until it expires or goes away), the filter, a passing notice, the key hints.
@MainActor
struct StatusLine {
    /// The source, or for a bank account its header (holder, numbers, balance), kept up to date.
    var sourceName: String
    /// How long an error or notice stays.
    let lifetime: TimeInterval
    let now: @Sendable () -> Date
    var error: (message: String, at: Date)? {
        didSet { if let error, error.message != oldValue?.message { errorLog?(error.message) } }
    }
    /// `--log-file`: every error the status bar shows.
    var errorLog: (@Sendable (String) -> Void)?
    /// A passing message ("Created goal …"), expiring like errors.
    var notice: (message: String, at: Date)?
    private var reportedFailures: Set<String> = []
    private var busySince: Date?
    /// TermUI's spinner: its delay and frames; the time comes from the app's own clock.
    private let spinner = Spinner(startedAt: .now)

    init(sourceName: String, lifetime: TimeInterval, now: @escaping @Sendable () -> Date) {
        self.sourceName = sourceName
        self.lifetime = lifetime
        self.now = now
    }

    /// Takes away an error or notice whose time is up; whether one went.
    @discardableResult
    mutating func expire() -> Bool {
        var changed = false
        if let error, now().timeIntervalSince(error.at) >= lifetime {
            self.error = nil
            changed = true
        }
        if let notice, now().timeIntervalSince(notice.at) >= lifetime {
            self.notice = nil
            changed = true
        }
        return changed
    }

    /// When the error or notice shown goes away by itself.
    var expiry: Date? {
        [error?.at, notice?.at].compactMap { $0?.addingTimeInterval(lifetime) }.min()
    }

    /// A new failure goes to the status bar as its store's event is handled, so of failures that
    /// land in one burst the bar ends on the newest; a failure that went away clears it (and is
    /// shown again if it comes back).
    mutating func collectFailures(goals: GoalStore, feed: ActivityFeed, roundUps: RoundUpStore, event: StoreEvent? = nil) {
        var current: Set<String> = []
        if let message = goals.status.failureMessage { current.insert(message) }
        for state in goals.feeds.values { if let message = state.status.failureMessage { current.insert(message) } }
        if case .failed(let message) = feed.phase { current.insert(message) }
        if let message = roundUps.status.failureMessage { current.insert(message) }
        if let message = roundUps.transfer?.failureMessage { current.insert(message) }
        let own: String? = switch event {
        case .goals?: goals.status.failureMessage
        case .goalFeed(let id)?: goals.feeds[id]?.status.failureMessage
        case .activityPage?: if case .failed(let message) = feed.phase { message } else { nil }
        case .week?: roundUps.status.failureMessage
        case .transfer?: roundUps.transfer?.failureMessage
        default: nil
        }
        let shownFailureWentAway = error.map { reportedFailures.contains($0.message) && !current.contains($0.message) } ?? false
        reportedFailures.formIntersection(current)
        if let own, !reportedFailures.contains(own) {
            error = (own, now())
            reportedFailures.insert(own)
        } else if shownFailureWentAway {
            error = nil  // (a skipped-record note, not a failure, stays until it expires)
        }
    }

    /// The spinner shows only after a second of waiting, so quick answers never flicker.
    /// Worked out once a frame: the feed's loading row and the status bar show the same one.
    mutating func spinnerFrame(idle: Bool) -> String? {
        if idle {
            busySince = nil
            return nil
        }
        let since = busySince ?? now()
        busySince = since
        return spinner.frame(elapsed: .seconds(now().timeIntervalSince(since)))
    }

    /// "just now", "5 min ago", "2 h ago", "3 d ago".
    static func age(since date: Date, now: Date) -> String {
        let seconds = max(0, now.timeIntervalSince(date))
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return "\(Int(seconds / 60)) min ago"
        case ..<(2 * 86_400): return "\(Int(seconds / 3600)) h ago"
        default: return "\(Int(seconds / 86_400)) d ago"
        }
    }

    func draw(into buffer: inout CellBuffer, rect: Rect, filter: String, hints: String, spinnerFrame: String?,
              offline: Bool, showsCachedData: Bool, cachedAt: Date?) {
        var left = [Span(" " + sourceName + " ")]
        if offline {
            let text = showsCachedData ? "offline — showing cached data " : "offline "
            left.append(Span(text, Style(fg: .role(.warning), attributes: .bold)))
        } else if let cachedAt {
            left.append(Span("cached \(StatusLine.age(since: cachedAt, now: now())) ", Style(fg: .role(.muted))))
        }
        if let frame = spinnerFrame { left.append(Span(frame + " ")) }
        var center: [Span] = []
        if let error {
            center = [Span("✗ " + error.message, Style(fg: .role(.error), attributes: [.bold, .reverse]))]
        } else if !filter.isEmpty {
            center = [Span("filter: " + filter + " (Esc clears)")]
        } else if let notice {
            center = [Span(notice.message, .bold)]
        }
        StatusBar(left: left, center: center, right: [Span(rect.width < 40 ? String(hints.prefix { $0 != " " }) + " help " : hints)]).draw(into: &buffer, rect: rect)
    }
}
