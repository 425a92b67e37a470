import FeedModel
import Foundation

/// The demo dataset as a live backend: answers every endpoint and applies the same rules that
/// `qapital-tui serve` serves over HTTP (goal creation checks, transfers idempotent by id).
public actor DemoBackend {
    /// Built on first use, inside the actor: making the demo data takes a few milliseconds that
    /// the app's first frame should not wait for.
    public private(set) var dataset: DemoDataset {
        get {
            if let built { return built }
            let made = DemoDataset(now: now, options: options)
            built = made
            return made
        }
        set {
            built = newValue
            revision &+= 1
        }
    }
    /// Goes up with every change to the data (a goal created, a transfer applied): answers
    /// made at one revision can be reused until it changes.
    public private(set) var revision = 0
    private var built: DemoDataset?
    private var photos: [String: Data] = [:]
    private var appliedTransfers: [UUID: (goalId: GoalID, amount: Money)] = [:]
    private let now: Date
    private let options: DemoDataset.Options
    /// When a transfer happens (the wall clock; tests pass their fixed one).
    private let clock: @Sendable () -> Date

    public init(dataset: DemoDataset, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.now = dataset.now
        self.options = DemoDataset.Options(currency: dataset.currency)
        self.built = dataset
        self.clock = clock
    }

    public init(now: Date = Date(), options: DemoDataset.Options = DemoDataset.Options(),
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
        self.options = options
        self.clock = clock
    }

    public var currency: Currency { dataset.currency }

    public func goals() -> [Goal] { dataset.goals }

    public func feed(goalId: GoalID) throws(APIError) -> [FeedItem] {
        let label = "GET /savingsgoals/\(goalId)/feed"
        guard dataset.goals.contains(where: { $0.id == goalId }) else {
            throw APIError(kind: .notFound, request: label, message: "\(label): not found (HTTP 404)", status: 404)
        }
        return dataset.feeds[goalId] ?? []
    }

    public func rules() -> [SavingsRule] { dataset.rules }

    /// The demo's rule of `kind` (a savings rule's transfer names it, as a client of the API does).
    public func ruleId(of kind: SavingsRule.Kind?) -> Int? {
        kind.flatMap { kind in dataset.rules.first { $0.kind == kind }?.id }
    }

    public func user(id: Int) throws(APIError) -> User {
        guard let user = dataset.users.first(where: { $0.id == id }) else {
            let label = "GET /users/\(id)"
            throw APIError(kind: .notFound, request: label, message: "\(label): not found (HTTP 404)", status: 404)
        }
        return user
    }

    /// Activities with `from ≤ timestamp < to`, newest first, and the oldest day there is.
    public func activities(from: Date, to: Date) throws(APIError) -> ActivityPage {
        guard from <= to else {
            throw DemoBackend.rejected("GET /activities", status: 400, "from is after to")
        }
        let all = dataset.activities
        // Newest first: find the slice by binary search, so a page costs the same at any depth.
        let start = DemoBackend.firstIndex(in: all) { $0.timestamp < to }
        let end = DemoBackend.firstIndex(in: all) { $0.timestamp < from }
        return ActivityPage(oldest: dataset.oldestActivity, activities: Array(all[start..<end]))
    }

    public func transactions(from: Date, to: Date) -> [Transaction] {
        dataset.transactions.filter { $0.timestamp >= from && $0.timestamp < to }
    }

    /// Checks a new goal's fields as the form does; returns a message for the first problem.
    public static func validateNewGoal(name: String, target: Money?) -> String? {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return "a name is required" }
        if trimmed.count > 60 { return "the name is longer than 60 characters" }
        if let target, target.minorUnits <= 0 { return "the target must be more than zero" }
        return nil
    }

    /// A created goal's photo, kept under `/images/photos/ID.png` (or `.jpg`), served back as its picture.
    public func photo(atPath path: String) -> Data? { photos[path] }

    /// The path a new goal's photo is kept at: `/images/photos/ID.png` or `.jpg`.
    public static func photoPath(goalId: GoalID, format: String) -> String {
        "/images/photos/\(goalId).\(format == "png" ? "png" : "jpg")"
    }

    public func createGoal(name: String, target: Money?, photo: Data? = nil) throws(APIError) -> Goal {
        if let problem = DemoBackend.validateNewGoal(name: name, target: target) {
            throw DemoBackend.rejected("POST /savingsgoals", status: 400, problem)
        }
        let id = GoalID((dataset.goals.compactMap(\.id.number).max() ?? 0) + 1)
        var imageURL: URL?
        if let photo {
            guard photo.count <= NewGoal.maxPhotoBytes else {
                throw DemoBackend.rejected("POST /savingsgoals", status: 400, "base64EncodedPhoto: over 10 MB")
            }
            guard let format = NewGoal.photoFormat(photo) else {
                throw DemoBackend.rejected("POST /savingsgoals", status: 400, "base64EncodedPhoto: not a PNG or JPEG image")
            }
            let path = DemoBackend.photoPath(goalId: id, format: format)
            photos[path] = photo
            imageURL = URL(string: DemoImages.scheme + ":" + path)
        }
        let goal = Goal(id: id, name: name.trimmingCharacters(in: .whitespacesAndNewlines), ownerId: 1,
                        imageURL: imageURL, target: target, balance: .zero(dataset.currency))
        dataset.goals.append(goal)
        dataset.feeds[goal.id] = []
        return goal
    }

    public func transfer(goalId: GoalID, transferId: UUID, amount: Money, savingsRuleId: Int? = nil) throws(APIError) -> Goal {
        try transfer(goalId: goalId, transferId: transferId, amount: amount, at: clock(), savingsRuleId: savingsRuleId)
    }

    /// A transfer at `at` (the demo's saves of earlier runs are applied again at their times).
    /// `savingsRuleId`: the rule that moved it, which its feed item carries (nil: the round-ups').
    public func transfer(goalId: GoalID, transferId: UUID, amount: Money, at: Date, savingsRuleId: Int? = nil) throws(APIError) -> Goal {
        let label = "POST /savingsgoals/\(goalId)/transfers"
        guard let index = dataset.goals.firstIndex(where: { $0.id == goalId }), dataset.goals[index].status == .active else {
            throw APIError(kind: .notFound, request: label, message: "\(label): not found (HTTP 404)", status: 404)
        }
        if let earlier = appliedTransfers[transferId] {
            guard earlier.goalId == goalId, earlier.amount == amount else {
                throw DemoBackend.rejected(label, status: 409, "transfer id already used for another transfer")
            }
            return dataset.goals[index]
        }
        guard amount.currency == dataset.currency, amount.minorUnits > 0 else {
            throw DemoBackend.rejected(label, status: 400, "the amount must be more than zero")
        }
        let (sum, overflow) = dataset.goals[index].balance.minorUnits.addingReportingOverflow(amount.minorUnits)
        guard !overflow else {
            throw DemoBackend.rejected(label, status: 400, "the balance would be out of range")
        }
        appliedTransfers[transferId] = (goalId, amount)
        dataset.goals[index].balance.minorUnits = sum
        let rule = dataset.rules.first { $0.id == savingsRuleId }
        let said = rule?.kind == .guiltyPleasure ? "<strong>You</strong> saved a guilty pleasure." : "<strong>You</strong> saved your round-ups."
        let item = FeedItem(id: transferId.uuidString.lowercased(), timestamp: at, message: MarkupText(parsing: said),
                            amount: amount, userId: 1, savingsRuleId: rule?.id ?? 1)
        dataset.feeds[goalId, default: []].insert(item, at: 0)
        // The same saving in the account's activity (newest first), so the demo stays one ledger.
        let activity = Activity(id: item.id, message: DemoDataset.savedRoundUpsMessage(goalName: dataset.goals[index].name), amount: amount,
                                userId: 1, timestamp: item.timestamp)
        let at = DemoBackend.firstIndex(in: dataset.activities) { $0.timestamp <= activity.timestamp }
        dataset.activities.insert(activity, at: at)
        return dataset.goals[index]
    }

    /// The first index whose element satisfies `predicate`, which must be false then true along the array.
    static func firstIndex<T>(in array: [T], where predicate: (T) -> Bool) -> Int {
        var low = 0
        var high = array.count
        while low < high {
            let middle = (low + high) / 2
            if predicate(array[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// A refused request: "POST /savingsgoals: HTTP 400: a name is required", with its status,
    /// so `serve` answers with that status and the part after it.
    static func rejected(_ label: String, status: Int, _ reason: String) -> APIError {
        APIError(kind: .rejected, request: label, message: "\(label): HTTP \(status): \(reason)", status: status)
    }
}
