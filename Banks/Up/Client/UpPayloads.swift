import FeedModel
import Foundation

/// Up's JSON:API shapes (API v1, docs/banks.md), as the client reads them and `serve --api up`
/// writes them. Decoding is lenient: unknown keys are ignored, every field a row can do without
/// is optional, and lists are read record by record. Text is cleaned when it becomes a model value.
public enum Up {
    /// `{"currencyCode": "AUD", "value": "-107.92", "valueInBaseUnits": -10792}`: the amount is
    /// `valueInBaseUnits`, checked against `value` and the currency's ISO 4217 exponent.
    public struct MoneyObject: Codable, Hashable, Sendable {
        public var currencyCode: String
        public var value: String?
        public var valueInBaseUnits: Int64

        public init(currencyCode: String, value: String?, valueInBaseUnits: Int64) {
            self.currencyCode = currencyCode
            self.value = value
            self.valueInBaseUnits = valueInBaseUnits
        }

        /// The amount as the API writes it, `value` included.
        public init(_ money: Money) {
            self.init(currencyCode: money.currency.code, value: MoneyObject.valueText(money), valueInBaseUnits: money.minorUnits)
        }

        /// `-107.92`: every digit of the currency's exponent, a plain minus.
        public static func valueText(_ money: Money) -> String {
            let digits = money.currency.minorDigits
            let magnitude = money.minorUnits.magnitude
            let per = UInt64(money.currency.minorPerUnit)
            var text = (money.minorUnits < 0 ? "-" : "") + String(magnitude / per)
            if digits > 0 {
                let fraction = String(magnitude % per)
                text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
            }
            return text
        }

        /// The amount as money. A code that is not ISO 4217, an amount out of range, or a `value`
        /// that says another amount than `valueInBaseUnits` at the currency's exponent is malformed.
        public func money(_ field: String) throws(MalformedPayload) -> Money {
            guard let currency = Currency.from(code: currencyCode) else {
                throw MalformedPayload(resource: field, reason: "not an ISO currency code: \"\(String(currencyCode.prefix(10)))\"")
            }
            guard let money = Money(bounded: valueInBaseUnits, currency: currency) else {
                throw MalformedPayload(resource: field, reason: "valueInBaseUnits \(valueInBaseUnits) is out of range")
            }
            if let value, !value.isEmpty {
                guard let said = Money(string: value, currency: currency), said.minorUnits == money.minorUnits,
                      MoneyObject.fractionDigits(value) <= currency.minorDigits else {
                    throw MalformedPayload(resource: field, reason: "value \"\(String(value.prefix(24)))\" is not "
                                           + "valueInBaseUnits \(valueInBaseUnits) at \(currency.code)'s \(currency.minorDigits) decimals")
                }
            }
            return money
        }

        static func fractionDigits(_ text: String) -> Int {
            guard let dot = text.firstIndex(of: ".") else { return 0 }
            return text.distance(from: dot, to: text.endIndex) - 1
        }
    }

    /// `{"self", "related"}` and a list's `{"prev", "next"}`; a link may be null or absent.
    public struct Links: Codable, Hashable, Sendable {
        public var prev: String?
        public var next: String?
        public var related: String?
        public var `self`: String?

        public init(prev: String? = nil, next: String? = nil, related: String? = nil, self selfLink: String? = nil) {
            self.prev = prev
            self.next = next
            self.related = related
            self.`self` = selfLink
        }
    }

    /// `{"type", "id"}`: what a relationship points at.
    public struct Identifier: Codable, Hashable, Sendable {
        public var type: String?
        public var id: String

        public init(type: String, id: String) {
            self.type = type
            self.id = id
        }
    }

    /// A to-one relationship: `{"data": {"type", "id"} | null, "links"?}`; `{}` reads as none.
    public struct ToOne: Codable, Hashable, Sendable {
        public var data: Identifier?
        public var links: Links?

        public init(_ data: Identifier?, links: Links? = nil) {
            self.data = data
            self.links = links
        }
    }

    /// A to-many relationship (`tags`): only its ids are read.
    public struct ToMany: Codable, Hashable, Sendable {
        public var data: [Identifier]?
        public var links: Links?

