/// A savings rule (`GET /savingsrules`).
public struct SavingsRule: Identifiable, Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case roundup, guiltyPleasure
        case other(String)

        init(raw: String) {
            switch raw {
            case "roundup": self = .roundup
            case "guilty_pleasure": self = .guiltyPleasure
            default: self = .other(TextSanitizer.clean(raw))
            }
        }

        public var rawValue: String {
            switch self {
            case .roundup: "roundup"
            case .guiltyPleasure: "guilty_pleasure"
            case .other(let raw): raw
            }
        }

        /// "Round-up", "Guilty pleasure".
        public var label: String {
            switch self {
            case .roundup: "Round-up"
            case .guiltyPleasure: "Guilty pleasure"
            case .other(let raw): raw.replacingOccurrences(of: "_", with: " ").capitalized
            }
        }
    }

    public var id: Int
    public var kind: Kind
    public var amount: Money?

    public init(id: Int, kind: Kind, amount: Money?) {
        self.id = id
        self.kind = kind
        self.amount = amount
    }
}

extension SavingsRule: Codable {
    enum CodingKeys: String, CodingKey { case id, type, amount }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(Int.self, forKey: .id),
            kind: Kind(raw: try container.decode(String.self, forKey: .type)),
            amount: try container.moneyIfPresent(.amount, currency: decoder.accountCurrency)
        )
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind.rawValue, forKey: .type)
        try container.encodeIfPresent(amount?.decimalValue, forKey: .amount)
    }
}

/// `GET /savingsrules`.
public struct RuleList: Codable, Sendable {
    public var savingsRules: [SavingsRule]
    public init(savingsRules: [SavingsRule]) { self.savingsRules = savingsRules }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        savingsRules = try container.lossyListIfPresent(SavingsRule.self, forKey: .savingsRules)
    }
}
