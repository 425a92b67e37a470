@testable import DemoData
import FeedModel
import Foundation
import Testing
import TermUI
import TestSupport
@testable import QapitalApp

/// What a newcomer trips on, round two (issue 41, items 1–8): the app driven by keys through
/// its real loop, asserting what a person sees.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct NewcomerRoundTwoTests {
    /// The lines inside the box whose top border carries `title`.
    static func boxLines(_ lines: [String], title: String) -> [String]? {
        let rows = lines.map { Array($0) }
        guard let top = rows.firstIndex(where: { String($0).contains("┌") && String($0).contains(title) }),
              let left = rows[top].firstIndex(of: "┌"), let right = rows[top].lastIndex(of: "┐") else { return nil }
        var text: [String] = []
        for row in rows[(top + 1)...] {
            guard row.count > right, row[left] != "└" else { break }
            text.append(String(row[(left + 1)..<right]))
        }
        return text
    }

    /// The text inside the box whose top border carries `title`, its lines joined by a space.
    static func boxText(_ lines: [String], title: String) -> String? {
        boxLines(lines, title: title).map { $0.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ") }
    }

    static func words(_ text: String) -> String { text.split(separator: " ").joined(separator: " ") }

    /// The demo with the same card payments in every week (those of `RoundUpsApp`: $1.58 of
    /// round-ups, Uber's whole $7.00 among them), a week after `fixedNow`, at a size.
    static func roundUps(width: Int, height: Int) -> AppHarness {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "test")
        api.script { script in
            script.transactions = { from, to in
                guard to.timeIntervalSince(from) <= 8 * 86_400 else { return [] }  // a week's, not the twelve weeks'
                func at(_ hours: Double) -> Date { from.addingTimeInterval(hours * 3_600) }
                func usd(_ cents: Int64) -> Money { Money(minorUnits: cents, currency: .usd) }
                return [
                    Transaction(id: "t1-\(from)", timestamp: at(24 + 9.5), amount: usd(-435), counterparty: "Tesco"),
                    Transaction(id: "t2-\(from)", timestamp: at(48 + 12), amount: usd(-520), counterparty: "Blue Bottle Coffee"),
                    Transaction(id: "t3-\(from)", timestamp: at(8.25), amount: usd(-87), counterparty: "Bakery Nº5"),
                    Transaction(id: "t6-\(from)", timestamp: at(48 + 8), amount: usd(-700), counterparty: "Uber"),
                ]
            }
        }
        return AppHarness(api: api, width: width, height: height, timeZone: RoundUpsApp.stockholm, clock: { RoundUpsApp.weekLater })
    }

    // MARK: 1. Every activity's whole text

    /// Walks the Activity tab's cursor to the activity at `index` of the feed.
    static func select(activity index: Int, _ app: AppHarness) async {
        while let at = app.core.activity.rows.activityIndex(atOrAfter: app.core.activity.list.selected), at != index {
            _ = await app.press(.char("j"))
        }
    }

    @Test func enterShowsTheLongestMessageWholeAt80Columns() async throws {
        let app = AppHarness(width: 80, height: 24)
        _ = await app.start()
        _ = await app.press(.char("2"))
        // (One cell a character, so the card's box can be read by columns.)
        let activities = app.core.feed.activities.prefix(40)
        let narrow = activities.indices.filter { activities[$0].message.plainText.allSatisfy { TextWidth.of($0) == 1 } }
        let longest = try #require(narrow.max { activities[$0].message.plainText.count < activities[$1].message.plainText.count })
        let message = activities[longest].message.plainText
        #expect(TextWidth.of(message) > 60, "the demo has a message the row cuts: \(message)")
        await Self.select(activity: longest, app)
        // The row cuts it…
        #expect(!app.terminal.lines.contains { $0.contains(message) })
        // …Enter shows it whole (wrapped in the card), and keeps the tab.
        let lines = await app.press(.enter)
        #expect(app.core.screen is ActivityScreen)
        #expect(app.core.overlays.last is DetailCard)
        let card = try #require(Self.boxText(lines, title: "Activity"))
        #expect(Self.words(card).contains(Self.words(message)), "\(card)")
    }

    @Test func enterInTheCardOpensTheGoalTheActivityNames() async throws {
        let app = AppHarness()
        _ = await app.start()
        _ = await app.press(.char("2"))
        let activities = app.core.feed.activities
        let goals = app.core.goals.goals
        let named = try #require(activities.firstIndex { GoalDetailScreen.goal(namedIn: $0.message, goals) != nil })
        let goal = try #require(GoalDetailScreen.goal(namedIn: activities[named].message, goals))
        await Self.select(activity: named, app)
        let before = app.core.activity.list.selected
        let card = await app.press(.enter).joined(separator: "\n")
        #expect(card.contains("Enter opens \(goal.name)"))
        let lines = await app.press(.enter)
        #expect(app.core.overlays.isEmpty)
        let detail = try #require(app.core.screen as? GoalDetailScreen)
        #expect(detail.goalId == goal.id)
        #expect(lines[1].contains(goal.name))
        _ = await app.press(.escape)
        #expect(app.core.screen is ActivityScreen)
        #expect(app.core.activity.list.selected == before)
    }

    @Test func anActivityOnAPersonsPageShowsItsCardToo() async throws {
        // The demo's activities are all savings (listed as such); one more that is not.
        let backend = DemoBackend(now: fixedNow)
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: backend), sourceName: "test")
        let when = fixedNow.addingTimeInterval(-3600)
        api.script {
            $0.activities = { from, to in
                let rent = Activity(message: MarkupText(parsing: "<strong>Henrik</strong> paid the rent for the flat on Storgatan, and the electricity bill."),
                                    amount: Money(minorUnits: -120_000, currency: .usd), userId: 2, timestamp: when, kind: .other)
                return ActivityPage(oldest: fixedNow.addingTimeInterval(-86_400 * 30), activities: from <= when && when < to ? [rent] : [])
            }
        }
        let app = AppHarness(api: api, width: 80, height: 24)
        _ = await app.start()
        _ = await app.press(.char("2"), .char("5"))
        // The first person with an activity of their own among their recent events.
        var found: (PersonScreen, [PersonScreen.Row], Int)?
        for _ in 0..<12 where found == nil {
            _ = await app.press(.enter)
            let person = try #require(app.core.screen as? PersonScreen)
            let rows = person.rows(app.core.screenData)
            if let index = rows.firstIndex(where: { if case .event(.activity) = $0 { true } else { false } }) {
                found = (person, rows, index)
            } else {
                _ = await app.press(.escape, .char("j"))
            }
        }
        let (person, rows, index) = try #require(found)
        guard case .event(.activity(let activity)) = rows[index] else { return }
        while person.list.selected < index { _ = await app.press(.char("j")) }
        let lines = await app.press(.enter)
        #expect(app.core.screen is PersonScreen)
        #expect(app.core.overlays.last is DetailCard)
        let card = try #require(Self.boxText(lines, title: "Activity"))
        #expect(Self.words(card).contains(Self.words(activity.message.plainText)), "\(card)")
    }

    @Test func iInAGoalShowsTheSelectedSavingWhole() async throws {
        let app = AppHarness(width: 80, height: 24)
        _ = await app.start()
        let goals = app.core.goals.goals
        // The goal with the longest saving message (a row at 80 columns cuts it).
        var best: (goal: Int, entry: Int, text: String)?
        for (index, goal) in goals.enumerated() {
            _ = await app.press(.char("g"))
            for _ in 0..<index { _ = await app.press(.char("j")) }
            _ = await app.press(.enter)
            let entries = app.core.goals.feed(for: goal.id).entries.prefix(30)
            for (row, entry) in entries.enumerated() where entry.item.message.plainText.allSatisfy({ TextWidth.of($0) == 1 }) {
                let text = entry.item.message.plainText
                if text.count > best?.text.count ?? 0 { best = (index, row, text) }
            }
            _ = await app.press(.escape)
        }
        let (goal, entry, text) = try #require(best)
        _ = await app.press(.char("g"))
        for _ in 0..<goal { _ = await app.press(.char("j")) }
        _ = await app.press(.enter, .char("c"))
        for _ in 0..<entry { _ = await app.press(.char("j")) }
        let lines = await app.press(.char("i"))
        #expect(app.core.overlays.last is DetailCard)
        let card = try #require(Self.boxText(lines, title: "Saving"))
        #expect(Self.words(card).contains(Self.words(text)), "\(card)")
        _ = await app.press(.escape)
        #expect(app.core.overlays.isEmpty && app.core.screen is GoalDetailScreen)
    }

    // MARK: 2. Status messages whole

    nonisolated static let longFailure = "GET /savingsgoals: Monzo's API cannot connect to api.monzo.com: the connection was refused by the server (is it up?)"

    @Test(arguments: [80, 100, 160]) func aStatusMessageLongerThanTheBarIsShownWhole(width: Int) async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "Monzo")
        api.script { $0.goals = { throw APIError(kind: .cannotConnect, request: "GET /savingsgoals", message: Self.longFailure) } }
        let app = AppHarness(api: api, width: width, height: 24)
        _ = await app.start()
        // On Achievements, whose body does not say the failure, the bar says it.
        let lines = await app.press(.char("4"))
        // The bar's lines at the bottom, read as one text.
        let bottom = Self.words(lines.suffix(4).joined(separator: " "))
        #expect(bottom.contains(Self.words("✗ " + Self.longFailure)), "\(lines.suffix(4).joined(separator: "\n"))")
        #expect(lines.last?.contains("? help") == true)
    }

    /// The Goals tab cuts a long failure in its body: the bar still says it whole.
    @Test func aFailureTheBodyCutsIsReadWholeInTheBar() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "Monzo")
        api.script { $0.goals = { throw APIError(kind: .cannotConnect, request: "GET /savingsgoals", message: Self.longFailure) } }
        let app = AppHarness(api: api, width: 80, height: 24)
        let lines = await app.start()
        #expect(lines[2].hasPrefix(" ✗ GET /savingsgoals") && !lines[2].contains("(is it up?)"), "\(lines[2])")
        #expect(Self.words(lines.suffix(4).joined(separator: " ")).contains(Self.words("✗ " + Self.longFailure)), "\(lines.suffix(4))")
    }

    @Test func aMessageLongerThanThreeLinesIsCutWithAnEllipsisOnTheThird() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "Monzo")
        api.script { $0.goals = { throw APIError(kind: .cannotConnect, request: "GET /savingsgoals", message: Self.longFailure) } }
        let app = AppHarness(api: api, width: 30, height: 24)
        _ = await app.start()
        let lines = await app.press(.char("4"))
        // Three lines above the bar, the third ending in "…"; the bar keeps its place.
        #expect(lines[20].hasPrefix(" ✗ GET"), "\(lines.suffix(5).joined(separator: "\n"))")
        #expect(lines[22].trimmingCharacters(in: .whitespaces).hasSuffix("…"))
        #expect(lines[23].contains("? help"))
        #expect(lines.allSatisfy { TextWidth.of($0) <= 30 })
    }

    /// Wrapping keeps every character but the spaces it breaks at, and no line is wider than
    /// asked: over generated texts (words of 1–14 cells, wide characters, runs of spaces) and widths.
    @Test func wrappingLosesNothingAndKeepsToTheWidth() {
        var seed: UInt64 = 41
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        let alphabet: [Character] = ["a", "b", "Z", "1", "東", "京", "é", ".", "$"]
        for _ in 0..<400 {
            var text = ""
            for _ in 0..<(1 + next(12)) {
                text += String((0..<(1 + next(14))).map { _ in alphabet[next(alphabet.count)] })
                text += String(repeating: " ", count: 1 + (next(5) == 0 ? 2 : 0))
            }
            let width = 2 + next(20)
            let spans = [Span(String(text.prefix(5)), .bold), Span(String(text.dropFirst(5)))]
            let lines = SpanWrap.wrap(spans, width: width)
            for line in lines { #expect(line.reduce(0) { $0 + $1.width } <= width, "\(text) at \(width)") }
            let lineTexts: [String] = lines.map { line in line.map(\.text).joined() }
            let kept = String(lineTexts.joined().filter { $0 != " " })
            #expect(kept == String(text.filter { $0 != " " }), "\(text) at \(width)")
            // Words that fit a line are never broken.
            let words: [String] = text.split(separator: " ").map(String.init)
            if words.allSatisfy({ TextWidth.of($0) <= width }) {
                let wrappedWords: [String] = lineTexts.flatMap { $0.split(separator: " ").map(String.init) }
                #expect(wrappedWords == words, "\(text) at \(width)")
            }
            // Styles stay with their characters.
            let boldSpans: [Span] = lines.joined().filter { $0.style == .bold }
            let bold = String(boldSpans.map(\.text).joined().filter { $0 != " " })
            #expect(bold == String(text.prefix(5).filter { $0 != " " }))
        }
    }

    @Test func aShortMessageStaysInTheBar() async throws {
        let app = AppHarness(api: flakyActivitiesAPI(), width: 100, height: 24)
        _ = await app.start()
        // Activity says it in its body; on Achievements, which has none, the bar says it.
        _ = await app.press(.char("2"))
        let lines = await app.press(.char("4"))
        #expect(lines[22].contains("HTTP 500") == false)
        #expect(lines[23].contains("✗ GET /activities: HTTP 500"))
    }

    // MARK: 3. New rows in sight

    /// The demo's goals and people, and a history of 60 activities (one window) with `count`
    /// newer ones above them.
    nonisolated static func activity(_ text: String, minutesAgo: Double) -> Activity {
        Activity(message: MarkupText(parsing: text), amount: Money(minorUnits: 100, currency: .usd), userId: 1,
                 timestamp: fixedNow.addingTimeInterval(-minutesAgo * 60), kind: .other)
    }

    static func growingAPI(_ count: Locked<Int>) -> FakeSavingsAPI {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "growing")
        let old = (0..<60).map { Self.activity("<strong>You</strong> saved old \($0 + 1).", minutesAgo: Double($0 + 1) * 180) }
        api.script {
            $0.activities = { from, to in
                let new = (0..<count.withLock { $0 }).map { Self.activity("<strong>You</strong> saved \($0 + 1) new.", minutesAgo: Double($0 + 1)) }
                return ActivityPage(oldest: fixedNow.addingTimeInterval(-14 * 86_400),
                                    activities: (new + old).filter { from <= $0.timestamp && $0.timestamp < to })
            }
        }
        return api
    }

    @Test func atTheTopARefreshStaysAtTheTopOnTheNewestActivity() async throws {
        let extra = Locked(0)
        let app = AppHarness(api: Self.growingAPI(extra), width: 100, height: 24)
        _ = await app.start()
        _ = await app.press(.char("2"))
        extra.withLock { $0 = 2 }
        let lines = await app.press(.char("r"))
        #expect(app.core.feed.activities.first?.message.plainText == "You saved 1 new.")
        #expect(app.core.activity.rows.ordinal(ofRow: app.core.activity.list.selected) == 1)
        #expect(app.core.activity.list.offset == 0)
        #expect(lines.contains { $0.contains("You saved 1 new.") } && lines.contains { $0.contains("Today") })
        #expect(!lines.joined().contains("new ↑"))
    }

    @Test func belowTheTopARefreshSaysHowManyCameAboveAndKeepsTheRow() async throws {
        let extra = Locked(0)
        let app = AppHarness(api: Self.growingAPI(extra), width: 100, height: 24)
        _ = await app.start()
        _ = await app.press(.char("2"))
        for _ in 0..<25 { _ = await app.press(.char("j")) }
        let activity = try #require(app.core.activity.rows.activity(atRow: app.core.activity.list.selected))
        extra.withLock { $0 = 3 }
        let before = await app.press(.char("k"), .char("j"))
        var lines = await app.press(.char("r"))
        #expect(app.core.activity.rows.activity(atRow: app.core.activity.list.selected) == activity)
        // On the "N of M" line, beside it; every row of the list drawn whole, as before the refresh.
        let counter = try #require(lines.firstIndex { $0.contains(" of ") && $0.contains("new ↑") }, "\(lines.joined(separator: "\n"))")
        #expect(lines[counter].contains(" 3 new ↑   "), "\(lines[counter])")
        // (The scrollbar, in the last column, shows the longer list.)
        #expect(lines[..<counter].map { $0.dropLast() } == before[..<counter].map { $0.dropLast() }, "the rows on screen moved or were covered")
        // Going up to them, the note goes.
        lines = await app.press(.char("g"))
        #expect(!lines.joined().contains("new ↑"))
        lines = await app.press(.char("G"), .char("g"))
        #expect(!lines.joined().contains("new ↑"))
    }

    /// The demo's goals, each with a feed of 40 savings and `count` newer ones above them.
    nonisolated static func item(_ text: String, minutesAgo: Double) -> FeedItem {
        FeedItem(id: UUID().uuidString, timestamp: fixedNow.addingTimeInterval(-minutesAgo * 60),
                 message: MarkupText(parsing: text), amount: Money(minorUnits: 100, currency: .usd), userId: 1)
    }

    static func growingFeedAPI(_ count: Locked<Int>) -> FakeSavingsAPI {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "growing")
        api.script {
            $0.feed = { _ in
                // (New ids each time, as a server may make them.)
                (0..<count.withLock { $0 }).map { Self.item("You saved \($0 + 1) new.", minutesAgo: Double($0 + 1)) }
                    + (0..<40).map { Self.item("You saved old \($0 + 1).", minutesAgo: Double($0 + 1) * 600) }
            }
        }
        return api
    }

    @Test func inAGoalAReloadKeepsTheTopOrTheSavingAndSaysWhatCameAbove() async throws {
        let extra = Locked(0)
        let app = AppHarness(api: Self.growingFeedAPI(extra), width: 100, height: 24)
        _ = await app.start()
        _ = await app.press(.enter, .char("c"))
        let detail = try #require(app.core.screen as? GoalDetailScreen)
        // At the top: the newest comes in at the top, the cursor on it.
        extra.withLock { $0 = 1 }
        var lines = await app.press(.char("r"))
        #expect(detail.list.selected == 0 && detail.list.offset == 0)
        #expect(lines.contains { $0.contains("You saved 1 new.") })
        // Lower down: the cursor keeps its saving, and the list says how many came above.
        for _ in 0..<20 { _ = await app.press(.char("j")) }
        let entries = app.core.goals.feed(for: detail.goalId).entries
        let selected = entries[detail.list.selected].item.message
        extra.withLock { $0 = 3 }
        let before = await app.press(.char("k"), .char("j"))
        lines = await app.press(.char("r"))
        #expect(app.core.goals.feed(for: detail.goalId).entries[detail.list.selected].item.message == selected)
        let counter = try #require(lines.firstIndex { $0.contains(" of ") && $0.contains("2 new ↑") }, "\(lines.joined(separator: "\n"))")
        // (The scrollbar, in the last column, shows the longer list.)
        #expect(lines[..<counter].map { $0.dropLast() } == before[..<counter].map { $0.dropLast() }, "the rows on screen moved or were covered")
        lines = await app.press(.char("g"))
        #expect(!lines.joined().contains("new ↑"))
    }

    // MARK: 4. An error leaves with the outage

    @Test func afterReconnectingRoundUpsLoadAgainAndTheErrorGoes() async throws {
        let clock = ManualClock(fixedNow)
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "serve")
        api.script { $0.unreachable = Set(FakeSavingsAPI.Endpoint.allCases) }
        let cache = OfflineStatusTests.GoalsOnlyCache(nil)
        let caching = CachingSavingsAPI(remote: api, cache: cache, now: { fixedNow })
        let app = AppHarness(api: caching, width: 100, height: 24, capabilities: OfflineStatusTests.capabilities(caching, cache),
                             clock: { clock.now })
        _ = await app.start()
        var lines = await app.press(.char("3"))
        #expect(lines.joined().contains("✗ GET /transactions"), "\(lines.joined(separator: "\n"))")
        // The server comes back; the app's next reconnect attempt reaches it.
        api.script { $0.unreachable = [] }
        clock.advance(by: ReconnectPolicy.firstInterval + 1)
        _ = app.tick()
        lines = await app.screen()
        #expect(!app.core.status.isOffline)
        #expect(!lines.joined().contains("✗"), "\(lines.joined(separator: "\n"))")
        #expect(app.core.roundUps.status == .loaded)
        #expect(lines.contains { $0.contains("Round-ups") && $0.contains("from") } || lines.joined().contains("No card payments"))
    }

    @Test func anOutageFoundByTheRoundUpsTabEndsWithIt() async throws {
        let clock = ManualClock(fixedNow)
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "serve")
        let cache = OfflineStatusTests.GoalsOnlyCache(nil)
        let caching = CachingSavingsAPI(remote: api, cache: cache, now: { fixedNow })
        let app = AppHarness(api: caching, width: 100, height: 24, capabilities: OfflineStatusTests.capabilities(caching, cache),
                             clock: { clock.now })
        _ = await app.start()
        // The server goes away after the start; the Round-ups tab is the first to find it.
        api.script { $0.unreachable = Set(FakeSavingsAPI.Endpoint.allCases) }
        var lines = await app.press(.char("3"))
        #expect(lines.joined().contains("✗ GET /transactions"))
        #expect(app.core.status.isOffline)
        api.script { $0.unreachable = [] }
        clock.advance(by: ReconnectPolicy.firstInterval + 1)
        _ = app.tick()
        lines = await app.screen()
        #expect(!app.core.status.isOffline)
        #expect(app.core.roundUps.status == .loaded)
        #expect(!lines.joined().contains("✗"), "\(lines.joined(separator: "\n"))")
    }

    @Test func withoutACacheGoalsAnsweringAgainRetriesWhatFailed() async throws {
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "serve")
        api.script { $0.unreachable = Set(FakeSavingsAPI.Endpoint.allCases) }
        let app = AppHarness(api: api, width: 100, height: 24)
        _ = await app.start()
        var lines = await app.press(.char("2"))
        #expect(lines.joined().contains("✗ GET /activities"))
        api.script { $0.unreachable = [] }
        // `r` on the goals reaches the server: the activity page that failed is asked again.
        lines = await app.press(.char("1"), .char("r"), .char("2"))
        #expect(!lines.joined().contains("✗"), "\(lines.joined(separator: "\n"))")
        #expect(!app.core.feed.activities.isEmpty)
    }

    // MARK: 5. The round-ups status lines belong to their week

    @Test func aSavedLineStaysWithItsWeek() async throws {
        let app = Self.roundUps(width: 80, height: 24)
        _ = await app.start()
        var lines = await app.press(.char("3"), .char("["), .char("s"), .char("j"), .enter, .enter)
        let savedLine = lines.first { $0.contains("✓ Saved $1.58 into") }
        #expect(savedLine != nil, "\(lines.joined(separator: "\n"))")
        lines = await app.press(.char("["))
        #expect(!lines.joined().contains("✓ Saved"), "\(lines.joined(separator: "\n"))")
        lines = await app.press(.char("]"))
        #expect(lines.joined().contains("✓ Saved $1.58 into"))
    }

    @Test func atSmallSizesTheWeeksTotalIsTheLastToGo() async throws {
        let app = Self.roundUps(width: 30, height: 8)
        _ = await app.start()
        var lines = await app.press(.char("3"), .char("["))
        #expect(lines.joined().contains("Round-ups: $1.58"), "\(lines.joined(separator: "\n"))")
        // Saved, then the week before: its total, not the other week's line.
        _ = await app.press(.char("s"), .char("j"), .enter, .enter)
        #expect(app.core.roundUps.transfer?.phase != nil && app.core.roundUps.transfer?.failureMessage == nil)
        lines = await app.press(.char("["))
        #expect(lines.joined().contains("Round-ups: $1.58"), "\(lines.joined(separator: "\n"))")
        #expect(!lines.joined().contains("✓ Saved"))
        lines = await app.resize(width: 30, height: 7)
        #expect(lines.joined().contains("Round-ups: $1.58"), "\(lines.joined(separator: "\n"))")
    }

    @Test func theTotalOutranksAFailedTransfersLines() {
        // Ranks as the footer gives them: the total 3, a transfer's lines 2, the rest 1.
        #expect(RoundUpsScreen.keptLines([3, 1, 2, 2], room: 1) == [0])
        #expect(RoundUpsScreen.keptLines([3, 1, 2, 2], room: 2) == [0, 3])
        #expect(RoundUpsScreen.keptLines([1, 1, 3, 2], room: 2) == [2, 3])
        #expect(RoundUpsScreen.keptLines([3, 1, 2], room: 5) == [0, 1, 2])
        #expect(RoundUpsScreen.keptLines([3, 1], room: 0) == [])
    }

    // MARK: 6. The chart's marker and its label name the same bar

    @Test func theMarkerAndItsLabelNameTheShownWeek() async throws {
        let app = AppHarness(width: 80, height: 24)
        _ = await app.start()
        for presses in 0..<4 {
            let lines = await app.press(presses == 0 ? .char("3") : .char("["))
            let week = app.core.roundUps.week
            let label = RoundUpsScreen.dayLabel(week.start, calendar: week.calendar).split(separator: " ").dropFirst().joined(separator: " ")
            let axis = try #require(lines.first { $0.contains("▲") }, "\(lines.joined(separator: "\n"))")
            #expect(axis.contains("▲ " + label) || axis.contains(label + " ▲"), "week \(label): \(axis)")
        }
    }

    // MARK: 7. The payment card

    @Test func thePaymentCardAlignsItsColumnsAndSaysWhyARoundUpIsZero() async throws {
        let app = Self.roundUps(width: 80, height: 24)
        _ = await app.start()
        var lines = await app.press(.char("3"), .char("["), .enter)
        var card = try #require(Self.boxText(lines, title: "Payment"))
        #expect(!card.contains("Round-up$"), "\(card)")
        // Every value starts in one column, clear of the longest label.
        let rows = try #require(Self.boxLines(lines, title: "Payment"))
        var columns: Set<Int> = []
        for label in ["When", "Paid to", "Amount", "Round-up"] {
            let row = try #require(rows.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }.map(Array.init))
            let end = try #require((0..<row.count).first { String(row[$0...]).hasPrefix(label) }) + label.count
            let value = try #require((end..<row.count).first { row[$0] != " " })
            #expect(value >= end + 2, "\(String(row))")
            columns.insert(value)
        }
        #expect(columns.count == 1, "\(rows)")
        // Uber, −$7.00: a whole amount.
        lines = await app.press(.escape, .char("j"), .enter)
        card = try #require(Self.boxText(lines, title: "Payment"))
        #expect(card.contains("Uber") && card.contains("$0.00"))
        #expect(card.contains("a whole amount: nothing to round up"), "\(card)")
    }

    // MARK: 8. The person card counts the goal's people in their order

    @Test func thePersonCardCountsTheGoalsPeopleInTheirOrder() async throws {
        let app = AppHarness()
        _ = await app.start()
        let goals = app.core.goals.goals
        let shared = try #require(goals.first { $0.connectedUserIds.count >= 2 })
        let people = [shared.ownerId] + shared.connectedUserIds
        let index = try #require(goals.firstIndex { $0.id == shared.id })
        for _ in 0..<index { _ = await app.press(.char("j")) }
        _ = await app.press(.enter)
        let feed = app.core.goals.feed(for: shared.id).entries
        // A saving by someone who is not the first of the goal's people.
        let row = try #require(feed.firstIndex { $0.item.userId != people[0] && people.contains($0.item.userId) })
        for _ in 0..<row { _ = await app.press(.char("j")) }
        let saver = feed[row].item.userId
        let place = try #require(people.firstIndex(of: saver)) + 1
        var text = await app.press(.char("u")).joined(separator: "\n")
        #expect(text.contains("\(place) of \(people.count)"), "\(text)")
        // Through all of them in order and round again.
        for step in 1...people.count {
            text = await app.press(.right).joined(separator: "\n")
            #expect(text.contains("\((place - 1 + step) % people.count + 1) of \(people.count)"))
        }
    }
}
