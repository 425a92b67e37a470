import FeedModel
import Foundation

/// Starling Bank's JSON shapes (API v2, ../../docs/starling.md), as the client reads them and
/// `serve --api starling` writes them. Decoding is lenient: unknown keys are ignored and every
/// field a screen can do without is optional. Text is cleaned when it becomes a model value.
public enum Starling {
    /// `{"currency": "GBP", "minorUnits": 1234}`
    public struct Amount: Codable, Hashable, Sendable {
        public var currency: String
        public var minorUnits: Int64

        public init(currency: String, minorUnits: Int64) {
            self.currency = currency
            self.minorUnits = minorUnits
        }

        public init(_ money: Money) {
            self.init(currency: money.currency.code, minorUnits: money.minorUnits)
        }

        /// The amount as money; a currency that is not an ISO code is malformed.
        public func money(_ field: String) throws(MalformedPayload) -> Money {
            guard let currency = Currency.from(code: currency) else {
                throw MalformedPayload(resource: field, reason: "not an ISO currency code: \"\(String(self.currency.prefix(10)))\"")
            }
            guard let money = Money(bounded: minorUnits, currency: currency) else {
                throw MalformedPayload(resource: field, reason: "minorUnits \(minorUnits) is out of range")
            }
            return money
        }
    }

    /// `GET /api/v2/accounts`
    public struct AccountList: Codable, Sendable {
        public var accounts: [AccountItem]?
        public init(accounts: [AccountItem]) { self.accounts = accounts }
    }

    public struct AccountItem: Codable, Hashable, Sendable {
        public var accountUid: String
        public var accountType: String?
        public var defaultCategory: String
        public var currency: String
        public var createdAt: Date?
        public var name: String?

        public init(accountUid: String, accountType: String?, defaultCategory: String, currency: String, createdAt: Date?,
                    name: String?) {
            self.accountUid = accountUid
            self.accountType = accountType
            self.defaultCategory = defaultCategory
            self.currency = currency
            self.createdAt = createdAt
            self.name = name
        }
    }

    /// `GET /api/v2/accounts/{accountUid}/balance`
    public struct Balance: Codable, Sendable {
        public var clearedBalance: Amount?
        public var effectiveBalance: Amount?
        public var pendingTransactions: Amount?
        public var acceptedOverdraft: Amount?
        public var amount: Amount?
        public var totalClearedBalance: Amount?
        public var totalEffectiveBalance: Amount?

        public init(cleared: Amount, effective: Amount, pending: Amount) {
            clearedBalance = cleared
            effectiveBalance = effective
            pendingTransactions = pending
            acceptedOverdraft = Amount(currency: effective.currency, minorUnits: 0)
            amount = cleared
            totalClearedBalance = cleared
            totalEffectiveBalance = effective
        }
    }

    /// `GET /api/v2/accounts/{accountUid}/identifiers`
    public struct Identifiers: Codable, Sendable {
        public var accountIdentifier: String?
        public var bankIdentifier: String?
        public var iban: String?
        public var bic: String?

        public init(accountIdentifier: String, bankIdentifier: String, iban: String?, bic: String?) {
            self.accountIdentifier = accountIdentifier
            self.bankIdentifier = bankIdentifier
            self.iban = iban
            self.bic = bic
        }
    }

    /// `GET /api/v2/account-holder/name`
    public struct HolderName: Codable, Sendable {
        public var accountHolderName: String?
        public init(accountHolderName: String) { self.accountHolderName = accountHolderName }
    }

    /// One of `GET /api/v2/account/{accountUid}/savings-goals`.
    public struct SavingsGoal: Codable, Sendable {
        public var savingsGoalUid: String
        public var name: String?
        public var target: Amount?
        public var totalSaved: Amount?
        public var savedPercentage: Double?
        public var state: String?

        public init(savingsGoalUid: String, name: String, target: Amount?, totalSaved: Amount, savedPercentage: Double?,
                    state: String) {
            self.savingsGoalUid = savingsGoalUid
            self.name = name
            self.target = target
            self.totalSaved = totalSaved
            self.savedPercentage = savedPercentage
            self.state = state
        }
    }

    public struct SavingsGoalList: Codable, Sendable {
        public var savingsGoalList: [SavingsGoal]?
        public init(savingsGoalList: [SavingsGoal]) { self.savingsGoalList = savingsGoalList }

