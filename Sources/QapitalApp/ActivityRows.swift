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
    /// Where the day headers are, in order (so a row's place among the activities is a search).
    private var dayRows: [Int] = []
    /// Activities examined so far (all of them, whether the filter let them through or not).
    private(set) var consumed = 0
    private var lastDay: Int?
    private(set) var filter = ""
    /// The feed's list the rows were built from (its identity, and the list itself: a refresh
    /// replaces it, and the cursor then finds its activity in the new one).
    private(set) var identity = 0
    private var source: [Activity] = []

    var count: Int { rows.count }

    /// Brings the rows up to date with `activities`; starts over when they were replaced or the
    /// filter changed.
    mutating func update(with activities: [Activity], identity: Int = 0, filter: String, timeZone: TimeZone,
                         matches: (Activity) -> Bool) {
        if activities.count < consumed || filter != self.filter || identity != self.identity {
            self.identity = identity
            rows = []
            dayRows = []
            consumed = 0
            lastDay = nil
            self.filter = filter
        }
        source = activities
        guard consumed < activities.count else { return }
        rows.reserveCapacity(rows.count + (activities.count - consumed) * 5 / 4)
        for index in consumed..<activities.count {
            let activity = activities[index]
            if !filter.isEmpty && !matches(activity) { continue }
            let day = DisplayFormat.dayNumber(activity.timestamp, in: timeZone)
            if day != lastDay {
                dayRows.append(rows.count)
                rows.append(.day(index))
                lastDay = day
            }
            rows.append(.activity(index))
        }
        consumed = activities.count
    }

    /// The activity on row `row`, if it is one.
    func activity(atRow row: Int) -> Activity? {
        guard row >= 0, row < rows.count, case .activity(let index) = rows[row], index < source.count else { return nil }
        return source[index]
    }

    /// The row of `activity`, if it is listed.
    func row(of activity: Activity) -> Int? {
        rows.firstIndex { if case .activity(let index) = $0 { source[index] == activity } else { false } }
    }

    /// The activities listed (the rows less the day headers).
    var activityCount: Int { rows.count - dayRows.count }

    /// Which activity row `row` is, from 1 (nil for a header or past the rows), for "N of M".
    func ordinal(ofRow row: Int) -> Int? {
        guard row >= 0, row < rows.count, case .activity = rows[row] else { return nil }
        // Headers at or before the row: a binary search in their sorted places.
        var (low, high) = (0, dayRows.count)
        while low < high {
            let middle = (low + high) / 2
            if dayRows[middle] <= row { low = middle + 1 } else { high = middle }
        }
        return row - low + 1
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
