import FeedModel
import Foundation

/// The built-in demo data: deterministic for a given "now", spread over about 18 months before it.
///
/// A dozen goals (one deleted, several without target, one over target, several shared), eight
/// users, both rule types, activity with realistic gaps (one stretch of 7 empty two-week windows
/// about a year back), and the last eight weeks of card transactions. It is one ledger: the
/// activity is exactly the goals' savings, each goal's savings add up to its balance, and people
/// save only into goals shared with them. Amounts are made per currency (`DemoScale`).
public struct DemoDataset: Sendable {
    public struct Options: Sendable {
        /// Days before now with no activity at all (for measuring walks over empty windows).
        public var emptyRecentDays: Int
        public var currency: Currency
        public var seed: UInt64

        public init(emptyRecentDays: Int = 0, currency: Currency = .usd, seed: UInt64 = 2016) {
            self.emptyRecentDays = emptyRecentDays
            self.currency = currency
            self.seed = seed
        }
    }

    public let now: Date
    public let currency: Currency
    public var users: [User]
    public var rules: [SavingsRule]
    public var goals: [Goal]
    /// Each goal's feed, newest first.
    public var feeds: [GoalID: [FeedItem]]
    /// The whole account's activity, newest first.
    public var activities: [Activity]
    /// Card transactions, newest first.
    public var transactions: [Transaction]

    /// Days of history before now.
    public static let historyDays = 548
    /// The long empty stretch, in days before now: 100 days, more than six two-week windows.
    public static let longGap = 200..<300

