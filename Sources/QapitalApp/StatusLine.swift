import FeedModel
import Foundation
import TermUI

/// The status bar's state and drawing: the source, offline or cached, the spinner, the newest
/// error (until it expires or goes away), the filter, a passing notice, the key hints. It
/// follows the stores' events itself (failures, the account, records skipped, the cache's notes).
@MainActor
struct StatusLine {
    /// The source, or for a bank account its header (holder, numbers, balance), kept up to date.
    var sourceName: String
    /// A bank account's header in shorter forms, each with the balance (`Account.summaries`):
    /// the longest that fits beside the keys is drawn, so a narrow bar never cuts the balance off.
    var sourceForms: [String] = []
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
    /// Whether the server is reachable, for sources with an offline cache.
    var connectivity: Connectivity?
    /// Where the source notes records it could not read.
    var skippedRecords: SkippedRecords?
    /// The source's own note beside the header (Up's rate limit running low).
    var sourceNote: (@Sendable () -> String?)?
    /// A bank that may wait for the customer's approval in its app mid-session: its name ("Monzo")
    /// and whether it waits now.
    var approval: (bank: String, pending: @Sendable () -> Bool)?
    /// Offline, when to try the server again.
    private var reconnect = ReconnectPolicy()
    private var reportedFailures: Set<String> = []
    /// The server could not be reached (offline; without a cache: the goals failed) and has
    /// not answered since.
    private var serverWasDown = false
    /// Set by `receive`: this event is the server answering again after it was down.
    private(set) var cameBack = false
    private var busySince: Date?
    /// The spinner's frame, moved on by `track(busy:)` (drawing only reads it); nil while
    /// nothing has waited long enough.
    private(set) var spinnerFrame: String?
    /// `--screen-reader`: "Loading…" instead of the turning braille.
    private var spinnerInWords = false
    /// TermUI's spinner: its delay and frames; the time comes from the app's own clock.
    private let spinner = Spinner(startedAt: .now)

    init(sourceName: String, lifetime: TimeInterval, now: @escaping @Sendable () -> Date) {
        self.sourceName = sourceName
        self.lifetime = lifetime
        self.now = now
    }

    /// The bar of an app with this configuration, on a source that can do this.
    init(_ configuration: AppCore.Configuration, _ capabilities: AppCore.Capabilities, now: @escaping @Sendable () -> Date) {
        self.init(sourceName: configuration.sourceName, lifetime: configuration.errorLifetime, now: now)
        spinnerInWords = configuration.screenReader
        (errorLog, connectivity, skippedRecords) = (capabilities.errorLog, capabilities.connectivity, capabilities.skippedRecords)
        sourceNote = capabilities.sourceNote
        approval = capabilities.signIn.map { ($0.title, $0.awaitsApproval) }
    }

    /// While the bank waits for the customer's approval in its app: what to do, in words.
    func approvalNote(refreshKey: String) -> String? {
        guard let approval, approval.pending() else { return nil }
        return "Approve access in the \(approval.bank) app, then press \(refreshKey) to try again"
    }

    var isOffline: Bool { connectivity?.isOffline == true }

    /// When the loop must wake although no event came (nil: not until an event): the spinner's
    /// next turn while something is in flight, the bar's next change, the next reconnect attempt
    /// while offline. An idle app, online or offline, sleeps until then.
    func nextTick(busy: Bool, loading: Bool) -> Date? {
        if busy { return now().addingTimeInterval(0.1) }
        return [nextChange, reconnect.nextAttempt(offline: isOffline, busy: loading, now: now())].compactMap { $0 }.min()
    }

    /// When something on the bar changes with time alone: now for a cache note to show, else
    /// when the error or notice shown expires (the reconnect attempts are the core's).
    var nextChange: Date? {
        if connectivity?.hasCacheNote == true { return now() }
        return [error?.at, notice?.at].compactMap { $0?.addingTimeInterval(lifetime) }.min()
    }

    mutating func show(notice text: String) { notice = (text, now()) }

    /// A key: a passing note was read and goes with the next action (or after `lifetime`, as
    /// k9s's do); a resize is no action. Errors stay until they expire or go away.
    mutating func acted(_ key: Key) {
        if key != .resize { notice = nil }
    }

    /// When `nextChange` came: messages expire, a note about the cache is shown. Whether the
    /// bar changed (a tick that changed nothing draws nothing).
    @discardableResult
    mutating func tick() -> Bool {
        var changed = false
        if let error, now().timeIntervalSince(error.at) >= lifetime { (self.error, changed) = (nil, true) }
        if let notice, now().timeIntervalSince(notice.at) >= lifetime { (self.notice, changed) = (nil, true) }
        if let note = connectivity?.takeCacheNote() { (changed, notice) = (true, (note, now())) }
        return changed
    }

