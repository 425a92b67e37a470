import Foundation

/// One entry of the whole-account activity feed (`GET /activities`).
public struct Activity: Hashable, Sendable {
    public var message: MarkupText
    public var amount: Money
    public var userId: Int
    public var timestamp: Date
    /// What the entry is, so sums take only what they mean (saved per week: savings, never income).
    public var kind: Kind
    /// The bank's own category of a payment or income ("groceries", "eating_out"), where it
    /// gives one: the journal's `expenses:`/`income:` account. Not kept by the offline cache.
    public var category: String?

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

    public init(message: MarkupText, amount: Money, userId: Int, timestamp: Date, kind: Kind = .saving, category: String? = nil) {
        self.message = message
        self.amount = amount
        self.userId = userId
        self.timestamp = timestamp
        self.kind = kind
        self.category = category.map(TextSanitizer.clean)
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
}

extension Activity: Codable {
    enum CodingKeys: String, CodingKey { case message, amount, userId, timestamp, kind }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // `kind` is ours (the offline cache keeps Starling's); the Qapital API sends none: a saving.
        let kind = (try? container.decodeIfPresent(String.self, forKey: .kind)).flatMap { $0.flatMap(Kind.init(rawValue:)) }
        self.init(
            message: MarkupText(parsing: try container.decodeIfPresent(String.self, forKey: .message) ?? ""),
            amount: try container.money(.amount, currency: decoder.accountCurrency),
            userId: try container.decode(Int.self, forKey: .userId),
            timestamp: try container.decode(Date.self, forKey: .timestamp),
            kind: kind ?? .saving
        )
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(message.markupSource, forKey: .message)
        try container.encode(amount.decimalValue, forKey: .amount)
        try container.encode(userId, forKey: .userId)
        try container.encode(Timestamp.queryString(timestamp), forKey: .timestamp)
        if kind != .saving { try container.encode(kind.rawValue, forKey: .kind) }
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
        activities = try container.lossyListIfPresent(Activity.self, forKey: .activities)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Timestamp.queryString(oldest), forKey: .oldest)
        try container.encode(activities, forKey: .activities)
    }
}