    public init(now: Date, options: Options = Options()) {
        self.now = now
        self.currency = options.currency
        var random = SeededRandom(seed: options.seed)
        let scale = DemoScale(currency: options.currency)
        let money = { (minor: Int64) in Money(minorUnits: minor, currency: options.currency) }
        // Amounts are planned in US cents and made sensible per currency (¥150 a dollar, 0.31 KWD).
        let amount = { (cents: Int64) in money(scale.minor(cents)) }

        // Everyone has an avatar but Daniel (6), who shows his monogram.
        users = [
            User(id: 1, displayName: "Mikael"), User(id: 2, displayName: "Henrik"),
            User(id: 3, displayName: "Johan"), User(id: 4, displayName: "Erik"),
            User(id: 5, displayName: "George"), User(id: 6, displayName: "Daniel"),
            User(id: 7, displayName: "Lucía Fernández"), User(id: 8, displayName: "佐藤 美咲"),
        ].map { user in
            var user = user
            if user.id != 6 { user.avatarURL = DemoImages.avatarURL(id: user.id) }
            return user
        }
        rules = [
            SavingsRule(id: 1, kind: .roundup, amount: amount(100)),
            SavingsRule(id: 2, kind: .guiltyPleasure, amount: amount(400)),
        ]

        struct Plan { let id: Int; let name: String; let target: Int64?; let balance: Int64; let status: Goal.Status; let shared: [Int] }
        let plans = [
            Plan(id: 1, name: "Balloons", target: 150_000, balance: 40_000, status: .active, shared: [2, 3, 4]),
            Plan(id: 2, name: "Dog", target: nil, balance: 5_000, status: .active, shared: []),
            Plan(id: 3, name: "Bike", target: 50_000, balance: 50_000, status: .active, shared: []),
            Plan(id: 4, name: "Graduation", target: 60_000, balance: 0, status: .active, shared: []),
            Plan(id: 5, name: "Vacation", target: nil, balance: 1_000, status: .active, shared: [4]),
            Plan(id: 6, name: "Brand New Wheels", target: nil, balance: 4_000, status: .active, shared: [5, 6]),
            Plan(id: 7, name: "A New Crib", target: nil, balance: 0, status: .active, shared: []),
            Plan(id: 8, name: "A Rainy Day", target: nil, balance: 13_000, status: .active, shared: []),
            Plan(id: 9, name: "Emergency fund", target: 100_000, balance: 125_050, status: .active, shared: []),
            Plan(id: 10, name: "Tokyo trip 東京", target: 300_000, balance: 84_525, status: .active, shared: [8, 7]),
            Plan(id: 11, name: "Old laptop", target: 80_000, balance: 12_000, status: .deleted, shared: []),
            Plan(id: 12, name: "Concert tickets ⚡️", target: 25_000, balance: 18_713, status: .active, shared: [3]),
        ]

        // The history ends at today's midnight (UTC), whatever the hour: every process of a day
        // draws the same rows at the same times, so the screen, the commands and a second run
        // agree. Today holds only what the user does (a save, a new goal).
        let dayStart = DemoDataset.startOfDay(now)
        /// Where a day's second falls: day 0's draws (the newest) stand on the day before midnight.
        func moment(day: Int, second: Int) -> Date {
            dayStart.addingTimeInterval(Double(second - max(day, 1) * 86_400))
        }
        let names = Dictionary(uniqueKeysWithValues: users.map { ($0.id, $0.displayName) })
        func who(_ userId: Int) -> String { userId == 1 ? "You" : names[userId] ?? User.placeholderName(for: userId) }

        // One ledger: each goal's savings add up to its balance, each saving is made by someone
        // the goal is shared with, and the account's activity is exactly these savings.
        struct Saving { let goal: Int; let userId: Int; let minor: Int64; let ruleId: Int?; let feedMessage: String; let activityMessage: String }
        var savings: [Saving] = []
        let roundUpStep = options.currency.defaultRoundUpStep
        for plan in plans {
            var remaining = scale.minor(plan.balance)
            let savers = [1] + plan.shared
            let into = "<strong>\(DemoDataset.escaped(plan.name))</strong>"
            while remaining > 0 {
                let userId = savers[Int(random.next() % UInt64(savers.count))]
                let roll = random.next() % 10
                var minor: Int64
                var ruleId: Int?
                var feedMessage: String
                var activityMessage: String
                let name = "<strong>\(who(userId))</strong>"
                switch roll {
                case 0..<5:
                    minor = Int64(random.next() % UInt64(roundUpStep - 1)) + 1
                    ruleId = 1
                    feedMessage = "\(name) made a roundup."
                    activityMessage = "\(name) saved a roundup into \(into)."
                case 5..<7:
                    minor = scale.minor(400)
                    ruleId = 2
                    let place = DemoDataset.places[Int(random.next() % UInt64(DemoDataset.places.count))]
                    feedMessage = "\(name) didn't resist a guilty pleasure at <strong>\(place)</strong>."
                    activityMessage = "\(name) saved a guilty pleasure at <strong>\(place)</strong> into \(into)."
                default:
                    minor = scale.minor(Int64(random.next() % 20 + 1) * 500, step: roundUpStep)
                    feedMessage = "\(name) made a manual transfer."
                    activityMessage = "\(name) moved money into \(into)."
                }
                if minor > remaining && ruleId != 1 {
                    // The last saving tops the goal up to its balance: a manual transfer of what is left.
                    ruleId = nil
                    feedMessage = "\(name) made a manual transfer."
                    activityMessage = "\(name) moved money into \(into)."
                }
                minor = min(minor, remaining)
                remaining -= minor
                savings.append(Saving(goal: plan.id, userId: userId, minor: minor, ruleId: ruleId,
                                      feedMessage: feedMessage, activityMessage: activityMessage))
            }
        }

        // When: zero to four moments a day, with gaps; none in the last `emptyRecentDays` days.
        // Day 0's moments stand on the last day before midnight too, which is the busiest.
        // The savings take moments spread evenly over them, newest first, in a shuffled order.
        var moments: [Date] = []
        for day in 0..<DemoDataset.historyDays {
            if DemoDataset.longGap.contains(day) || (400..<418).contains(day) || (90..<96).contains(day) { continue }
            let count = Int(random.next() % 5)
            var times: [Int] = []
            for _ in 0..<count {
                times.append(Int(random.next() % 86_400))
            }
            for second in times.sorted(by: >) {
                moments.append(moment(day: day, second: second).addingTimeInterval(Double(-options.emptyRecentDays * 86_400)))
            }
        }
        // Days 0 and 1 share the last day: newest first across both.
        moments.sort(by: >)
        for index in stride(from: savings.count - 1, to: 0, by: -1) {
            savings.swapAt(index, Int(random.next() % UInt64(index + 1)))
        }
        // A deleted goal's savings are its oldest: nobody saves into it any more.
        let deleted = Set(plans.filter { $0.status == .deleted }.map(\.id))
        savings = savings.filter { !deleted.contains($0.goal) } + savings.filter { deleted.contains($0.goal) }
        var feeds: [GoalID: [FeedItem]] = [:]
        var activities: [Activity] = []
        // Two thirds of the savings take the newest moments one by one (the last weeks are busy);
        // the rest spread evenly over the older ones, the last taking the oldest, so the history
        // keeps its span and its gaps.
        let recent = min(savings.count * 2 / 3, moments.count)
        func slot(_ index: Int) -> Int {
            if index < recent || moments.count <= recent { return min(index, moments.count - 1) }
            let older = savings.count - recent, room = moments.count - recent
            return older <= 1 ? moments.count - 1 : recent + min(room - 1, (index - recent) * (room - 1) / (older - 1))
        }
        for (index, saving) in savings.enumerated() {
            let timestamp = moments.isEmpty ? now : moments[slot(index)].addingTimeInterval(savings.count > moments.count ? -Double(index) : 0)
            let goalId = GoalID(saving.goal)
            let serial = (feeds[goalId]?.count ?? 0) + 1
            let savingId = String(format: "%08x-%04x-4000-8000-%012x", saving.goal, serial, random.next() & 0xFFFF_FFFF_FFFF)
            feeds[goalId, default: []].append(FeedItem(
                id: savingId,
                timestamp: timestamp, message: MarkupText(parsing: saving.feedMessage), amount: money(saving.minor),
                userId: saving.userId, savingsRuleId: saving.ruleId))
            // The activity is the same saving: the demo's own id for it.
            activities.append(Activity(id: savingId, message: MarkupText(parsing: saving.activityMessage), amount: money(saving.minor),
                                       userId: saving.userId, timestamp: timestamp))
        }
        var goals: [Goal] = []
        for plan in plans {
            let id = GoalID(plan.id)
            feeds[id] = (feeds[id] ?? []).sorted { $0.timestamp > $1.timestamp }
            // Every goal has a picture but "A New Crib" (7), which shows its monogram.
            goals.append(Goal(id: id, name: plan.name, ownerId: 1, imageURL: plan.id == 7 ? nil : DemoImages.goalURL(id: plan.id),
                              target: plan.target.map(amount), balance: amount(plan.balance), status: plan.status,
                              connectedUserIds: plan.shared))
        }
        self.goals = goals
        self.feeds = feeds
        self.activities = activities.sorted { $0.timestamp > $1.timestamp }

        // Card transactions for the last eight weeks: mostly payments, a salary, some abroad.
        var transactions: [Transaction] = []
        let euro = Currency.eur == options.currency ? Currency.gbp : Currency.eur
        for day in 0..<56 {
            let count = Int(random.next() % 4)
            for index in 0..<count {
                let second = Int(random.next() % 86_400)
                let roll = random.next() % 20
                let cents = Int64(random.next() % 6000) + 100
                var paid = Money(minorUnits: -scale.minor(cents), currency: options.currency)
                if roll == 0 {
                    // A whole amount: it rounds up by nothing.
                    paid = money(-(Int64(random.next() % 50) + 1) * roundUpStep)
                } else if roll == 1 {
                    paid = Money(minorUnits: -cents, currency: euro)
                }
                let merchant = DemoDataset.merchants[Int(random.next() % UInt64(DemoDataset.merchants.count))]
                transactions.append(Transaction(
                    id: "tx-\(day)-\(index)",
                    timestamp: moment(day: day, second: second),
                    amount: paid,
                    counterparty: merchant, category: DemoDataset.categories[merchant]))
            }
            if day % 14 == 3 {
                transactions.append(Transaction(id: "tx-\(day)-salary", timestamp: moment(day: day, second: 9 * 3600),
                                                amount: amount(250_000), counterparty: "Salary", category: "income"))
            }
        }
        self.transactions = transactions
            .filter { $0.timestamp <= now }
            .sorted { $0.timestamp > $1.timestamp }
    }

