import Foundation

/// One saving into a goal (`GET /savingsgoals/:id/feed`).
public struct FeedItem: Identifiable, Hashable, Sendable {
    /// The server makes these anew on every request: not a stable key across reloads.
    public var id: String
    public var type: String
    public var timestamp: Date
    public var message: MarkupText
    public var amount: Money
    public var userId: Int
    public var savingsRuleId: Int?

    public init(id: String, type: String = "saving", timestamp: Date, message: MarkupText, amount: Money,
                userId: Int, savingsRuleId: Int? = nil) {
        self.id = TextSanitizer.clean(id)
        self.type = type
        self.timestamp = timestamp
        self.message = message
        self.amount = amount
        self.userId = userId
        self.savingsRuleId = savingsRuleId
    }

    /// The type of an item that moved nothing (a bank's declined or reversed transfer): listed in
    /// the goal's feed as it was, counted in no sum (People's "saved", the balance chart).
    public static let voidType = "void"

    /// This item moved nothing.
    public var isVoid: Bool { type == FeedItem.voidType }
}

extension FeedItem: Codable {
    enum CodingKeys: String, CodingKey {
        case id, type, timestamp, message, amount, userId, savingsRuleId
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decodeIfPresent(String.self, forKey: .id) ?? "",
            type: TextSanitizer.clean(try container.decodeIfPresent(String.self, forKey: .type) ?? "saving"),
            timestamp: try container.decode(Date.self, forKey: .timestamp),
            message: MarkupText(parsing: try container.decodeIfPresent(String.self, forKey: .message) ?? ""),
            amount: try container.money(.amount, currency: decoder.accountCurrency),
            userId: try container.decode(Int.self, forKey: .userId),
            savingsRuleId: try container.decodeIfPresent(Int.self, forKey: .savingsRuleId)
        )
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encode(Timestamp.feedString(timestamp), forKey: .timestamp)
        try container.encode(message.markupSource, forKey: .message)
        try container.encode(amount.decimalValue, forKey: .amount)
        try container.encode(userId, forKey: .userId)
        try container.encodeIfPresent(savingsRuleId, forKey: .savingsRuleId)
    }
}

/// `GET /savingsgoals/:id/feed`.
public struct GoalFeed: Codable, Sendable {
    public var feed: [FeedItem]
    public init(feed: [FeedItem]) { self.feed = feed }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        feed = try container.lossyListIfPresent(FeedItem.self, forKey: .feed)
    }
}

extension MarkupText {
    /// The runs written back as markup, for serving: bold runs in `<strong>`, text escaped.
    public var markupSource: String {
        runs.map { run in
            let escaped = run.text
                .replacingOccurrences(of: "&", with: "&amp;")
                .replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
            return run.isBold ? "<strong>\(escaped)</strong>" : escaped
        }.joined()
    }
}