        public init(_ data: [Identifier]) {
            self.data = data
        }
    }

    // MARK: - Accounts

    public struct AccountAttributes: Codable, Hashable, Sendable {
        public var displayName: String?
        /// `SAVER`, `TRANSACTIONAL`, `HOME_LOAN`.
        public var accountType: String?
        /// `INDIVIDUAL`, `JOINT`.
        public var ownershipType: String?
        public var balance: MoneyObject
        public var createdAt: Date?

        public init(displayName: String, accountType: String, ownershipType: String, balance: MoneyObject, createdAt: Date) {
            self.displayName = displayName
            self.accountType = accountType
            self.ownershipType = ownershipType
            self.balance = balance
            self.createdAt = createdAt
        }
    }

    public struct AccountRelationships: Codable, Hashable, Sendable {
        public var transactions: ToOne?
        public init(transactions: ToOne?) { self.transactions = transactions }
    }

    /// `{"type": "accounts", "id", "attributes", "relationships", "links"}`
    public struct AccountResource: Codable, Hashable, Sendable {
        public var type: String?
        public var id: String
        public var attributes: AccountAttributes
        public var relationships: AccountRelationships?
        public var links: Links?

        public init(id: String, attributes: AccountAttributes, relationships: AccountRelationships? = nil, links: Links? = nil) {
            self.type = "accounts"
            self.id = id
            self.attributes = attributes
            self.relationships = relationships
            self.links = links
        }

        public var isSaver: Bool { attributes.accountType?.uppercased() == "SAVER" }
        public var isTransactional: Bool { attributes.accountType?.uppercased() == "TRANSACTIONAL" }
        public var isJoint: Bool { attributes.ownershipType?.uppercased() == "JOINT" }
    }

    // MARK: - Transactions

    /// `{"amount": Money (negative), "boostPortion": Money?}`
    public struct RoundUpObject: Codable, Hashable, Sendable {
        public var amount: MoneyObject
        public var boostPortion: MoneyObject?

        public init(amount: MoneyObject, boostPortion: MoneyObject?) {
            self.amount = amount
            self.boostPortion = boostPortion
        }
    }

    public struct HoldInfo: Codable, Hashable, Sendable {
        public var amount: MoneyObject?
        public var foreignAmount: MoneyObject?
    }

    public struct Cashback: Codable, Hashable, Sendable {
        public var description: String?
        public var amount: MoneyObject?
    }

    public struct CardPurchaseMethod: Codable, Hashable, Sendable {
        public var method: String?
        public var cardNumberSuffix: String?

        public init(method: String?, cardNumberSuffix: String?) {
            self.method = method
            self.cardNumberSuffix = cardNumberSuffix
        }
    }

    public struct Customer: Codable, Hashable, Sendable {
        public var displayName: String?
        public init(displayName: String) { self.displayName = displayName }
    }

    public struct Note: Codable, Hashable, Sendable {
        public var text: String?
    }

    public struct TransactionAttributes: Codable, Hashable, Sendable {
        /// `HELD` or `SETTLED`.
        public var status: String?
        public var rawText: String?
        public var description: String?
        public var message: String?
        public var isCategorizable: Bool?
        public var holdInfo: HoldInfo?
        public var roundUp: RoundUpObject?
        public var cashback: Cashback?
        public var amount: MoneyObject
        public var foreignAmount: MoneyObject?
        public var cardPurchaseMethod: CardPurchaseMethod?
        public var settledAt: Date?
        public var createdAt: Date
        public var transactionType: String?
        public var note: Note?
        public var performingCustomer: Customer?

        public init(status: String, rawText: String?, description: String, message: String?, amount: MoneyObject,
                    foreignAmount: MoneyObject?, roundUp: RoundUpObject?, createdAt: Date, settledAt: Date?,
                    performingCustomer: Customer?) {
            self.status = status
            self.rawText = rawText
            self.description = description
            self.message = message
            self.isCategorizable = true
            self.amount = amount
            self.foreignAmount = foreignAmount
            self.roundUp = roundUp
            self.createdAt = createdAt
            self.settledAt = settledAt
            self.performingCustomer = performingCustomer
            self.holdInfo = status == "HELD" ? HoldInfo(amount: amount, foreignAmount: foreignAmount) : nil
        }
    }

