import Foundation

/// A savings goal. Amounts are in the account's currency (the API carries none).
public struct Goal: Identifiable, Hashable, Sendable {
    public enum Status: Hashable, Sendable {
        case active, deleted
        case other(String)

        init(raw: String) {
            switch raw.lowercased() {
            case "active": self = .active
            case "deleted": self = .deleted
            default: self = .other(TextSanitizer.clean(raw))
            }
        }

        public var rawValue: String {
            switch self {
            case .active: "active"
            case .deleted: "deleted"
            case .other(let raw): raw
            }
        }
    }

    public var id: GoalID
    public var name: String
    public var ownerId: Int
    public var imageURL: URL?
    public var target: Money?
    public var balance: Money
    public var status: Status
    public var connectedUserIds: [Int]
    /// The goal's own colour, where the source gives one (a Monzo pot's style).
    public var tint: GoalTint?
    /// Other names the user may call it by where its shown name says more (SimpleFIN: the
    /// account's own name and the bank's id for it, beside "Vacation · Maple Credit Union"):
    /// `--goal` and a rule's `goal` match them too.
    public var aliases: [String] = []

    public init(id: GoalID, name: String, ownerId: Int, imageURL: URL? = nil, target: Money?, balance: Money,
                status: Status = .active, connectedUserIds: [Int] = [], tint: GoalTint? = nil) {
        self.id = id
        self.name = TextSanitizer.clean(name)
        self.ownerId = ownerId
        self.imageURL = imageURL
        self.target = target
        self.balance = balance
        self.status = status
        self.connectedUserIds = connectedUserIds
        self.tint = tint
    }

    public var isShared: Bool { !connectedUserIds.isEmpty }

    /// Saved ÷ target; nil without a target. May exceed 1.
    public var progress: Double? {
        guard let target, target.minorUnits > 0 else { return nil }
        return Double(balance.minorUnits) / Double(target.minorUnits)
    }
}

extension Goal: Codable {
    enum CodingKeys: String, CodingKey {
        case id, name, userId, goalImageURL, targetAmount, currentBalance, status, connectedUsers
        /// Kept in the offline cache (the Qapital API sends none); an unknown value is no tint.
        case tint
        /// Kept in the offline cache, so a goal is found by the same names offline.
        case aliases
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let currency = decoder.accountCurrency
        self.init(
            id: try container.decode(GoalID.self, forKey: .id),
            name: try container.cleanString(.name),
            ownerId: try container.decodeIfPresent(Int.self, forKey: .userId) ?? 0,
            imageURL: container.urlIfPresent(.goalImageURL),
            target: try container.moneyIfPresent(.targetAmount, currency: currency),
            balance: try container.moneyIfPresent(.currentBalance, currency: currency) ?? .zero(currency),
            status: Status(raw: try container.decodeIfPresent(String.self, forKey: .status) ?? "active"),
            connectedUserIds: try container.decodeIfPresent([Int].self, forKey: .connectedUsers) ?? [],
            tint: (try? container.decodeIfPresent(String.self, forKey: .tint)).flatMap { $0.flatMap(GoalTint.init(rawValue:)) }
        )
        aliases = ((try? container.decodeIfPresent([String].self, forKey: .aliases)) ?? nil)?.prefix(8).map(TextSanitizer.clean) ?? []
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(ownerId, forKey: .userId)
        try container.encodeIfPresent(imageURL?.absoluteString, forKey: .goalImageURL)
        try container.encode(target?.decimalValue, forKey: .targetAmount)
        try container.encode(balance.decimalValue, forKey: .currentBalance)
        try container.encode(status.rawValue, forKey: .status)
        try container.encode(connectedUserIds, forKey: .connectedUsers)
        try container.encodeIfPresent(tint?.rawValue, forKey: .tint)
        if !aliases.isEmpty { try container.encode(aliases, forKey: .aliases) }
    }
}

/// `GET /savingsgoals`.
public struct GoalList: Codable, Sendable {
    public var savingsGoals: [Goal]
    public init(savingsGoals: [Goal]) { self.savingsGoals = savingsGoals }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        savingsGoals = try container.lossyListIfPresent(Goal.self, forKey: .savingsGoals)
    }
}
