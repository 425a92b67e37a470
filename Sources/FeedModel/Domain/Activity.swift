import Foundation

/// One entry of the whole-account activity feed (`GET /activities`).
public struct Activity: Hashable, Sendable {
    /// The source's own id for this transaction (Starling `feedItemUid`, Monzo and Up `id`, the
    /// demo's saving id). A source that gives none (the Qapital API) gets `syntheticID`: two rows
    /// that look alike in one answer are two activities. Every output and the cache key on it.
    public var id: String {
        get {
            guard case .text(let ids) = storedID else { return storedID.text }
            guard let separator = ids.utf8.firstIndex(of: Activity.separator) else { return ids }
            return String(ids[..<separator])
        }
        set { storedID = Activity.stored(TextSanitizer.clean(newValue), goalId) }
    }

    /// The id as kept, without the goal: what "each id once" compares and hashes, without
    /// making its text (`ActivityIDIndex`).
    var idKey: ActivityID {
        guard case .text(let ids) = storedID, let separator = ids.utf8.firstIndex(of: Activity.separator) else { return storedID }
        return ActivityID(String(ids[..<separator]))
    }

    /// The goal the source names for money moved into one (Up's saver, Starling's savings goal,
    /// Monzo's pot), by id; nil where the source names none (the Qapital messages: by name).
    public var goalId: GoalID? {
        get {
            guard case .text(let ids) = storedID, let separator = ids.utf8.firstIndex(of: Activity.separator) else { return nil }
            return GoalID(String(ids[ids.utf8.index(after: separator)...]))
        }
        set { storedID = Activity.stored(id, newValue) }
    }

    private static let separator = UInt8(0x1F)

    /// The id as a row keeps it (`ActivityID`: a bank's UUID or `tx_…` id in the row itself),
    /// or with a goal, the id, U+001F and the goal's id as one text: an activity without a goal
    /// (most) pays nothing for the field, and a synthetic id (at most 15 bytes) stays inside the
    /// string. Both are cleaned text, which never holds U+001F.
    private static func stored(_ id: String, _ goal: GoalID?) -> ActivityID {
        guard let goal else { return ActivityID(id) }
        return .text(id + "\u{1F}" + goal.rawValue)
    }

    public var message: MarkupText
    public var amount: Money
    public var userId: Int
    public var timestamp: Date
    /// What the entry is, so sums take only what they mean (saved per week: savings, never income).
    /// Declared here, before `kind` and `categoryNumber`, so those fill the tail of its 25 bytes.
    private var storedID: ActivityID
    public var kind: Kind
    /// The bank's own category of a payment or income ("groceries", "eating_out"), where it
    /// gives one: the journal's `expenses:`/`income:` account. Not kept by the offline cache.
    /// Kept as a 2-byte number for a name interned once per process (`ActivityCategories`), which
    /// fits in the padding after `kind`, so a million activities pay nothing for it.
    public var category: String? {
        get { ActivityCategories.name(categoryNumber) }
        set { categoryNumber = ActivityCategories.number(newValue.map(TextSanitizer.clean)) }
    }
    private var categoryNumber: UInt16 = 0