    public struct TransactionRelationships: Codable, Hashable, Sendable {
        public var account: ToOne?
        /// The other account of a transfer between the customer's own accounts; `{"data": null}` or `{}` otherwise.
        public var transferAccount: ToOne?
        public var category: ToOne?
        public var parentCategory: ToOne?
        public var tags: ToMany?

        public init(account: ToOne?, transferAccount: ToOne?) {
            self.account = account
            self.transferAccount = transferAccount
            self.category = ToOne(nil)
            self.parentCategory = ToOne(nil)
            self.tags = ToMany([])
        }
    }

    /// `{"type": "transactions", "id", "attributes", "relationships", "links"}`
    public struct TransactionResource: Codable, Hashable, Sendable {
        public var type: String?
        public var id: String
        public var attributes: TransactionAttributes
        public var relationships: TransactionRelationships?
        public var links: Links?

        public init(id: String, attributes: TransactionAttributes, relationships: TransactionRelationships?) {
            self.type = "transactions"
            self.id = id
            self.attributes = attributes
            self.relationships = relationships
        }
    }

    // MARK: - Documents

    /// `{"data": [Resource], "links": {"prev", "next"}}`, read resource by resource.
    public struct ListDocument<Resource: Codable & Sendable>: Codable, Sendable {
        public var data: [Resource]
        public var links: Links?

        public init(data: [Resource], links: Links?) {
            self.data = data
            self.links = links
        }

        enum CodingKeys: String, CodingKey { case data, links }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            data = try container.decodeIfPresent(LossyList<Resource>.self, forKey: .data)?.elements ?? []
            links = try? container.decodeIfPresent(Links.self, forKey: .links)
        }
    }

    /// `{"data": Resource}`
    public struct SingleDocument<Resource: Codable & Sendable>: Codable, Sendable {
        public var data: Resource
        public init(data: Resource) { self.data = data }
    }

    /// `GET /util/ping`: `{"meta": {"id", "statusEmoji"}}`
    public struct Ping: Codable, Sendable {
        public struct Meta: Codable, Sendable {
            public var id: String?
            public var statusEmoji: String?
        }
        public var meta: Meta?

        public init(id: String, statusEmoji: String) {
            meta = Meta(id: id, statusEmoji: statusEmoji)
        }
    }

    // MARK: - Errors

    /// `{"errors": [{"status", "title", "detail", "source"?}]}`
    public struct ErrorDocument: Codable, Sendable {
        public struct Source: Codable, Sendable {
            public var parameter: String?
            public var pointer: String?
        }

        public struct ErrorObject: Codable, Sendable {
            public var status: String?
            public var title: String?
            public var detail: String?
            public var source: Source?

            public init(status: String, title: String, detail: String, parameter: String? = nil) {
                self.status = status
                self.title = title
                self.detail = detail
                self.source = parameter.map { Source(parameter: $0, pointer: nil) }
            }
        }

        public var errors: [ErrorObject]?

        public init(errors: [ErrorObject]) { self.errors = errors }

        /// The server's words on one line: each error's title and detail (and the parameter it is
        /// about), joined; nil when it said nothing. Cleaned by whoever shows it.
        public var message: String? {
            let parts = (errors ?? []).compactMap { error -> String? in
                let words = [error.title, error.detail].compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }
                    .filter { !$0.isEmpty }
                guard !words.isEmpty else { return nil }
                var line = words.joined(separator: ": ")
                if let parameter = error.source?.parameter, !parameter.isEmpty { line += " (\(parameter))" }
                return line
            }
            guard !parts.isEmpty else { return nil }
            return parts.joined(separator: "; ").replacingOccurrences(of: "\n", with: " ")
        }
    }

    /// Reads the server's message out of the error envelope (for `HTTPTransport`).
    public static let serverMessage: @Sendable (Data) -> String? = { data in
        (try? JSONDecoder().decode(ErrorDocument.self, from: data))?.message
    }
}