    /// A saved round-up as the account's activity says it.
    static func savedRoundUpsMessage(goalName: String) -> MarkupText {
        MarkupText(parsing: "<strong>You</strong> saved your round-ups into <strong>\(escaped(goalName))</strong>.")
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// The start of the oldest day with activity; what `/activities` answers as `oldest`.
    public var oldestActivity: Date {
        activities.last.map { DemoDataset.startOfDay($0.timestamp) } ?? DemoDataset.startOfDay(now)
    }

    static func startOfDay(_ date: Date) -> Date {
        let seconds = date.timeIntervalSince1970
        return Date(timeIntervalSince1970: (seconds / 86_400).rounded(.down) * 86_400)
    }

    static let places = ["Starbucks", "Espresso House", "7-Eleven", "Pressbyrån", "Bakery Nº5", "McDonald's", "Candy Shop"]
    static let merchants = ["Tesco", "Blue Bottle Coffee", "Uber", "Whole Foods", "Spotify", "Shell", "Apple Store",
                            "Pharmacy", "Book Depository", "Cinema City", "Ramen 一蘭", "Bakery Nº5"]
    /// Each merchant's category, in the words most banks use (Monzo's, Starling's lower-cased).
    static let categories = ["Tesco": "groceries", "Blue Bottle Coffee": "eating_out", "Uber": "transport",
                             "Whole Foods": "groceries", "Spotify": "entertainment", "Shell": "transport",
                             "Apple Store": "shopping", "Pharmacy": "personal_care", "Book Depository": "shopping",
                             "Cinema City": "entertainment", "Ramen 一蘭": "eating_out", "Bakery Nº5": "eating_out"]
}