        /// Goal by goal: one that cannot be read is skipped and named, not the whole list.
        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            savingsGoalList = try container.decodeIfPresent(LossyList<SavingsGoal>.self, forKey: .savingsGoalList)?.elements
        }
    }

    /// `GET …/savings-goals/{savingsGoalUid}/photo`
    public struct Photo: Codable, Sendable {
        public var base64EncodedPhoto: String?
        public init(base64EncodedPhoto: String?) { self.base64EncodedPhoto = base64EncodedPhoto }
    }

    /// `{"goalCategoryUid", "amount"}`
    public struct RoundUpInfo: Codable, Sendable {
        public var goalCategoryUid: String?
        public var amount: Amount?
    }

    /// One item of a category's feed.
    public struct FeedItem: Codable, Sendable {
        public var feedItemUid: String
        public var categoryUid: String?
        /// In the account's currency.
        public var amount: Amount
        /// In the currency paid.
        public var sourceAmount: Amount?
        /// `IN` or `OUT`.
        public var direction: String
        public var updatedAt: Date?
        public var transactionTime: Date
        public var settlementTime: Date?
        public var source: String?
        public var status: String?
        public var counterPartyType: String?
        /// For money into a savings goal, the goal's `savingsGoalUid`: the goal it is credited to.
        public var counterPartyUid: String?
        public var counterPartyName: String?
        public var reference: String?
        public var spendingCategory: String?
        public var roundUp: RoundUpInfo?

        public init(feedItemUid: String, categoryUid: String, amount: Amount, sourceAmount: Amount?, direction: String,
                    transactionTime: Date, source: String, status: String, counterPartyType: String?, counterPartyName: String?,
                    reference: String?, spendingCategory: String?) {
            self.feedItemUid = feedItemUid
            self.categoryUid = categoryUid
            self.amount = amount
            self.sourceAmount = sourceAmount
            self.direction = direction
            self.updatedAt = transactionTime
            self.transactionTime = transactionTime
            self.settlementTime = status == "SETTLED" ? transactionTime : nil
            self.source = source
            self.status = status
            self.counterPartyType = counterPartyType
            self.counterPartyName = counterPartyName
            self.reference = reference
            self.spendingCategory = spendingCategory
        }
    }

    /// `GET /api/v2/feed/account/{accountUid}/category/{categoryUid}/transactions-between?…`
    public struct FeedItems: Codable, Sendable {
        public var feedItems: [FeedItem]?
        public init(feedItems: [FeedItem]) { self.feedItems = feedItems }

        /// Item by item: one that cannot be read is skipped and named, not the whole feed.
        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            feedItems = try container.decodeIfPresent(LossyList<FeedItem>.self, forKey: .feedItems)?.elements
        }
    }

    /// `PUT /api/v2/account/{accountUid}/savings-goals`: the body.
    public struct CreateGoalRequest: Codable, Sendable {
        public var name: String
        public var currency: String
        public var target: Amount?
        public var base64EncodedPhoto: String?

        public init(name: String, currency: String, target: Amount?, base64EncodedPhoto: String? = nil) {
            self.name = name
            self.currency = currency
            self.target = target
            self.base64EncodedPhoto = base64EncodedPhoto
        }
    }

    /// The answer of creating a goal.
    public struct CreateGoalResponse: Codable, Sendable {
        public var savingsGoalUid: String?
        public var success: Bool?
        public var errors: [ErrorDetail]?

        public init(savingsGoalUid: String) {
            self.savingsGoalUid = savingsGoalUid
            self.success = true
            self.errors = []
        }
    }

    /// `PUT …/add-money/{transferUid}`: the body.
    public struct TopUpRequest: Codable, Sendable {
        public var amount: Amount
        public init(amount: Amount) { self.amount = amount }
    }

    /// The answer of adding money.
    public struct TransferResponse: Codable, Sendable {
        public var transferUid: String?
        public var success: Bool?
        public var errors: [ErrorDetail]?

        public init(transferUid: String) {
            self.transferUid = transferUid
            self.success = true
        }
    }

    public struct ErrorDetail: Codable, Sendable {
        public var message: String?
        public init(message: String) { self.message = message }
    }

    /// Both error envelopes: `{"success": false, "errors": [{"message"}]}` and
    /// `{"error", "error_description"}`.
    public struct ErrorBody: Codable, Sendable {
        public var success: Bool?
        public var errors: [ErrorDetail]?
        public var error: String?
        public var errorDescription: String?

        enum CodingKeys: String, CodingKey {
            case success, errors, error
            case errorDescription = "error_description"
        }

        public init(messages: [String]) {
            success = false
            errors = messages.map(ErrorDetail.init(message:))
        }

        /// The server's words on one line (cleaned by whoever shows them), or nil when it said nothing.
        public var message: String? {
            let messages = (errors ?? []).compactMap(\.message).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                .filter { !$0.isEmpty }
            if !messages.isEmpty { return messages.joined(separator: "; ") }
            let parts = [error, errorDescription].compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }
                .filter { !$0.isEmpty }
            return parts.isEmpty ? nil : parts.joined(separator: ": ")
        }
    }

    /// Reads the server's message out of either error envelope (for `HTTPTransport`).
    public static let serverMessage: @Sendable (Data) -> String? = { data in
        (try? JSONDecoder().decode(ErrorBody.self, from: data))?.message
    }
}
