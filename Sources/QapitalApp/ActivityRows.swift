import FeedModel
import Foundation

/// The activity list's rows: a header for each day, then that day's activities, built
/// incrementally as pages arrive, so appending a page costs the page, not the history.
struct ActivityRows {
    enum Row: Equatable {
        case day(Int)          // index of the day's first activity
        case activity(Int)     // index into the pager's activities
    }

    private(set) var rows: [Row] = []
    /// Activities examined so far (all of them, whether the filter let them through or not).
    private(set) var consumed = 0
    private var lastDay: Int?
    private(set) var filter = ""
    private var identity = 0

    var count: Int { rows.count }

    /// Brings the rows up to date with `activities`; starts over when they were replaced or the
    /// filter changed.
    mutating func update(with activities: [Activity], identity: Int = 0, filter: String, timeZone: TimeZone,
                         matches: (Activity) -> Bool) {
        if activities.count < consumed || filter != self.filter || identity != self.identity {
            self.identity = identity
            rows = []
            consumed = 0
            lastDay = nil
            self.filter = filter
        }
        guard consumed < activities.count else { return }
        rows.reserveCapacity(rows.count + (activities.count - consumed) * 5 / 4)
        for index in consumed..<activities.count {
            let activity = activities[index]
            if !filter.isEmpty && !matches(activity) { continue }
            let day = DisplayFormat.dayNumber(activity.timestamp, in: timeZone)
            if day != lastDay {
                rows.append(.day(index))
                lastDay = day
            }
            rows.append(.activity(index))
        }
        consumed = activities.count
    }

    /// Forgets everything (a refresh).
    mutating func reset() {
        self = ActivityRows()
    }

    /// The activity at or after row `row` (the header's own first activity for a header).
    func activityIndex(atOrAfter row: Int) -> Int? {
        guard row >= 0, row < rows.count else { return nil }
        switch rows[row] {
        case .day(let index), .activity(let index): return index
        }
    }
}