    /// Offline, whether to ask the server again now (`ReconnectPolicy`); a yes counts as the attempt.
    mutating func shouldReconnect(loading: Bool) -> Bool {
        reconnect.shouldTry(offline: isOffline, busy: loading, now: now())
    }

    /// A store changed: its failures, the account's header, records an answer held but could
    /// not read (named here, the rest shown); going offline starts the reconnect clock.
    mutating func receive(_ event: StoreEvent, _ stores: AppStores) {
        reconnect.observe(offline: isOffline, now: now())
        let (down, up) = connectivity != nil ? (isOffline, !isOffline)
            : (event == .goals && stores.goals.status.failureMessage != nil, event == .goals && stores.goals.status == .loaded)
        cameBack = serverWasDown && up
        if down { serverWasDown = true } else if up { serverWasDown = false }
        collectFailures(goals: stores.goals, feed: stores.feed, roundUps: stores.roundUps, event: event)
        if event == .account, let account = stores.account.account {
            sourceName = account.summary
            sourceForms = account.summaries
        }
        // What a refresh changed, unless another note came meanwhile ("Signed in." before the refresh it led to).
        if event == .activityPage, let change = stores.feed.takeRefreshChange(), notice == nil { show(notice: change.summary) }
        if let note = skippedRecords?.drain().last { error = (note, now()) }
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

    /// Moves the spinner on (after every event and tick, never while drawing). It shows only
    /// after a second of waiting, so quick answers never flicker; the feed's loading row and
    /// the status bar show the same frame.
    mutating func track(busy: Bool) {
        guard busy else {
            (busySince, spinnerFrame) = (nil, nil)
            return
        }
        let since = busySince ?? now()
        busySince = since
        let frame = spinner.frame(elapsed: .seconds(now().timeIntervalSince(since)))
        // A screen reader would read every turn of the spinner: words, once it shows at all.
        spinnerFrame = spinnerInWords ? frame.map { _ in "Loading…" } : frame
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

    /// The bar's three parts: the source and its state, the message (error, filter or notice), the keys.
    /// `shownInBody`: a failure the screen already says in its body, not said again here.
    private func parts(width: Int, filter: String, hints: String, cachedAt: Date?, refreshKey: String,
                       shownInBody: String? = nil) -> (left: [Span], center: [Span], right: [Span]) {
        var left = [Span(" " + sourceName + " ")]
        // Where the header is in `left` (notes go before it).
        var header = 0
        let approvalNote = approvalNote(refreshKey: refreshKey)
        // First, so that it is seen however long the header; the refusals it explains are not shown besides.
        if let approvalNote {
            left.insert(Span(" " + approvalNote + " ", Style(fg: .role(.warning), attributes: .bold)), at: 0)
            header += 1
        }
        if isOffline {
            let text = connectivity?.showsCachedData == true ? "offline — showing cached data " : "offline "
            left.append(Span(text, Style(fg: .role(.warning), attributes: .bold)))
        } else if let cachedAt {
            left.append(Span("cached \(StatusLine.age(since: cachedAt, now: now())) ", Style(fg: .role(.muted))))
        }
        let note = sourceNote?().map { TextSanitizer.clean($0) }
        if let frame = spinnerFrame { left.append(Span(frame + " ")) }
        var center: [Span] = []
        var noteIsTheMessage = false
        if let error, approvalNote == nil, !Self.sameNews(error.message, shownInBody) {
            center = [Span("✗ " + error.message, Style(fg: .role(.error), attributes: [.bold, .reverse]))]
        } else if !filter.isEmpty {
            center = [Span("filter: " + filter + " (Esc clears)")]
        } else if let notice {
            center = [Span(notice.message, .bold)]
        } else if let note {
            // The source's own note (a request budget running out, a bank that asks for attention)
            // where messages go when there is none: a long one is then read whole above the bar.
            center = [Span(note, Style(fg: .role(.warning), attributes: .bold))]
            noteIsTheMessage = true
        }
        // Beside a message: before the header, so that a long header never hides it.
        if let note, !noteIsTheMessage {
            left.insert(Span(" " + note + " ", Style(fg: .role(.warning), attributes: .bold)), at: approvalNote == nil ? 0 : 1)
            header += 1
        }
        let right = [Span(width < 40 ? String(hints.prefix { $0 != " " }) + " help " : hints)]
        // The header's longest form that fits beside the rest of the left part and the keys.
        if sourceForms.count > 1 {
            let others = left.enumerated().filter { $0.offset != header }.reduce(0) { $0 + $1.element.width }
            let room = width - others - right.reduce(0) { $0 + $1.width } - 1
            let form = sourceForms.first { TextWidth.of($0) + 2 <= room } ?? sourceForms[sourceForms.count - 1]
            left[header] = Span(" " + form + " ", left[header].style)
        }
        // A note beside a message gives way to the header: the balance is never pushed out of
        // the bar by it (issue 50, item 11); what is cut of it ends in "…".
        if let note, !noteIsTheMessage, let at = left.firstIndex(where: { $0.text == " " + note + " " }) {
            let others = left.enumerated().filter { $0.offset != at }.reduce(0) { $0 + $1.element.width }
            let room = width - others - right.reduce(0) { $0 + $1.width } - 1
            if left[at].width > room {
                if room >= 8 {
                    left[at] = Span(" " + TextWidth.truncate(note, to: room - 2) + " ", left[at].style)
                } else {
                    left.remove(at: at)
                }
            }
        }
        return (left, center, right)
    }

    /// Whether the bar's error says what the screen's body says already: the same failure, or
    /// another request failing for the same reason ("GET /activities: cannot connect to …" beside
    /// "GET /savingsgoals: cannot connect to …" is one piece of news).
    static func sameNews(_ message: String, _ shownInBody: String?) -> Bool {
        guard let shownInBody else { return false }
        func reason(_ text: String) -> Substring? { text.range(of: ": ").map { text[$0.upperBound...] } }
        return message == shownInBody || (reason(message) != nil && reason(message) == reason(shownInBody))
    }

    /// Most lines a message takes above the bar when it does not fit in it.
    static let spillLines = 3

    /// The message's lines above the bar when it does not fit beside the source and the keys
    /// (wrapped to the width, so it is read whole for its lifetime); none when it fits. At most
    /// `maxLines` (the last cut with `…` only past that).
    func spill(width: Int, maxLines: Int, filter: String, hints: String, cachedAt: Date?, refreshKey: String = "r",
               shownInBody: String? = nil) -> [[Span]] {
        spill(parts(width: width, filter: filter, hints: hints, cachedAt: cachedAt, refreshKey: refreshKey, shownInBody: shownInBody),
              width: width, maxLines: maxLines)
    }

    private func spill(_ parts: (left: [Span], center: [Span], right: [Span]), width: Int, maxLines: Int) -> [[Span]] {
        let (left, center, right) = parts
        let widths = [left, center, right].map { $0.reduce(0) { $0 + $1.width } }
        guard widths[1] > 0, maxLines > 0, min(widths[2], width) + 1 + widths[1] + 1 + widths[0] > width else { return [] }
        var lines = Array(SpanWrap.wrap(center, width: width - 2).prefix(maxLines + 1))
        if lines.count > maxLines {
            // Longer still (a narrow terminal): the last line shown says that more was cut.
            lines.removeLast()
            let last = lines[maxLines - 1]
            let text = TextWidth.truncate(last.map(\.text).joined(), to: width - 3)
            lines[maxLines - 1] = [Span(text.hasSuffix("…") ? text : text + "…", last.first?.style ?? .plain)]
        }
        return lines
    }

    /// The bar in `rect`'s last row; a message that does not fit in it goes in the rows above
    /// (`spill`, as many as `rect` has above the bar).
    func draw(into buffer: inout CellBuffer, rect: Rect, filter: String, hints: String, cachedAt: Date?, refreshKey: String = "r",
              shownInBody: String? = nil) {
        var (left, center, right) = parts(width: rect.width, filter: filter, hints: hints, cachedAt: cachedAt, refreshKey: refreshKey,
                                          shownInBody: shownInBody)
        let spilled = spill((left, center, right), width: rect.width, maxLines: rect.height - 1)
        if !spilled.isEmpty {
            center = []
            let base = Style(attributes: .reverse)
            for (index, line) in spilled.enumerated() {
                let row = rect.row(rect.height - 1 - spilled.count + index)
                buffer.fill(row, style: base)
                buffer.write(line.map { Span($0.text, base.patched(with: $0.style)) }, x: row.x + 1, y: row.y, maxWidth: row.width - 2)
            }
        }
        StatusBar(left: left, center: center, right: right).draw(into: &buffer, rect: rect.row(rect.height - 1))
    }
}
