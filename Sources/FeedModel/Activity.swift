import Foundation

/// One entry of the whole-account activity feed (`GET /activities`).
public struct Activity: Hashable, Sendable {
    public var message: MarkupText
    public var amount: Money
    public var userId: Int
    public var timestamp: Date

    public init(message: MarkupText, amount: Money, userId: Int, timestamp: Date) {
        self.message = message
        self.amount = amount
        self.userId = userId
        self.timestamp = timestamp
    }
}

extension Activity: Codable {
    enum CodingKeys: String, CodingKey { case message, amount, userId, timestamp }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            message: MarkupText(parsing: try container.decodeIfPresent(String.self, forKey: .message) ?? ""),
            amount: try container.money(.amount, currency: decoder.accountCurrency),
            userId: try container.decode(Int.self, forKey: .userId),
            timestamp: try container.decode(Date.self, forKey: .timestamp)
        )
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(message.markupSource, forKey: .message)
        try container.encode(amount.decimalValue, forKey: .amount)
        try container.encode(userId, forKey: .userId)
        try container.encode(Timestamp.queryString(timestamp), forKey: .timestamp)
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
