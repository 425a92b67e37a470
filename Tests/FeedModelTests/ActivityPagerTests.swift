import Foundation
import Testing
@testable import FeedModel

/// The pager as a pure state machine: requests out, answers in, no clocks or tasks.
@Suite struct ActivityPagerTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let day: TimeInterval = 86_400

    /// One activity an hour before the same time of each listed day before `now`, newest first.
    static func history(days: [Int]) -> [Activity] {
        days.sorted().map { day in
            Activity(message: MarkupText(parsing: "<strong>You</strong> day \(day)"), amount: Money(minorUnits: 100, currency: .usd),
                     userId: 1, timestamp: now.addingTimeInterval(-Double(day) * Self.day - 3600))
        }
    }

    /// Answers like a server whose windows are inclusive at both ends (sloppier than ours).
    static func answer(_ request: PageRequest, from history: [Activity], oldest: Date) -> ActivityPage {
        ActivityPage(oldest: oldest, activities: history.filter { $0.timestamp >= request.window.from && $0.timestamp <= request.window.to })
    }

    /// Answers every request in flight at once, round after round, like a server of fixed latency.
    /// Returns the rounds until the first activity showed and every request made.
    static func walk(_ pager: inout ActivityPager, history: [Activity], oldest: Date, firstRequests: [PageRequest],
                     untilEnd: Bool) -> (roundsToFirst: Int?, requests: [PageRequest]) {
        var outstanding = firstRequests
        var all = firstRequests
        var rounds = 0
        var roundsToFirst: Int?
        while !outstanding.isEmpty && rounds < 500 {
            rounds += 1
            var next: [PageRequest] = []
            for request in outstanding {
                next += pager.receive(request, .success(answer(request, from: history, oldest: oldest)))
            }
            if roundsToFirst == nil && !pager.activities.isEmpty { roundsToFirst = rounds }
            if untilEnd { next += pager.viewportChanged(cursor: pager.activities.count - 1, screenHeight: 30) }
            outstanding = next
            all += next
        }
        return (roundsToFirst, all)
    }

    /// Paging from a moment inside a second: windows end at the next whole second (and window 0
    /// a day later), so a row stamped in that second (22:40:08.637 for 22:40:08.2) is in window 0.
    @Test func windowsEndOnTheNextWholeSecond() {
        var pager = ActivityPager()
        let now = Self.now.addingTimeInterval(0.2)
        let first = pager.start(now: now)
        #expect(first[0].window.from == Self.now.addingTimeInterval(1 - 14 * Self.day))
        #expect(first[0].window.to == Self.now.addingTimeInterval(1 + ActivityPager.lookAhead))
        #expect(pager.window(1).to == Self.now.addingTimeInterval(1 - 14 * Self.day))
    }

    @Test func windowsAreExactContiguousAndNewestFirst() {
        var pager = ActivityPager()
        let first = pager.start(now: Self.now)
        #expect(first.count == 1)
        // The newest window reaches a day past now (rows a server stamps ahead of our clock).
        #expect(first[0].window.to == Self.now.addingTimeInterval(ActivityPager.lookAhead))
        #expect(first[0].window.from == Self.now.addingTimeInterval(-14 * Self.day))
        #expect(pager.phase == .loading(firstPage: true))

        let history = Self.history(days: Array(0..<200))
        let oldest = history.last!.timestamp
        let result = Self.walk(&pager, history: history, oldest: oldest, firstRequests: first, untilEnd: true)
        let windows = result.requests.map(\.window).sorted { $0.index < $1.index }
        #expect(windows.map(\.index) == Array(0..<windows.count))
        for (newer, older) in zip(windows, windows.dropFirst()) {
            #expect(older.to == newer.from)
            #expect(older.to.timeIntervalSince(older.from) == 14 * Self.day)
        }
        // Every boundary a whole second, as the queries carry them.
        #expect(windows.allSatisfy { $0.from.timeIntervalSince1970.rounded() == $0.from.timeIntervalSince1970 })
        #expect(pager.phase == .atEnd)
        #expect(pager.activities.count == 200)
        #expect(pager.activities.map(\.timestamp) == history.map(\.timestamp).sorted(by: >))
    }

    @Test func anEmptyFirstWindowLoadsTheNextOlderAtOnce() {
        var pager = ActivityPager(maxInFlight: 8)
        let first = pager.start(now: Self.now)
        let next = pager.receive(first[0], .success(ActivityPage(oldest: Self.now.addingTimeInterval(-365 * Self.day), activities: [])))
        #expect(next.map(\.window.index) == Array(1...8))
        #expect(pager.phase == .loading(firstPage: true))
    }

    @Test func walkingTwentySixEmptyWindowsTakesAboutKOver8PlusTwoRoundTrips() {
        let k = 26
        let history = Self.history(days: Array((k * 14 + 1)..<(k * 14 + 60)))
        var pipelined = ActivityPager(maxInFlight: 8)
        let piped = Self.walk(&pipelined, history: history, oldest: history.last!.timestamp,
                              firstRequests: pipelined.start(now: Self.now), untilEnd: false)
        var serial = ActivityPager(maxInFlight: 1)
        let walked = Self.walk(&serial, history: history, oldest: history.last!.timestamp,
                               firstRequests: serial.start(now: Self.now), untilEnd: false)
        #expect(walked.roundsToFirst == k + 1)
        let rounds = try! #require(piped.roundsToFirst)
        #expect(Double(rounds) <= Double(k) / 8 + 2)
        // Each window once.
        #expect(Set(piped.requests.map(\.window.index)).count == piped.requests.count)
    }

    @Test func stopsAtOldestAndAsksForNothingPastIt() {
        var pager = ActivityPager()
        let history = Self.history(days: [1, 2, 40, 41])
        let oldest = Self.now.addingTimeInterval(-41 * Self.day - 7200)
        let result = Self.walk(&pager, history: history, oldest: oldest, firstRequests: pager.start(now: Self.now), untilEnd: true)
        #expect(pager.phase == .atEnd)
        #expect(result.requests.allSatisfy { $0.window.to > oldest })
        #expect(result.requests.map(\.window.index).max() == 2)
        #expect(pager.viewportChanged(cursor: 3, screenHeight: 30).isEmpty)
        #expect(pager.activities.count == 4)
    }

    @Test func rapidPrefetchCallsAskOnce() {
        var pager = ActivityPager()
        let first = pager.start(now: Self.now)
        var all = first
        for _ in 0..<100 { all += pager.viewportChanged(cursor: 0, screenHeight: 30) }
        #expect(all.count == 1)
        let history = Self.history(days: [1, 2, 3])
        all += pager.receive(first[0], .success(Self.answer(first[0], from: history, oldest: Self.now.addingTimeInterval(-400 * Self.day))))
        for cursor in 0..<100 { all += pager.viewportChanged(cursor: cursor % 3, screenHeight: 30) }
        #expect(all.map(\.window.index) == [0, 1])
    }

    @Test func prefetchWaitsUntilTheCursorIsWithinAScreen() {
        var pager = ActivityPager()
        let first = pager.start(now: Self.now)
        let history = Self.history(days: Array(0..<14).flatMap { [$0, $0] })
        _ = pager.viewportChanged(cursor: 0, screenHeight: 10)
        let page = ActivityPage(oldest: Self.now.addingTimeInterval(-400 * Self.day),
                                activities: (0..<50).map { history[0].with(offset: -Double($0) * 600) })
        #expect(pager.receive(first[0], .success(page)).isEmpty)
        #expect(pager.phase == .ready)
        #expect(pager.viewportChanged(cursor: 39, screenHeight: 10).isEmpty)
        #expect(pager.viewportChanged(cursor: 40, screenHeight: 10).map(\.window.index) == [1])
    }

    @Test func staleAnswersAfterARefreshAreDropped() {
        var pager = ActivityPager()
        let old = pager.start(now: Self.now)
        let fresh = pager.start(now: Self.now.addingTimeInterval(60))
        let history = Self.history(days: [1])
        #expect(pager.receive(old[0], .success(Self.answer(old[0], from: history, oldest: history.last!.timestamp))).isEmpty)
        #expect(pager.activities.isEmpty)
        #expect(pager.phase == .loading(firstPage: true))
        _ = pager.receive(fresh[0], .success(Self.answer(fresh[0], from: history, oldest: history.last!.timestamp)))
        #expect(pager.activities.count == 1)
        #expect(fresh[0].generation == old[0].generation + 1)
    }

    @Test func aFailureKeepsWhatIsShownAndRetryAsksForTheSameWindow() {
        var pager = ActivityPager()
        let history = Self.history(days: [1, 20, 30])
        let oldest = history.last!.timestamp
        let first = pager.start(now: Self.now)
        #expect(pager.viewportChanged(cursor: 0, screenHeight: 30).isEmpty)
        let second = pager.receive(first[0], .success(Self.answer(first[0], from: history, oldest: oldest)))
        #expect(second.map(\.window.index) == [1])  // one row on screen: wants more
        let error = APIError(kind: .http(status: 500), request: "GET /activities", message: "GET /activities: HTTP 500")
        #expect(pager.receive(second[0], .failure(error)).isEmpty)
        #expect(pager.phase == .failed("GET /activities: HTTP 500"))
        #expect(pager.activities.count == 1)
        #expect(pager.viewportChanged(cursor: 0, screenHeight: 30).isEmpty)
        let again = pager.retry()
        #expect(again.map(\.window) == second.map(\.window))
        #expect(pager.phase == .loading(firstPage: false))
        let rest = Self.walk(&pager, history: history, oldest: oldest, firstRequests: again, untilEnd: true)
        #expect(rest.requests.count >= 2)
        #expect(pager.phase == .atEnd)
        #expect(pager.activities.count == 3)
    }

    @Test func pipelinedAnswersArrivingOutOfOrderAreAssembledInOrder() {
        var pager = ActivityPager(maxInFlight: 8)
        let history = Self.history(days: [30, 60, 61, 90, 100])
        let oldest = history.last!.timestamp
        let first = pager.start(now: Self.now)
        let batch = pager.receive(first[0], .success(Self.answer(first[0], from: history, oldest: oldest)))
        #expect(batch.count == 7)  // windows 1…7; window 8 would lie wholly before `oldest`
        var requested = first + batch
        for request in batch.reversed() {
            requested += pager.receive(request, .success(Self.answer(request, from: history, oldest: oldest)))
        }
        #expect(pager.phase == .atEnd)
        #expect(pager.activities.map(\.timestamp) == history.map(\.timestamp).sorted(by: >))
        #expect(Set(requested.map(\.window.index)).count == requested.count)
    }

    @Test func aFailedPipelinedWindowStopsDeliveryAtItsPlace() {
        var pager = ActivityPager(maxInFlight: 4)
        let history = Self.history(days: [50])
        let oldest = history.last!.timestamp
        let first = pager.start(now: Self.now)
        let batch = pager.receive(first[0], .success(Self.answer(first[0], from: history, oldest: oldest)))
        #expect(batch.map(\.window.index) == [1, 2, 3])
        let error = APIError(kind: .timedOut, request: "GET /activities", message: "timed out")
        _ = pager.receive(batch[0], .failure(error))
        _ = pager.receive(batch[2], .success(Self.answer(batch[2], from: history, oldest: oldest)))
        _ = pager.receive(batch[1], .success(Self.answer(batch[1], from: history, oldest: oldest)))
        #expect(pager.phase == .failed("timed out"))
        #expect(pager.activities.isEmpty)
        let retried = pager.retry()
        #expect(retried.map(\.window.index) == [1])
        _ = pager.receive(retried[0], .success(Self.answer(retried[0], from: history, oldest: oldest)))
        #expect(pager.activities.count == 1)
        #expect(pager.phase == .atEnd)
    }

    @Test func exactDuplicatesAreShownOnceWithinAndAcrossWindows() {
        var pager = ActivityPager(maxInFlight: 1)
        let history = Self.history(days: [1, 2, 20])
        let oldest = history.last!.timestamp
        let first = pager.start(now: Self.now)
        _ = pager.viewportChanged(cursor: 0, screenHeight: 30)
        // The same activity four times in one answer, and another once more.
        let repeated = [history[0], history[0], history[1], history[0], history[1], history[0]]
        let second = pager.receive(first[0], .success(ActivityPage(oldest: oldest, activities: repeated)))
        #expect(pager.activities == [history[0], history[1]])
        // A sloppy server sends window 0's rows again with window 1's (outside it) and window 1's twice.
        let page = ActivityPage(oldest: oldest, activities: [history[0], history[2], history[1], history[2]])
        _ = pager.receive(second[0], .success(page))
        #expect(pager.activities == [history[0], history[1], history[2]])
        #expect(pager.phase == .atEnd)
        // Same text and time but a different amount is a different activity (another id).
        var other = pager
        let again = other.start(now: Self.now)
        let changed = Activity(message: history[0].message, amount: Money(minorUnits: 101, currency: .usd), userId: history[0].userId,
                               timestamp: history[0].timestamp)
        _ = other.receive(again[0], .success(ActivityPage(oldest: oldest, activities: [history[0], changed])))
        #expect(other.activities.count == 2)
    }

    /// Answers every request in flight at once with no activity and `oldest` in year 1, round after round.
    static func walkEmpty(_ pager: inout ActivityPager, _ first: [PageRequest]) -> [PageRequest] {
        let yearOne = Date(timeIntervalSince1970: -62_135_596_800)
        var outstanding = first
        var all = first
        while !outstanding.isEmpty && all.count < 10_000 {
            var next: [PageRequest] = []
            for request in outstanding {
                next += pager.receive(request, .success(ActivityPage(oldest: yearOne, activities: [])))
            }
            outstanding = next
            all += next
        }
        return all
    }

    @Test func anAbsurdOldestPausesAfterAYearOfEmptyWindows() {
        var pager = ActivityPager(maxInFlight: 8)
        let requests = Self.walkEmpty(&pager, pager.start(now: Self.now))
        // 27 windows (378 days), each once, none past them, and a pause that names where the year ends.
        #expect(requests.map(\.window.index) .sorted() == Array(0..<27))
        #expect(pager.phase == .pausedAfterEmptyYear(before: Self.now))
        #expect(pager.isPaused)
        #expect(pager.viewportChanged(cursor: 0, screenHeight: 30).isEmpty)
        #expect(pager.retry().isEmpty)

        // Keep looking: another 27 windows, then a pause a year further back.
        let more = pager.keepLooking()
        #expect(more.map(\.window.index) == Array(27..<35))
        #expect(pager.phase == .loading(firstPage: true))
        let walked = Self.walkEmpty(&pager, more)
        #expect(walked.map(\.window.index).sorted() == Array(27..<54))
        #expect(pager.phase == .pausedAfterEmptyYear(before: pager.window(27).to))
        #expect(pager.requestCount == 54)
    }

    @Test func aYearOfEmptyWindowsCountsFromTheLastActivity() {
        var pager = ActivityPager(maxInFlight: 8)
        // Activity today, then 20 empty windows, activity at day 300, then nothing for good.
        let history = Self.history(days: [0, 300])
        let yearOne = Date(timeIntervalSince1970: -62_135_596_800)
        let result = Self.walk(&pager, history: history, oldest: yearOne, firstRequests: pager.start(now: Self.now), untilEnd: true)
        #expect(pager.activities.count == 2)
        // Day 300 lies in window 21; the pause comes 27 empty windows after it.
        #expect(result.requests.map(\.window.index).max() == 21 + 27)
        #expect(pager.phase == .pausedAfterEmptyYear(before: pager.window(22).to))
    }

    @Test func aNearlyYearLongGapDoesNotPause() {
        var pager = ActivityPager(maxInFlight: 8)
        // 26 empty windows (364 days), then activity: walked through without stopping.
        let history = Self.history(days: [365, 366])
        let _ = Self.walk(&pager, history: history, oldest: history.last!.timestamp, firstRequests: pager.start(now: Self.now), untilEnd: true)
        #expect(pager.phase == .atEnd)
        #expect(pager.activities.count == 2)
    }

    @Test func noActivityAtAllEndsAfterTheFirstWindow() {
        var pager = ActivityPager()
        let first = pager.start(now: Self.now)
        #expect(pager.receive(first[0], .success(ActivityPage(oldest: Self.now, activities: []))).isEmpty)
        #expect(pager.phase == .atEnd)
    }

    /// Starling: `oldest` is the account's `createdAt`, not an activity's date. An account opened
    /// 100 days ago whose only activity is 90 days old: the empty windows are walked (pipelined),
    /// the walk stops at the window that reaches `createdAt`, and none before it is asked for.
    @Test func walksBackToTheAccountsCreatedAt() {
        let createdAt = Self.now.addingTimeInterval(-100 * Self.day - 7200)
        var pager = ActivityPager(maxInFlight: 4)
        let first = pager.start(now: Self.now)
        let history = Self.history(days: [90])
        let result = Self.walk(&pager, history: history, oldest: createdAt, firstRequests: first, untilEnd: true)
        #expect(pager.phase == .atEnd)
        #expect(pager.activities.map(\.timestamp) == history.map(\.timestamp))
        let windows = result.requests.map(\.window).sorted { $0.index < $1.index }
        // 100 days are 7.1 windows: windows 0…7, the last one holding createdAt.
        #expect(windows.map(\.index) == Array(0...7))
        let last = windows.last!
        #expect(last.from <= createdAt && createdAt < last.to)
        #expect(windows.allSatisfy { $0.to > createdAt })
        // Pipelined: fewer rounds than windows.
        #expect(result.roundsToFirst.map { $0 < 7 } == true)
        #expect(pager.oldest == createdAt)
    }

    /// An account with no activity at all: every window back to `createdAt`, then the end.
    @Test func anEmptyAccountEndsAtCreatedAt() {
        let createdAt = Self.now.addingTimeInterval(-30 * Self.day)
        var pager = ActivityPager()
        let first = pager.start(now: Self.now)
        let result = Self.walk(&pager, history: [], oldest: createdAt, firstRequests: first, untilEnd: false)
        #expect(pager.phase == .atEnd)
        #expect(pager.activities.isEmpty)
        #expect(Set(result.requests.map(\.window.index)) == [0, 1, 2])
    }
}

extension Activity {
    func with(offset: TimeInterval) -> Activity {
        Activity(message: message, amount: amount, userId: userId, timestamp: timestamp.addingTimeInterval(offset))
    }
}
