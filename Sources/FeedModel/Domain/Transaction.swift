import Foundation

/// A card transaction (`GET /transactions`, ours). Negative amounts are money out.
public struct Transaction: Identifiable, Hashable, Sendable {
    public var id: String
    public var timestamp: Date
    public var amount: Money
    public var counterparty: String
    /// Whether the payment can round up at all. Every payment of the Qapital API can; a source
    /// with its own rule (Starling: settled or pending card payments only) says no for the rest.
    public var roundsUp: Bool
    /// The round-up the bank itself made for this payment (Up), as a positive amount, boost
    /// included: shown as it is instead of one computed here. Nil where the app computes it.
    public var bankRoundUp: Money?
    /// The part of `bankRoundUp` that was a boost (Up's boosted round-ups), positive; nil without one.
    public var boost: Money?
    /// The bank's own category of the payment, as the bank writes it ("eating_out", Starling's
    /// "EATING_OUT", Up's "restaurants-and-cafes"), cleaned; nil where the source gives none.
    /// Rules compare it with `Rule.sameCategory`.
    public var category: String?
    /// Whether the payment was made by card, where the source says so apart from its round-ups
    /// (Up's `cardPurchaseMethod`: Up rounds up only where its customer turned round-ups on); nil:
    /// a payment is a card payment when it can round up. Rules count card payments.
    public var cardPayment: Bool?

    public init(id: String, timestamp: Date, amount: Money, counterparty: String, roundsUp: Bool = true,
                bankRoundUp: Money? = nil, boost: Money? = nil, category: String? = nil, cardPayment: Bool? = nil) {
        self.id = TextSanitizer.clean(id)
        self.timestamp = timestamp
        self.amount = amount
        self.counterparty = TextSanitizer.clean(counterparty)
        self.roundsUp = roundsUp
        self.bankRoundUp = bankRoundUp
        self.boost = boost
        self.category = category.map(TextSanitizer.clean).flatMap { $0.isEmpty ? nil : $0 }
        self.cardPayment = cardPayment
    }

    public var isMoneyOut: Bool { amount.minorUnits < 0 }
}

extension Transaction: Codable {
    enum CodingKeys: String, CodingKey { case id, timestamp, amount, currency, counterparty, category }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let code = try container.decode(String.self, forKey: .currency)
        guard let currency = Currency.from(code: code) else {
            throw DecodingError.dataCorruptedError(forKey: .currency, in: container,
                                                   debugDescription: "not an ISO currency code: \"\(TextSanitizer.clean(String(code.prefix(10))))\"")
        }
        self.init(
            id: try container.decode(String.self, forKey: .id),
            timestamp: try container.decode(Date.self, forKey: .timestamp),
            amount: try container.money(.amount, currency: currency),
            counterparty: try container.decodeIfPresent(String.self, forKey: .counterparty) ?? "",
            // Ours, optional: a category that is not text is no category, not a lost payment.
            category: (try? container.decodeIfPresent(String.self, forKey: .category)) ?? nil
        )
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(Timestamp.feedString(timestamp), forKey: .timestamp)
        try container.encode(amount.decimalValue, forKey: .amount)
        try container.encode(amount.currency.code, forKey: .currency)
        try container.encode(counterparty, forKey: .counterparty)
        try container.encodeIfPresent(category, forKey: .category)
    }
}

/// `GET /transactions?from=&to=`.
public struct TransactionList: Codable, Sendable {
    public var transactions: [Transaction]
    public init(transactions: [Transaction]) { self.transactions = transactions }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        transactions = try container.lossyListIfPresent(Transaction.self, forKey: .transactions)
    }
}
