import FeedModel
import Foundation

/// The built-in demo data: deterministic for a given "now", spread over about 18 months before it.
///
/// A dozen goals (one deleted, several without target, one over target, several shared), eight
/// users, both rule types, activity with realistic gaps (one stretch of 7 empty two-week windows
/// about a year back), and the last eight weeks of card transactions.
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
        let money = { (cents: Int64) in Money(minorUnits: cents, currency: options.currency) }

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
            SavingsRule(id: 1, kind: .roundup, amount: money(100)),
            SavingsRule(id: 2, kind: .guiltyPleasure, amount: money(400)),
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

        let dayStart = DemoDataset.startOfDay(now)
        let secondsToday = Int(now.timeIntervalSince(dayStart))
        let names = Dictionary(uniqueKeysWithValues: users.map { ($0.id, $0.displayName) })
        func who(_ userId: Int) -> String { userId == 1 ? "You" : names[userId] ?? User.placeholderName(for: userId) }

        // Goal feeds: savings that add up to each goal's balance, newest first.
        var feeds: [GoalID: [FeedItem]] = [:]
        var goals: [Goal] = []
        for plan in plans {
            var items: [FeedItem] = []
            var remaining = plan.balance
            var secondsBack = Int(random.next() % 7200) + 600
            let savers = [1] + plan.shared
            var serial = 0
            while remaining > 0 {
                let userId = savers[Int(random.next() % UInt64(savers.count))]
                let roll = random.next() % 10
                var cents: Int64
                var ruleId: Int?
                var message: String
                switch roll {
                case 0..<5:
                    cents = Int64(random.next() % 99) + 1
                    ruleId = 1
                    message = "<strong>\(who(userId))</strong> made a roundup."
                case 5..<7:
                    cents = 400
                    ruleId = 2
                    message = "<strong>\(who(userId))</strong> didn't resist a guilty pleasure at <strong>\(DemoDataset.places[Int(random.next() % UInt64(DemoDataset.places.count))])</strong>."
                default:
                    cents = Int64(random.next() % 20 + 1) * 500
                    message = "<strong>\(who(userId))</strong> made a manual transfer."
                }
                cents = min(cents, remaining)
                remaining -= cents
                serial += 1
                items.append(FeedItem(
                    id: String(format: "%08x-%04x-4000-8000-%012x", plan.id, serial, random.next() & 0xFFFF_FFFF_FFFF),
                    timestamp: now.addingTimeInterval(-Double(secondsBack)),
                    message: MarkupText(parsing: message), amount: money(cents), userId: userId, savingsRuleId: ruleId))
                secondsBack += Int(random.next() % (3 * 86_400)) + 3_600
            }
            feeds[GoalID(plan.id)] = items
            // Every goal has a picture but "A New Crib" (7), which shows its monogram.
            goals.append(Goal(id: GoalID(plan.id), name: plan.name, ownerId: 1, imageURL: plan.id == 7 ? nil : DemoImages.goalURL(id: plan.id), target: plan.target.map(money),
                              balance: money(plan.balance), status: plan.status, connectedUserIds: plan.shared))
        }
        self.goals = goals
        self.feeds = feeds

        // Activity: zero to four a day, with gaps; none in the last `emptyRecentDays` days.
        var activities: [Activity] = []
        let goalNames = plans.filter { $0.status == .active }.map(\.name)
        for day in 0..<DemoDataset.historyDays {
            if DemoDataset.longGap.contains(day) || (400..<418).contains(day) || (90..<96).contains(day) { continue }
            let count = Int(random.next() % 5)
            var times: [Int] = []
            for _ in 0..<count {
                let limit = day == 0 ? secondsToday : 86_400
                guard limit > 1 else { break }
                times.append(Int(random.next() % UInt64(limit)))
            }
            for second in times.sorted(by: >) {
                let userId = Int(random.next() % 8) + 1
                let roll = random.next() % 10
                let message: String
                let cents: Int64
                switch roll {
                case 0..<5:
                    message = "<strong>\(who(userId))</strong> made a roundup."
                    cents = Int64(random.next() % 99) + 1
                case 5..<8:
                    message = "<strong>\(who(userId))</strong> didn't resist a guilty pleasure at <strong>\(DemoDataset.places[Int(random.next() % UInt64(DemoDataset.places.count))])</strong>."
                    cents = roll == 7 ? 250 : 400
                default:
                    message = "<strong>\(who(userId))</strong> moved money into <strong>\(goalNames[Int(random.next() % UInt64(goalNames.count))])</strong>."
                    cents = Int64(random.next() % 40 + 1) * 250
                }
                let timestamp = dayStart.addingTimeInterval(Double(second - day * 86_400 - options.emptyRecentDays * 86_400))
                activities.append(Activity(message: MarkupText(parsing: message), amount: money(cents), userId: userId, timestamp: timestamp))
            }
        }
        self.activities = activities

        // Card transactions for the last eight weeks: mostly payments, a salary, some abroad.
        var transactions: [Transaction] = []
        let euro = Currency.eur == options.currency ? Currency.gbp : Currency.eur
        for day in 0..<56 {
            let count = Int(random.next() % 4)
            for index in 0..<count {
                let limit = day == 0 ? secondsToday : 86_400
                guard limit > 1 else { break }
                let second = Int(random.next() % UInt64(limit))
                let roll = random.next() % 20
                var cents = -(Int64(random.next() % 6000) + 100)
                if roll == 0 { cents = -(Int64(random.next() % 50) + 1) * 100 }  // a whole amount
                let currency = roll == 1 ? euro : options.currency
                transactions.append(Transaction(
                    id: "tx-\(day)-\(index)",
                    timestamp: dayStart.addingTimeInterval(Double(second - day * 86_400)),
                    amount: Money(minorUnits: cents, currency: currency),
                    counterparty: DemoDataset.merchants[Int(random.next() % UInt64(DemoDataset.merchants.count))]))
            }
            if day % 14 == 3 {
                transactions.append(Transaction(id: "tx-\(day)-salary", timestamp: dayStart.addingTimeInterval(Double(9 * 3600 - day * 86_400)),
                                                amount: money(250_000), counterparty: "Salary"))
            }
        }
        self.transactions = transactions
            .filter { $0.timestamp <= now }
            .sorted { $0.timestamp > $1.timestamp }
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
}