    /// What an activity is, for the sums over it.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// A saving into a goal (every activity of the Qapital API): money in counts as saved.
        case saving
        /// Money moved from a bank account into one of its savings goals (Starling): the
        /// account's amount is negative; what was saved is its magnitude.
        case moveToGoal
        /// A payment, income or any other movement of a bank account: saved by no one.
        case other
        /// Declined or reversed: drawn dimmed and left out of every sum.
        case void
    }

    /// `id` nil or empty: `syntheticID` of the content (the first of its look-alikes).
    public init(id: String? = nil, message: MarkupText, amount: Money, userId: Int, timestamp: Date, kind: Kind = .saving,
                goalId: GoalID? = nil, category: String? = nil) {
        let given = id.map(TextSanitizer.clean) ?? ""
        let own = given.isEmpty ? Activity.syntheticID(message: message, amount: amount, userId: userId, timestamp: timestamp, kind: kind)
            : given
        self.storedID = Activity.stored(own, goalId.flatMap { $0.rawValue.isEmpty ? nil : $0 })
        self.message = message
        self.amount = amount
        self.userId = userId
        self.timestamp = timestamp
        self.kind = kind
        self.categoryNumber = ActivityCategories.number(category.map(TextSanitizer.clean))
    }

    /// What this entry put into goals, or nil: a saving's money in, a move to a goal's magnitude.
    public var saved: Money? {
        switch kind {
        case .saving: amount.minorUnits > 0 ? amount : nil
        case .moveToGoal: amount.minorUnits != 0 && amount.minorUnits != .min ? amount.magnitude : nil
        case .other, .void: nil
        }
    }

    /// Declined or reversed: in no sum.
    public var isVoid: Bool { kind == .void }

    /// An id for a row its source sent without one: `q` and a stable 64-bit hash (FNV-1a, the
    /// same in every process) of what the row says in 11 base-62 digits, and `-N` for the Nth
    /// look-alike after the first in the same answer (`ActivityPage` numbers them). Look-alikes
    /// share a moment, so they always fall into the same window and get the same numbers on
    /// every fetch of it. Up to 15 bytes, the id is kept inside the `String` (no allocation).
    public static func syntheticID(message: MarkupText, amount: Money, userId: Int, timestamp: Date, kind: Kind,
                                   occurrence: Int = 0) -> String {
        let millis = (timestamp.timeIntervalSince1970 * 1000).rounded()
        let stamp = millis.isFinite && abs(millis) < 9e15 ? String(Int64(millis)) : String(timestamp.timeIntervalSince1970)
        let content = [stamp, String(amount.minorUnits), amount.currency.code, String(userId), kind.rawValue, message.markupSource]
            .joined(separator: "\u{1F}")
        var hash = FNV1a.hash(content.utf8)
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: 11)
        for index in digits.indices.reversed() {
            digits[index] = base62[Int(hash % 62)]
            hash /= 62
        }
        let base = "q" + String(decoding: digits, as: UTF8.self)
        return occurrence == 0 ? base : base + "-" + String(occurrence)
    }

    private static let base62 = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// Whether `id` is the content's own synthetic id (the source sent none).
    var hasSyntheticID: Bool {
        id == Activity.syntheticID(message: message, amount: amount, userId: userId, timestamp: timestamp, kind: kind)
    }

    /// Numbers look-alikes without an id in one answer: the second of two identical rows gets
    /// `-1`, the third `-2`, so none is taken for another's duplicate. Rows with their source's
    /// own id are left as they are (the same id twice is one transaction delivered twice).
    public static func numberingLookAlikes(_ activities: [Activity]) -> [Activity] {
        var seen: [String: Int] = [:]
        return activities.map { activity in
            guard activity.hasSyntheticID else { return activity }
            let count = seen[activity.id, default: 0]
            seen[activity.id] = count + 1
            guard count > 0 else { return activity }
            var numbered = activity
            numbered.id = Activity.syntheticID(message: activity.message, amount: activity.amount, userId: activity.userId,
                                               timestamp: activity.timestamp, kind: activity.kind, occurrence: count)
            return numbered
        }
    }
}

extension Activity: Codable {
    enum CodingKeys: String, CodingKey { case id, message, amount, userId, timestamp, kind, goalId }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // `kind` is ours (the offline cache keeps Starling's); the Qapital API sends none: a saving.
        let kind = (try? container.decodeIfPresent(String.self, forKey: .kind)).flatMap { $0.flatMap(Kind.init(rawValue:)) }
        // `id` and `goalId`: ours (the cache keeps the bank's, the demo serves its own); a row
        // without an id gets a synthetic one (numbered among look-alikes by `ActivityPage`).
        let goalId = try container.decodeIfPresent(String.self, forKey: .goalId).map(TextSanitizer.clean)
        self.init(
            id: Activity.lenientID(container),
            message: MarkupText(parsing: try container.decodeIfPresent(String.self, forKey: .message) ?? ""),
            amount: try container.money(.amount, currency: decoder.accountCurrency),
            userId: try container.decode(Int.self, forKey: .userId),
            timestamp: try container.decode(Date.self, forKey: .timestamp),
            kind: kind ?? .saving,
            goalId: goalId.flatMap { $0.isEmpty ? nil : GoalID($0) }
        )
    }

    /// A server's id as text: a string, or a whole number (`"id": 7`); anything else is no id.
    private static func lenientID(_ container: KeyedDecodingContainer<CodingKeys>) -> String? {
        if let text = try? container.decodeIfPresent(String.self, forKey: .id) { return text }
        if let number = try? container.decodeIfPresent(Int64.self, forKey: .id) { return String(number) }
        return nil
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(message.markupSource, forKey: .message)
        try container.encode(amount.decimalValue, forKey: .amount)
        try container.encode(userId, forKey: .userId)
        try container.encode(Timestamp.queryString(timestamp), forKey: .timestamp)
        if kind != .saving { try container.encode(kind.rawValue, forKey: .kind) }
        try container.encodeIfPresent(goalId?.rawValue, forKey: .goalId)
    }
}

/// One answer of `GET /activities?from=&to=`: the window's activities and the oldest date that has any.
public struct ActivityPage: Codable, Sendable {
    public var oldest: Date
    public var activities: [Activity]

    public init(oldest: Date, activities: [Activity]) {
        self.oldest = oldest
        self.activities = activities
    }

    enum CodingKeys: String, CodingKey { case oldest, activities }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        oldest = try container.decode(Date.self, forKey: .oldest)
        activities = Activity.numberingLookAlikes(try container.lossyListIfPresent(Activity.self, forKey: .activities))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Timestamp.queryString(oldest), forKey: .oldest)
        try container.encode(activities, forKey: .activities)
    }
}
