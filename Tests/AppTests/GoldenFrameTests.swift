@testable import DemoData
import FeedModel
import Foundation
import Testing
import TermUI
import TestSupport
@testable import QapitalApp

/// Whole screens compared line by line (ratatui's `Buffer::with_lines`, tig's `save-display`):
/// Goals, a goal's detail and Activity, loading, empty, failed and loaded, at 80 and 120
/// columns; fixed clock, UTC, no colours. Trailing blanks are trimmed, nothing else.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct GoldenFrameTests {
    enum State: CaseIterable { case loading, empty, error, loaded }

    /// The API for a state: the demo, or one goal (none for an empty goal list) with no savings
    /// and no activity, held back or unreachable as the test says.
    static func api(_ state: State, goalList: Bool) -> FakeSavingsAPI {
        switch state {
        case .loaded:
            return FakeSavingsAPI(base: DemoSavingsAPI(backend: DemoBackend(now: fixedNow)), sourceName: "demo")
        case .empty, .loading, .error:
            let api = FakeSavingsAPI(sourceName: "fake")
            let goal = Goal(id: 7, name: "Rainy day", ownerId: 1, imageURL: nil, target: Money(minorUnits: 50_000, currency: .usd),
                            balance: Money(minorUnits: 12_345, currency: .usd), status: .active, connectedUserIds: [])
            api.script { script in
                script.goals = { state == .empty && goalList ? [] : [goal] }
                script.user = { User(id: $0, displayName: "Ada") }
                // The whole history is one empty window.
                script.activities = { from, _ in ActivityPage(oldest: from, activities: []) }
            }
            return api
        }
    }

    /// The frame once the app settled (while loading: once every posted event is handled);
    /// `endpoints` are held (loading) or unreachable (error) from the start.
    static func frame(_ state: State, width: Int, keys: [Key], endpoints: Set<FakeSavingsAPI.Endpoint>) async -> [String] {
        let api = api(state, goalList: keys.isEmpty)
        if state == .loading { api.hold(endpoints) }
        if state == .error { api.script { $0.unreachable = endpoints } }
        let app = AppHarness(api: api, width: width, height: 12)
        let settled = { app.core.pendingEvents == 0 && (state == .loading || app.core.isSettled) }
        await app.runner.run(until: settled, timeout: .seconds(30))
        for key in keys {
            app.terminal.send(.key(key))
            await app.runner.run(until: settled, timeout: .seconds(30))
        }
        api.release()
        return app.terminal.lines.map { String($0.reversed().drop { $0 == " " }.reversed()) }
    }

    static let goals: (keys: [Key], endpoints: Set<FakeSavingsAPI.Endpoint>) = ([], [.goals, .rules])
    static let detail: (keys: [Key], endpoints: Set<FakeSavingsAPI.Endpoint>) = ([.enter], [.feed])
    static let activity: (keys: [Key], endpoints: Set<FakeSavingsAPI.Endpoint>) = ([.char("2")], [.activities])

    @Test(arguments: [80, 120]) func goals(width: Int) async {
        for state in State.allCases {
            let frame = await Self.frame(state, width: width, keys: Self.goals.keys, endpoints: Self.goals.endpoints)
            #expect(frame == Self.goalsFrames["\(state) \(width)"], "Goals, \(state), \(width) columns")
        }
    }

    @Test(arguments: [80, 120]) func goalDetail(width: Int) async {
        for state in State.allCases {
            let frame = await Self.frame(state, width: width, keys: Self.detail.keys, endpoints: Self.detail.endpoints)
            #expect(frame == Self.detailFrames["\(state) \(width)"], "goal detail, \(state), \(width) columns")
        }
    }

    @Test(arguments: [80, 120]) func activity(width: Int) async {
        for state in State.allCases {
            let frame = await Self.frame(state, width: width, keys: Self.activity.keys, endpoints: Self.activity.endpoints)
            #expect(frame == Self.activityFrames["\(state) \(width)"], "Activity, \(state), \(width) columns")
        }
    }

    // MARK: - The expected screens

    static let goalsFrames: [String: [String]] = [
        "loading 80": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            "",
            " Loading goals…",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            " fake                                                            ? help  q quit",
        ],
        "loading 120": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            "",
            " Loading goals…",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            " fake                                                                                                    ? help  q quit",
        ],
        "empty 80": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            "",
            " No active goals yet.",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            " fake                                                            ? help  q quit",
        ],
        "empty 120": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            "",
            " No active goals yet.",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            " fake                                                                                                    ? help  q quit",
        ],
        "error 80": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            "",
            " ✗ GET /savingsgoals: cannot connect to 127.0.0.1:9 — press r to retry",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            " fake         ✗ GET /savingsgoals: cannot connect to 127.0.0.1:9 ? help  q quit",
        ],
        "error 120": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            "",
            " ✗ GET /savingsgoals: cannot connect to 127.0.0.1:9 — press r to retry",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            " fake                              ✗ GET /savingsgoals: cannot connect to 127.0.0.1:9                    ? help  q quit",
        ],
        "loaded 80": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            " BA  Balloons                            $400.00 of $1,500.00    ██▍······  26%█",
            " DO  Dog                                  $50.00 no target                     █",
            " BI  Bike                                $500.00 of $500.00      █████████ 100%█",
            " GR  Graduation                            $0.00 of $600.00      ·········   0%█",
            " VA  Vacation                             $10.00 no target                     █",
            " BN  Brand New Wheels                     $40.00 no target                     █",
            " AN  A New Crib                            $0.00 no target                     █",
            " AR  A Rainy Day                         $130.00 no target                     │",
            " EF  Emergency fund                    $1,250.50 of $1,000.00    █████████ 125%│",
            "                                                                         1 of 11",
            " demo                                                            ? help  q quit",
        ],
        "loaded 120": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            " BA  Balloons                    $400.00 of $1,500.00    ██▍······  26%█ ┌─ Balloons ──────────────────────────────────┐",
            " DO  Dog                          $50.00 no target                     █ │    BA                                       │",
            " BI  Bike                        $500.00 of $500.00      █████████ 100%█ │    BA                                       │",
            " GR  Graduation                    $0.00 of $600.00      ·········   0%█ │                                             │",
            " VA  Vacation                     $10.00 no target                     █ │ Saved  $400.00                              │",
            " BN  Brand New Wheels             $40.00 no target                     █ │ Target $1,500.00                            │",
            " AN  A New Crib                    $0.00 no target                     █ │ ██████▋··················  26%              │",
            " AR  A Rainy Day                 $130.00 no target                     │ │ $1,100.00 to go                             │",
            " EF  Emergency fund            $1,250.50 of $1,000.00    █████████ 125%│ │                                             │",
            "                                                                 1 of 11 └─────────────────────────────────────────────┘",
            " demo                                                                                                    ? help  q quit",
        ],
    ]

    static let detailFrames: [String: [String]] = [
        "loading 80": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            " RD  Rainy day",
            "Saved $123.45 of $500.00  ██████▏··················  24%",
            "Owner Ada",
            "────────────────────────────────────────────────────────────────────────────────",
            "",
            " Loading savings…",
            "",
            "",
            "",
            "",
            " fake                                                  Esc back  ? help  q back",
        ],
        "loading 120": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            " RD  Rainy day",
            "Saved $123.45 of $500.00  ██████▏··················  24%",
            "Owner Ada",
            "────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────",
            "",
            " Loading savings…",
            "",
            "",
            "",
            "",
            " fake                                                                                          Esc back  ? help  q back",
        ],
        "empty 80": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            " RD  Rainy day",
            "Saved $123.45 of $500.00  ██████▏··················  24%",
            "Owner Ada",
            "────────────────────────────────────────────────────────────────────────────────",
            "",
            " Nothing saved into this goal yet.",
            "",
            "",
            "",
            "",
            " fake                                                  Esc back  ? help  q back",
        ],
        "empty 120": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            " RD  Rainy day",
            "Saved $123.45 of $500.00  ██████▏··················  24%",
            "Owner Ada",
            "────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────",
            "",
            " Nothing saved into this goal yet.",
            "",
            "",
            "",
            "",
            " fake                                                                                          Esc back  ? help  q back",
        ],
        "error 80": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            " RD  Rainy day",
            "Saved $123.45 of $500.00  ██████▏··················  24%",
            "Owner Ada",
            "────────────────────────────────────────────────────────────────────────────────",
            "",
            " ✗ GET /savingsgoals/7/feed: cannot connect to 127.0.0.1:9 — press r to retry",
            "",
            "",
            "",
            "",
            " fake  ✗ GET /savingsgoals/7/feed: cannot connect to … Esc back  ? help  q back",
        ],
        "error 120": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            " RD  Rainy day",
            "Saved $123.45 of $500.00  ██████▏··················  24%",
            "Owner Ada",
            "────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────",
            "",
            " ✗ GET /savingsgoals/7/feed: cannot connect to 127.0.0.1:9 — press r to retry",
            "",
            "",
            "",
            "",
            " fake                          ✗ GET /savingsgoals/7/feed: cannot connect to 127.0.0.1:9       Esc back  ? help  q back",
        ],
        "loaded 80": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            " BA  Balloons",
            "Saved $400.00 of $1,500.00  ██████▋··················  26%",
            "Owner Mikael · Shared with Henrik, Johan, Erik",
            "────────────────────────────────────────────────────────────────────────────────",
            "",
            "17 Nov 2026 Johan made a roundup.                    Johan               $0.10 █",
            "14 Nov 2026 Johan made a manual transfer.            Johan              $45.00 │",
            "2 Nov 2026  Johan made a manual transfer.            Johan              $45.00 │",
            "30 Oct 2026 You made a roundup.                      Mikael              $0.25 │",
            "                                                                         1 of 24",
            " demo                                                  Esc back  ? help  q back",
        ],
        "loaded 120": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            " BA  Balloons",
            "Saved $400.00 of $1,500.00  ██████▋··················  26%",
            "Owner Mikael · Shared with Henrik, Johan, Erik",
            "────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────",
            "",
            "17 Nov 2026 Johan made a roundup.                                          Johan           Round-up              $0.10 █",
            "14 Nov 2026 Johan made a manual transfer.                                  Johan                                $45.00 │",
            "2 Nov 2026  Johan made a manual transfer.                                  Johan                                $45.00 │",
            "30 Oct 2026 You made a roundup.                                            Mikael          Round-up              $0.25 │",
            "                                                                                                                 1 of 24",
            " demo                                                                                          Esc back  ? help  q back",
        ],
    ]

    static let activityFrames: [String: [String]] = [
        "loading 80": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            "  … Loading activity…",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "                                                                          1 of 1",
            " fake                                                            ? help  q quit",
        ],
        "loading 120": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            "  … Loading activity…",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "                                                                                                                  1 of 1",
            " fake                                                                                                    ? help  q quit",
        ],
        "empty 80": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            "  — No activity yet —",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "                                                                          1 of 1",
            " fake                                                            ? help  q quit",
        ],
        "empty 120": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            "  — No activity yet —",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "                                                                                                                  1 of 1",
            " fake                                                                                                    ? help  q quit",
        ],
        "error 80": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            "  ✗ GET /activities: cannot connect to 127.0.0.1:9 — press r to retry",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "                                                                          1 of 1",
            " fake           ✗ GET /activities: cannot connect to 127.0.0.1:9 ? help  q quit",
        ],
        "error 120": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            "  ✗ GET /activities: cannot connect to 127.0.0.1:9 — press r to retry",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "                                                                                                                  1 of 1",
            " fake                               ✗ GET /activities: cannot connect to 127.0.0.1:9                     ? help  q quit",
        ],
        "loaded 80": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            "Today                                                                          █",
            "  03:49  佐藤 美咲 saved a guilty pleasure at Candy Shop into Toky…      $4.00 █",
            "  01:34  You moved money into Emergency fund.         Mikael            $15.00 │",
            "  00:44  You saved a guilty pleasure at McDonald's into Emergency …      $4.00 │",
            "Yesterday                                                                      │",
            "  07:08  Johan saved a roundup into Balloons.         Johan              $0.10 │",
            "Mon 16 Nov                                                                     │",
            "  22:33  You saved a roundup into Emergency fund.     Mikael             $0.61 │",
            "  21:08  You moved money into Emergency fund.         Mikael            $45.00 │",
            "                                                                         2 of 36",
            " demo                                                            ? help  q quit",
        ],
        "loaded 120": [
            " 1 Goals   2 Activity   3 Round-ups   4 Achievements   5 People",
            "Today                                                                                                                  █",
            "  03:49  佐藤 美咲 saved a guilty pleasure at Candy Shop into Tokyo trip 東京.                佐藤 美咲          $4.00 █",
            "  01:34  You moved money into Emergency fund.                                                 Mikael            $15.00 │",
            "  00:44  You saved a guilty pleasure at McDonald's into Emergency fund.                       Mikael             $4.00 │",
            "Yesterday                                                                                                              │",
            "  07:08  Johan saved a roundup into Balloons.                                                 Johan              $0.10 │",
            "Mon 16 Nov                                                                                                             │",
            "  22:33  You saved a roundup into Emergency fund.                                             Mikael             $0.61 │",
            "  21:08  You moved money into Emergency fund.                                                 Mikael            $45.00 │",
            "                                                                                                                 2 of 36",
            " demo                                                                                                    ? help  q quit",
        ],
    ]
}
