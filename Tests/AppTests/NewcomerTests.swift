@testable import DemoData
@testable import DemoServer
import FeedCache
import FeedModel
import Foundation
@testable import StarlingSource
import Testing
import TermUI
import TestSupport
@testable import QapitalApp
@testable import qapital_tui

/// What a newcomer with the habits of less, tig, lazygit and k9s expects (issue 30): screens
/// driven by keys through the real loop, asserting what a person sees.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct NewcomerTests {
    /// The "N of M" at the foot of the list, if one is shown.
    static func position(_ lines: [String]) -> (current: String, total: Int)? {
        for line in lines.dropLast().reversed() {
            let words = line.split(separator: " ")
            guard words.count >= 3, words[words.count - 2] == "of", let total = Int(words[words.count - 1]) else { continue }
            return (String(words[words.count - 3]), total)
        }
        return nil
    }

    // MARK: 2. Counters count items

    @Test func activityCountsActivitiesNotDayHeadersOrTheLastRow() async throws {
        let app = AppHarness()
        _ = await app.start()
        var lines = await app.press(.char("2"))
        let activities = app.core.feed.activities.count
        #expect(activities > 0)
        var position = try #require(Self.position(lines))
        #expect(position.current == "1" && position.total == activities)
        lines = await app.press(.char("j"))
        position = try #require(Self.position(lines))
        #expect(position.current == "2" && position.total == app.core.feed.activities.count)
        // At the end row: no activity is selected, the total is still the activities.
        for _ in 0..<200 where app.core.feed.phase != .atEnd { _ = await app.press(.char("G")) }
        #expect(app.core.feed.phase == .atEnd)
        lines = await app.press(.char("G"))
        position = try #require(Self.position(lines))
        #expect(position.current == "–" && position.total == app.core.feed.activities.count)
        lines = await app.press(.char("k"))
        position = try #require(Self.position(lines))
        #expect(position.current == "\(app.core.feed.activities.count)")
    }

    @Test func anErrorRowAloneIsNotCounted() async {
        let app = AppHarness(api: flakyActivitiesAPI())
        _ = await app.start()
        let lines = await app.press(.char("2"))
        #expect(lines.contains { $0.contains("HTTP 500") })
        #expect(Self.position(lines) == nil)
    }

    @Test func aPersonsPageCountsGoalsAndEventsNotHeadings() async throws {
        let app = AppHarness(width: 100, height: 30)
        _ = await app.start()
        let lines = await app.press(.char("5"), .enter)
        let person = try #require(app.core.screen as? PersonScreen)
        let rows = person.rows(app.core.screenData)
        let position = try #require(Self.position(lines))
        #expect(position.current == "1")
        #expect(position.total == rows.count(where: \.isStop))
        #expect(position.total < rows.count)
    }

    // MARK: 3. Enter opens something on every list

    @Test func enterTwiceOnAnActivityOpensTheGoalItNamesAndEscComesBack() async throws {
        let app = AppHarness()
        _ = await app.start()
        _ = await app.press(.char("2"))
        let activities = app.core.feed.activities
        let goals = app.core.goals.goals
        let named = try #require(activities.firstIndex { GoalDetailScreen.goal(namedIn: $0.message, goals) != nil })
        let goal = try #require(GoalDetailScreen.goal(namedIn: activities[named].message, goals))
        // Walk the cursor down to that activity.
        while app.core.activity.rows.activityIndex(atOrAfter: app.core.activity.list.selected) != named {
            _ = await app.press(.char("j"))
        }
        let before = app.core.activity.list.selected
        // Enter shows the activity whole; Enter in its card opens the goal.
        _ = await app.press(.enter)
        #expect(app.core.overlays.last is DetailCard)
        let lines = await app.press(.enter)
        let detail = try #require(app.core.screen as? GoalDetailScreen)
        #expect(detail.goalId == goal.id)
        #expect(lines[1].contains(goal.name))
        #expect(lines[2].hasPrefix("Saved"))
        _ = await app.press(.escape)
        #expect(app.core.screen is ActivityScreen)
        #expect(app.core.activity.list.selected == before)
    }

    @Test func enterOnAnActivityThatNamesNoGoalShowsItInACard() async throws {
        let backend = DemoBackend(now: fixedNow)
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: backend), sourceName: "test")
        let when = fixedNow.addingTimeInterval(-3600)
        api.script {
            $0.activities = { from, to in
                let rent = Activity(message: MarkupText(parsing: "<strong>Henrik</strong> paid the rent."),
                                    amount: Money(minorUnits: -120_000, currency: .usd), userId: 2, timestamp: when, kind: .other)
                return ActivityPage(oldest: fixedNow.addingTimeInterval(-86_400 * 30), activities: from <= when && when < to ? [rent] : [])
            }
        }
        let app = AppHarness(api: api)
        _ = await app.start()
        _ = await app.press(.char("2"))
        let lines = await app.press(.enter)
        #expect(app.core.screen is ActivityScreen)
        #expect(app.core.overlays.last is DetailCard)
        let text = lines.joined(separator: "\n")
        #expect(text.contains("Henrik paid the rent."))
        #expect(text.contains("-$1,200.00") || text.contains("−$1,200.00"))
        _ = await app.press(.char("x"))
        #expect(app.core.overlays.isEmpty)
    }

    @Test func enterOnAPaymentOrAnAchievementShowsItInACard() async throws {
        let achievements = AchievementsFile(title: "Smart Investing", achievements: [
            Achievement(id: 1, level: "1", progress: 10, total: 50, isAccessible: true),
            Achievement(id: 2, level: "2", progress: 0, total: 50, isAccessible: false),
        ])
        let app = AppHarness(achievements: achievements)
        _ = await app.start()
        _ = await app.press(.char("3"))
        let line = try #require(app.core.roundUps.summary?.lines.first)
        var text = await app.press(.enter).joined(separator: "\n")
        #expect(app.core.overlays.last is DetailCard)
        // (A whole amount says why its round-up is nothing.)
        let why = line.roundUp.minorUnits == 0 ? "a whole amount: nothing to round up" : "in the week's total"
        #expect(text.contains(line.transaction.counterparty) && text.contains(line.roundUp.formatted) && text.contains(why))
        _ = await app.press(.escape)
        #expect(app.core.overlays.isEmpty)
        text = await app.press(.char("4"), .char("j"), .enter).joined(separator: "\n")
        #expect(text.contains("Level 2") && text.contains("0 of 50") && text.contains("locked"))
    }

    // MARK: 8. Status lines clear

    @Test func aPassingNoteGoesWithTheNextKeyOrAfterAFewSeconds() async throws {
        let backend = DemoBackend(now: fixedNow)
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: backend), sourceName: "test")
        let record = MemoryRoundUpRecord()
        var capabilities = AppCore.Capabilities()
        capabilities.roundUpSaver = RoundUpSaver(identity: SaveIdentity(source: "test", account: ""), record: record)
        let first = AppHarness(api: api, capabilities: capabilities)
        _ = await first.start()
        // Last week: a week is saved once it is over.
        _ = await first.press(.char("3"), .char("["), .char("s"), .char("j"), .enter, .enter)

        let clock = ManualClock(fixedNow)
        let app = AppHarness(api: api, capabilities: capabilities, clock: { clock.now })
        _ = await app.start()
        var lines = await app.press(.char("3"), .char("["), .char("s"))
        #expect(lines.last?.contains("Already saved:") == true)
        // The next key: tab 1, then Enter on a goal. The note is gone.
        lines = await app.press(.char("1"))
        #expect(lines.last?.contains("Already saved:") == false)
        lines = await app.press(.enter)
        #expect(lines.last?.contains("Already saved:") == false)
        // Left alone, it goes after a few seconds.
        _ = await app.press(.escape, .char("3"), .char("s"))
        #expect(app.terminal.lines.last?.contains("Already saved:") == true)
        clock.advance(by: 5)
        #expect(app.tick().last?.contains("Already saved:") == true)
        clock.advance(by: 2)
        #expect(app.tick().last?.contains("Already saved:") == false)
    }

    // MARK: 6. `n` means one thing per screen

    @Test(arguments: ["1", "3"]) func aNewGoalCanBeMadeWithAFilterSetAndNIsAlwaysNextMatch(tab: String) async throws {
        let app = AppHarness()
        _ = await app.start()
        _ = await app.press(.char(Character(tab)), .char("/"))
        _ = await app.type(tab == "1" ? "o" : "a")
        _ = await app.press(.enter)
        let screen = app.core.screen
        #expect(!screen.filter.isEmpty)
        // `n` is the next match (the cursor moves), not a form.
        _ = await app.press(.char("n"))
        #expect(app.core.newGoalForm == nil)
        // `a` adds a goal whatever the filter.
        _ = await app.press(.char("a"))
        #expect(app.core.newGoalForm != nil)
        _ = await app.press(.escape, .escape)
        #expect(app.core.newGoalForm == nil && screen.filter.isEmpty)
        // Without a filter `n` does nothing at all.
        _ = await app.press(.char("n"))
        #expect(app.core.newGoalForm == nil)
        // The help lists the key.
        #expect(KeysHelp.defaultEntries.contains { $0.keys == [.char("a")] && $0.help.hasPrefix("add a goal") })
    }

    @Test func nMovesToTheNextMatchOnAFilteredList() async throws {
        let app = AppHarness()
        _ = await app.start()
        _ = await app.press(.char("/"))
        _ = await app.type("o")
        _ = await app.press(.enter)
        let before = app.core.goalList.list.selected
        _ = await app.press(.char("n"))
        #expect(app.core.goalList.list.selected == before + 1)
        _ = await app.press(.char("N"))
        #expect(app.core.goalList.list.selected == before)
    }

    // MARK: 4. `r` refreshes in place

    @Test func rInActivityReloadsWhatIsLoadedAndKeepsTheCursorOnItsActivity() async throws {
        let app = AppHarness()
        _ = await app.start()
        _ = await app.press(.char("2"))
        // Load a good part of the history: the end, three times over.
        for _ in 0..<3 { _ = await app.press(.char("G")) }
        _ = await app.press(.char("k"))
        for _ in 0..<5 { _ = await app.press(.pageUp) }
        let loaded = app.core.feed.activities.count
        let windows = app.core.feed.pager.windowsDelivered
        #expect(windows > 3)
        let screen = app.core.activity
        let selected = try #require(screen.rows.activity(atRow: screen.list.selected))
        let rowOnScreen = screen.list.selected - screen.list.offset
        let weeks = screen.weeklyTotals(app.core.screenData).totals.count

        let lines = await app.press(.char("r"))
        #expect(app.core.feed.activities.count == loaded)
        #expect(app.core.feed.pager.windowsDelivered >= windows)
        #expect(screen.rows.activity(atRow: screen.list.selected) == selected)
        #expect(screen.list.selected - screen.list.offset == rowOnScreen)
        #expect(screen.weeklyTotals(app.core.screenData).totals.count == weeks)
        #expect(lines.last?.contains("Refreshed: nothing changed.") == true, "\(lines.last ?? "")")
    }

    @Test func aRefreshSaysWhatIsNew() async throws {
        // Thirty savings a day apart, and one more once the server has it.
        let history = (0..<30).map { day in
            Activity(message: MarkupText(parsing: "<strong>Johan</strong> saved \(day)."), amount: Money(minorUnits: 100 + day, currency: .usd),
                     userId: 3, timestamp: fixedNow.addingTimeInterval(-Double(day) * 86_400 - 3600))
        }
        let fresh = Activity(message: MarkupText(parsing: "<strong>Johan</strong> saved again."), amount: Money(minorUnits: 500, currency: .usd),
                             userId: 3, timestamp: fixedNow.addingTimeInterval(-60))
        let arrived = Locked(false)
        let api = FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "test")
        api.script {
            $0.activities = { from, to in
                let all = (arrived.withLock { $0 } ? [fresh] : []) + history
                return ActivityPage(oldest: fixedNow.addingTimeInterval(-40 * 86_400), activities: all.filter { $0.timestamp >= from && $0.timestamp < to })
            }
        }
        let app = AppHarness(api: api)
        _ = await app.start()
        _ = await app.press(.char("2"), .char("G"), .char("k"), .char("k"))
        let screen = app.core.activity
        let selected = try #require(screen.rows.activity(atRow: screen.list.selected))
        #expect(app.core.feed.activities.count == 30)
        arrived.withLock { $0 = true }
        let lines = await app.press(.char("r"))
        #expect(lines.last?.contains("Refreshed: 1 new activity.") == true, "\(lines.last ?? "")")
        #expect(app.core.feed.activities.count == 31)
        #expect(screen.rows.activity(atRow: screen.list.selected) == selected)
        // The note goes with the next key.
        #expect(await app.press(.char("j")).last?.contains("Refreshed") == false)
    }

    // MARK: 5. The help pages like less

    /// "12–31 of 90" from the help's footer: the first line shown.
    static func helpFirstLine(_ lines: [String]) -> Int? {
        for line in lines {
            guard let dash = line.range(of: "–"), let of = line.range(of: " of ", range: dash.upperBound..<line.endIndex) else { continue }
            let before = line[..<dash.lowerBound].split(separator: " ").last.map(String.init) ?? ""
            _ = of
            if let first = Int(before.filter(\.isNumber)) { return first }
        }
        return nil
    }

    @Test func theHelpPagesAndSearchesAsLessDoes() async throws {
        let app = AppHarness(width: 80, height: 24)
        _ = await app.start()
        var lines = await app.press(.char("?"))
        #expect(Self.helpFirstLine(lines) == 1)
        lines = await app.press(.pageDown)
        #expect(app.core.overlays.last is KeysHelp)
        let page = try #require(Self.helpFirstLine(lines))
        #expect(page > 10)
        lines = await app.press(.char(" "))
        #expect(Self.helpFirstLine(lines) == 2 * page - 1)
        lines = await app.press(.pageUp)
        #expect(Self.helpFirstLine(lines) == page)
        lines = await app.press(.char("G"))
        let last = try #require(Self.helpFirstLine(lines))
        #expect(last > 2 * page)
        lines = await app.press(.char("k"))
        #expect(Self.helpFirstLine(lines) == last - 1)
        lines = await app.press(.char("g"))
        #expect(Self.helpFirstLine(lines) == 1)
        // Keys the help has no use for are swallowed: the help stays, the app does not move.
        _ = await app.press(.char("2"), .char("x"))
        #expect(app.core.overlays.last is KeysHelp && app.core.tabIndex == 0)
        // `/` searches from the line at the top; `n` finds the next.
        lines = await app.type("/token")
        #expect(lines.last?.hasPrefix(" /token") == true)
        lines = await app.press(.enter)
        let first = try #require(Self.helpFirstLine(lines))
        #expect(first > 1)
        #expect(lines.contains { $0.contains("token") })
        lines = await app.press(.char("g"), .char("n"))
        #expect(Self.helpFirstLine(lines) == first)
        lines = await app.type("/zzzz")
        lines = await app.press(.enter)
        #expect(lines.last?.contains("Pattern not found: zzzz") == true)
        // Esc, q and ? close it.
        for key in [Key.escape, .char("q"), .char("?")] {
            _ = await app.press(key)
            #expect(app.core.overlays.isEmpty)
            _ = await app.press(.char("?"))
        }
        #expect(app.core.overlays.last is KeysHelp)
    }

    // MARK: 7. People are named once

    @Test func peopleAreNamedOnce() async throws {
        let app = AppHarness(width: 120, height: 40)
        _ = await app.start()
        let lines = await app.press(.char("2"))
        // "You moved money…" has no "Mikael" beside it, "Johan saved…" no second "Johan".
        let you = lines.filter { $0.contains(" You ") }
        #expect(!you.isEmpty)
        for line in you { #expect(!line.contains("Mikael"), "\(line)") }
        for line in lines where line.contains("Johan ") { #expect(line.components(separatedBy: "Johan").count == 2, "\(line)") }
        let users = app.core.screenData.users
        #expect(users.who(for: 1, in: MarkupText(parsing: "A roundup was saved."), holder: 1) == "you")
        #expect(users.who(for: 3, in: MarkupText(parsing: "Jo saved."), holder: 1) == "Johan")
        #expect(users.who(for: 3, in: MarkupText(parsing: "<strong>Johan</strong> saved."), holder: 1) == "")
        #expect(!UsersNaming.names("Johansson saved", "Johan") && UsersNaming.names("Saved by Johan.", "johan"))
        // The card names the person once, "(you)" for the holder, and no id line.
        let card = await app.press(.char("1"), .char("u"), .left).joined(separator: "\n")  // the owner, before the people shared with
        #expect(card.contains("Mikael (you)") && !card.contains("User #1"))
    }

    // MARK: 14. Narrow screens keep what matters

    @Test(arguments: [30, 34, 40]) func roundUpsKeepsTheWeekOnANarrowScreen(width: Int) async throws {
        let app = AppHarness(width: width, height: 20)
        _ = await app.start()
        let lines = await app.press(.char("3"))
        let heading = lines[1]
        #expect(!heading.contains("…"), "\(heading)")
        #expect(heading.contains("16 Nov") && heading.contains("22 Nov"), "\(heading)")
    }

    @Test(arguments: [20, 44, 60]) func theTabBarShowsNumbersWhereNamesDoNotFit(width: Int) async throws {
        let app = AppHarness(width: width, height: 10)
        _ = await app.start()
        var lines = await app.press(.char("5"))
        #expect(!lines[0].contains("…"), "\(lines[0])")
        #expect(lines[0].contains(" 1 ") && lines[0].contains(" 4 "))
        if width >= 44 { #expect(lines[0].contains("5 People")) }
        // A click on a number still switches to its tab.
        let x = try #require(lines[0].range(of: " 2 ").map { lines[0].distance(from: lines[0].startIndex, to: $0.lowerBound) + 1 })
        app.terminal.send(.key(.click(x: x, y: 0)))
        lines = await app.screen()
        #expect(app.core.tabIndex == 1)
    }

    @Test func theListBesideTheSummaryKeepsNamesWholeAt100Columns() async throws {
        let narrow = AppHarness(width: 80, height: 30)
        let at80 = await narrow.start()
        let wide = AppHarness(width: 100, height: 30)
        let at100 = await wide.start()
        #expect(at100.contains { $0.contains("Shared with") })  // the summary is there
        for goal in wide.core.goals.goals where at80.contains(where: { $0.contains(goal.name) }) {
            #expect(at100.contains { $0.contains(goal.name) }, "\(goal.name) is cut at 100 columns")
        }
    }

    /// At 100 columns beside the summary the bar is shorter rather than gone: each goal with a
    /// target shows its percentage (and a short bar), names still whole, amounts uncut.
    @Test func theListBesideTheSummaryShowsProgressAt100Columns() async throws {
        let wide = AppHarness(width: 100, height: 30, images: false)
        let lines = await wide.start()
        for goal in wide.core.goals.goals {
            let row = try #require(lines.first { $0.contains(" " + goal.name + " ") }, "\(goal.name) is cut: \(lines.joined(separator: "\n"))")
            let list = String(row.prefix(62))
            #expect(list.contains(goal.balance.formatted), "\(list)")
            if let progress = goal.progress {
                let percent = "\(ProgressBar(fraction: progress).percent)%"
                #expect(list.contains(" " + percent), "\(goal.name): \(percent) in \(list)")
                #expect(list.contains { "█▏▎▍▌▋▊▉·".contains($0) }, "a short bar: \(list)")
            }
        }
        // Each width keeps its choice: the full bar where it fits, the percentage alone where a short bar does not.
        var columns = GoalListScreen.AmountColumns()
        columns.name = 16
        #expect(GoalListScreen.layout(width: 72, columns: columns).bar == GoalListScreen.barWidths.full)
        #expect(GoalListScreen.layout(width: 62, columns: columns).bar == GoalListScreen.barWidths.short)
        #expect(GoalListScreen.layout(width: 57, columns: columns).bar == 0, "below 60 columns, no short bar")
        columns.saved = 14  // wider amounts: the short bar no longer fits at 61, the percentage does
        #expect(GoalListScreen.layout(width: 63, columns: columns).bar == GoalListScreen.barWidths.short)
        #expect(GoalListScreen.layout(width: 61, columns: columns).bar == GoalListScreen.barWidths.percentage)
        #expect(GoalListScreen.layout(width: 59, columns: columns).bar == 0)
    }

    @Test func theSummaryWithoutPicturesDrawsItsMonogramOnce() async throws {
        let app = AppHarness(width: 120, height: 40, images: false)
        let lines = await app.start()
        #expect(lines.count { $0.contains("│    BA ") } == 1, "\(lines.joined(separator: "\n"))")
    }

    // MARK: 9. The demo needs no network

    @Test func theDemoAsksForNoPictureOverTheNetwork() async throws {
        let options = try AppOptions.parse([])
        let settings = try options.settings(environment: ["XDG_CONFIG_HOME": "/nonexistent-qapital"])
        #expect(settings.source == .demo)
        #expect(settings.pictureSchemes == [DemoImages.scheme])
        let urls = settings.achievements.achievements.compactMap(\.backgroundImageURL)
        #expect(!urls.isEmpty && urls.allSatisfy { $0.scheme == DemoImages.scheme })
        for url in urls { #expect(DemoImages.png(atPath: url.path) != nil) }

        // Tab 4 with pictures on: every picture asked for is the demo's own.
        let api = FakeSavingsAPI(base: settings.api, sourceName: "demo")
        let core = options.openApp(settings, api: api, sourceName: "demo", partition: nil, environment: [:])
        let terminal = TestTerminal(width: 120, height: 40)
        let runner = AppRunner(core: core, terminal: terminal)
        await runner.run(until: { core.isSettled }, timeout: .seconds(30))
        terminal.send(.key(.char("4")))
        await runner.run(until: { core.isSettled }, timeout: .seconds(30))
        let pictures = api.calls.compactMap { if case .image(let url) = $0 { url } else { nil } }
        #expect(pictures.contains { $0.path.contains("/achievements/") })
        #expect(pictures.allSatisfy { $0.scheme == DemoImages.scheme }, "\(pictures.filter { $0.scheme != DemoImages.scheme })")
        // And the demo's API itself never goes out for one.
        await #expect(throws: APIError.self) { _ = try await DemoSavingsAPI(backend: DemoBackend(now: fixedNow)).imageData(at: URL(string: "https://example.com/a.png")!) }
    }
}

/// Issue 30, item 10: a Starling start asks once per resource, counted by `serve --api starling`.
@Suite(.timeLimit(.minutes(1))) struct StarlingStartRequestTests {
    @Test func aStartAsksForEachResourceOnce() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("start-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                           "XDG_CACHE_HOME": home.appendingPathComponent("cache").path, "STARLING_TOKEN": "", "QAPITAL_TOKEN": ""]
        try await withStarlingServer { server, url in
            try await Self.start(url: url, environment: environment)
            let paths = await server.receivedRequests().map { String($0.target.split(separator: "?")[0]) }
            for resource in ["/api/v2/accounts", "/balance", "/identifiers", "/api/v2/account-holder/name"] {
                #expect(paths.filter { $0.hasSuffix(resource) }.count == 1, "\(resource): \(paths)")
            }
        }
    }

    /// The app as the binary starts it on Starling, run until it is settled.
    @MainActor
    static func start(url: URL, environment: [String: String]) async throws {
        let options = try AppOptions.parse(["--source", "starling", "--api-url", url.absoluteString, "--token", StarlingDemoAPI.testToken])
        let settings = try options.settings(environment: environment)
        guard case .connected(let connection) = try await options.startBank(settings.source, environment: environment) else {
            Issue.record("the token should have been accepted")
            return
        }
        let core = options.openBank(connection, source: settings.source, settings: settings, environment: environment)
        let terminal = TestTerminal(width: 100, height: 30)
        let runner = AppRunner(core: core, terminal: terminal)
        await runner.run(until: { core.isSettled }, timeout: .seconds(30))
        #expect(terminal.lines.contains { $0.contains("Balloons") })
        #expect(terminal.lines.last?.contains("Mikael · 60-83-71 12345678") == true)
    }
}

/// Issue 30, item 16: a clean quit leaves the offline cache one tidy file.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct CacheOnQuitTests {
    static func walSize(_ cache: SQLiteCache) -> Int {
        let attributes = try? FileManager.default.attributesOfItem(atPath: cache.fileURL.path + "-wal")
        return (attributes?[.size] as? Int) ?? 0
    }

    @Test func aCleanQuitFoldsTheWriteAheadLogIntoTheFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try #require(SQLiteCache.open(directory: directory, baseURL: URL(string: "http://127.0.0.1:8080")!, now: fixedNow).cache)
        let api = CachingSavingsAPI(remote: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), cache: cache, now: { fixedNow })
        let app = AppHarness(api: api, capabilities: AppCore.Capabilities(cache: cache, connectivity: api.connectivity, refreshCache: { api.refresh() }))
        _ = await app.start()
        _ = await app.press(.char("2"), .char("G"), .char("G"))
        #expect(Self.walSize(cache) > 0, "the session wrote to the cache")
        app.terminal.send(.key(.char("q")))
        await app.runner.run()
        #expect(app.core.shouldQuit)
        #expect(Self.walSize(cache) == 0)
        #expect(await cache.goals()?.value.isEmpty == false, "what was kept is in the file")
    }
}

/// Issue 30, item 17: the README sets expectations, and neither it nor `--help` uses in-house words.
@Suite struct ReadmeExpectationTests {
    static let inHouse = ["seed 00", "seed's", "seeds/", "PRODUCT.md", "issue 30"]

    @Test func theHelpAndTheReadmeSpeakToUsers() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let helps = [QapitalCommand.helpMessage(columns: 120)]
            + [ServeCommand.self, GoalsCommand.self, ActivityCommand.self, RoundUpsCommand.self, ExportCommand.self]
                .map { QapitalCommand.helpMessage(for: $0, columns: 120) }
        for text in [readme] + helps {
            for word in Self.inHouse { #expect(!text.localizedCaseInsensitiveContains(word), "\(word) in \(text.prefix(60))…") }
        }
        // What a first run costs, and which terminals it is made for.
        #expect(readme.contains("The first build takes a while, once"))
        #expect(readme.contains("## Terminals") && readme.contains("UTF-8") && readme.contains("256 colours") && readme.contains("tmux"))
    }
}
