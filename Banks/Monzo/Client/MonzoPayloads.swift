import FeedModel
import Foundation

/// Monzo's JSON shapes (../../docs/banks.md, from Monzo's public documentation and responses
/// public projects recorded), as the client reads them and `serve --api monzo` writes them.
/// Decoding is lenient: unknown keys are ignored, every field a screen can do without is
/// optional, lists are read record by record, and text is cleaned when it becomes a model value.
public enum Monzo {
    /// `GET /ping/whoami`
    public struct WhoAmI: Codable, Sendable {
        public var authenticated: Bool?
        public var clientId: String?
        public var userId: String?

        enum CodingKeys: String, CodingKey {
            case authenticated
            case clientId = "client_id"
            case userId = "user_id"
        }

        public init(authenticated: Bool, clientId: String, userId: String) {
            self.authenticated = authenticated
            self.clientId = clientId
            self.userId = userId
        }
    }

    public struct Owner: Codable, Hashable, Sendable {
        public var userId: String?
        public var preferredName: String?

        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case preferredName = "preferred_name"
        }

        public init(userId: String?, preferredName: String?) {
            self.userId = userId
            self.preferredName = preferredName
        }
    }

    /// One of `GET /accounts`.
    public struct Account: Codable, Hashable, Sendable {
        public var id: String
        public var description: String?
        public var created: Date?
        public var closed: Bool?
        public var type: String?
        public var currency: String?
        public var owners: [Owner]?
        public var accountNumber: String?
        public var sortCode: String?

        enum CodingKeys: String, CodingKey {
            case id, description, created, closed, type, currency, owners
            case accountNumber = "account_number"
            case sortCode = "sort_code"
        }

        public init(id: String, description: String?, created: Date?, closed: Bool? = false, type: String? = "uk_retail",
                    currency: String? = nil, owners: [Owner]? = nil, accountNumber: String? = nil, sortCode: String? = nil) {
            self.id = id
            self.description = description
            self.created = created
            self.closed = closed
            self.type = type
            self.currency = currency
            self.owners = owners
            self.accountNumber = accountNumber
            self.sortCode = sortCode
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            description = try? container.decodeIfPresent(String.self, forKey: .description)
            created = Monzo.lenientDate(container, .created)
            closed = try? container.decodeIfPresent(Bool.self, forKey: .closed)
            type = try? container.decodeIfPresent(String.self, forKey: .type)
            currency = try? container.decodeIfPresent(String.self, forKey: .currency)
            owners = try? container.decodeIfPresent([Owner].self, forKey: .owners)
            accountNumber = try? container.decodeIfPresent(String.self, forKey: .accountNumber)
            sortCode = try? container.decodeIfPresent(String.self, forKey: .sortCode)
        }
    }

    public struct AccountList: Codable, Sendable {
        public var accounts: [Account]?
        public init(accounts: [Account]) { self.accounts = accounts }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            accounts = try container.decodeIfPresent(LossyList<Account>.self, forKey: .accounts)?.elements
        }
    }

    /// `GET /balance?account_id=…`: minor units; `balance` is what is available, `total_balance`
    /// adds the pots.
    public struct Balance: Codable, Sendable {
        public var balance: Int64
        public var totalBalance: Int64?
        public var currency: String
        public var spendToday: Int64?

        enum CodingKeys: String, CodingKey {
            case balance, currency
            case totalBalance = "total_balance"
            case spendToday = "spend_today"
        }

        public init(balance: Int64, totalBalance: Int64?, currency: String, spendToday: Int64? = 0) {
            self.balance = balance
            self.totalBalance = totalBalance
            self.currency = currency
            self.spendToday = spendToday
        }
    }

    /// One of `GET /pots?current_account_id=…`.
    public struct Pot: Codable, Sendable {
        public var id: String
        public var name: String?
        public var style: String?
        public var balance: Int64
        public var currency: String
        public var goalAmount: Int64?
        public var roundUp: Bool?
        public var created: Date?
        public var updated: Date?
        public var deleted: Bool?

        enum CodingKeys: String, CodingKey {
            case id, name, style, balance, currency, created, updated, deleted
            case goalAmount = "goal_amount"
            case roundUp = "round_up"
        }

        public init(id: String, name: String, style: String?, balance: Int64, currency: String, goalAmount: Int64?,
                    roundUp: Bool? = false, created: Date?, updated: Date?, deleted: Bool = false) {
            self.id = id
            self.name = name
            self.style = style
            self.balance = balance
            self.currency = currency
            self.goalAmount = goalAmount
            self.roundUp = roundUp
            self.created = created
            self.updated = updated
            self.deleted = deleted
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            name = try? container.decodeIfPresent(String.self, forKey: .name)
            style = try? container.decodeIfPresent(String.self, forKey: .style)
            balance = try container.decode(Int64.self, forKey: .balance)
            currency = try container.decode(String.self, forKey: .currency)
            goalAmount = try? container.decodeIfPresent(Int64.self, forKey: .goalAmount)
            roundUp = try? container.decodeIfPresent(Bool.self, forKey: .roundUp)
            created = Monzo.lenientDate(container, .created)
            updated = Monzo.lenientDate(container, .updated)
            deleted = try? container.decodeIfPresent(Bool.self, forKey: .deleted)
        }
    }

    public struct PotList: Codable, Sendable {
        public var pots: [Pot]?
        public init(pots: [Pot]) { self.pots = pots }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            pots = try container.decodeIfPresent(LossyList<Pot>.self, forKey: .pots)?.elements
        }
    }

    /// `merchant`: an id, or with `expand[]=merchant` an object.
    public struct Merchant: Codable, Sendable {
        public var id: String?
        public var name: String?

        public init(id: String?, name: String?) {
            self.id = id
            self.name = name
        }

        public init(from decoder: Decoder) throws {
            if let id = try? decoder.singleValueContainer().decode(String.self) {
                self.init(id: id, name: nil)
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(id: try? container.decodeIfPresent(String.self, forKey: .id),
                      name: try? container.decodeIfPresent(String.self, forKey: .name))
        }
    }

    public struct Counterparty: Codable, Sendable {
        public var name: String?
        public var accountNumber: String?
        public var sortCode: String?

        enum CodingKeys: String, CodingKey {
            case name
            case accountNumber = "account_number"
            case sortCode = "sort_code"
        }

        public init(name: String?) { self.name = name }
    }

    /// One transaction of `GET /transactions`.
    public struct Transaction: Codable, Sendable {
        public var id: String
        public var created: Date
        /// Minor units of `currency`; negative is money out.
        public var amount: Int64
        public var currency: String
        /// What was paid abroad, in `localCurrency`.
        public var localAmount: Int64?
        public var localCurrency: String?
        public var description: String?
        public var merchant: Merchant?
        public var counterparty: Counterparty?
        public var notes: String?
        public var category: String?
        /// `mastercard`, `uk_retail_pot`, `payport_faster_payments`, `bacs`, …
        public var scheme: String?
        /// A timestamp once settled; an empty string while only authorised.
        public var settled: String?
        /// Present only on declined ones.
        public var declineReason: String?
        /// A top-up.
        public var isLoad: Bool?
        public var metadata: [String: String]?

        enum CodingKeys: String, CodingKey {
            case id, created, amount, currency, description, merchant, counterparty, notes, category, scheme, settled, metadata
            case localAmount = "local_amount"
            case localCurrency = "local_currency"
            case declineReason = "decline_reason"
            case isLoad = "is_load"
        }

        public init(id: String, created: Date, amount: Int64, currency: String, localAmount: Int64? = nil,
                    localCurrency: String? = nil, description: String?, merchant: Merchant? = nil,
                    counterparty: Counterparty? = nil, category: String? = nil, scheme: String?, settled: String?,
                    declineReason: String? = nil, isLoad: Bool? = false, metadata: [String: String]? = nil) {
            self.id = id
            self.created = created
            self.amount = amount
            self.currency = currency
            self.localAmount = localAmount
            self.localCurrency = localCurrency
            self.description = description
            self.merchant = merchant
            self.counterparty = counterparty
            self.notes = ""
            self.category = category
            self.scheme = scheme
            self.settled = settled
            self.declineReason = declineReason
            self.isLoad = isLoad
            self.metadata = metadata
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            guard let created = Monzo.lenientDate(container, .created) else {
                throw DecodingError.dataCorruptedError(forKey: .created, in: container, debugDescription: "not a timestamp")
            }
            self.created = created
            amount = try container.decode(Int64.self, forKey: .amount)
            currency = try container.decode(String.self, forKey: .currency)
            localAmount = try? container.decodeIfPresent(Int64.self, forKey: .localAmount)
            localCurrency = try? container.decodeIfPresent(String.self, forKey: .localCurrency)
            description = try? container.decodeIfPresent(String.self, forKey: .description)
            merchant = try? container.decodeIfPresent(Merchant.self, forKey: .merchant)
            counterparty = try? container.decodeIfPresent(Counterparty.self, forKey: .counterparty)
            notes = try? container.decodeIfPresent(String.self, forKey: .notes)
            category = try? container.decodeIfPresent(String.self, forKey: .category)
            scheme = try? container.decodeIfPresent(String.self, forKey: .scheme)
            settled = try? container.decodeIfPresent(String.self, forKey: .settled)
            declineReason = try? container.decodeIfPresent(String.self, forKey: .declineReason)
            isLoad = try? container.decodeIfPresent(Bool.self, forKey: .isLoad)
            // Metadata values are strings in every recorded answer; anything else is left out.
            metadata = (try? container.decodeIfPresent([String: LenientString].self, forKey: .metadata))?
                .compactMapValues(\.value)
        }

        public var isDeclined: Bool { !(declineReason ?? "").isEmpty }
        /// Authorised but not settled yet.
        public var isPending: Bool { !isDeclined && (settled ?? "").isEmpty }
        /// The pot a pot transfer moved money into or out of.
        public var potId: String? { metadata?["pot_id"].flatMap { $0.isEmpty ? nil : $0 } }
    }

    public struct TransactionList: Codable, Sendable {
        public var transactions: [Transaction]?
        public init(transactions: [Transaction]) { self.transactions = transactions }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            transactions = try container.decodeIfPresent(LossyList<Transaction>.self, forKey: .transactions)?.elements
        }
    }

    /// `POST /oauth2/token`'s answer.
    public struct TokenPair: Codable, Sendable {
        public var accessToken: String
        public var clientId: String?
        public var expiresIn: Int?
        public var refreshToken: String?
        public var tokenType: String?
        public var userId: String?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case clientId = "client_id"
            case expiresIn = "expires_in"
            case refreshToken = "refresh_token"
            case tokenType = "token_type"
            case userId = "user_id"
        }

        public init(accessToken: String, clientId: String?, expiresIn: Int?, refreshToken: String?, userId: String?) {
            self.accessToken = accessToken
            self.clientId = clientId
            self.expiresIn = expiresIn
            self.refreshToken = refreshToken
            self.tokenType = "Bearer"
            self.userId = userId
        }
    }

    /// Both error shapes: `{"code", "message"}` and `{"error", "error_description"}`.
    public struct ErrorBody: Codable, Sendable {
        public var code: String?
        public var message: String?
        public var error: String?
        public var errorDescription: String?

        enum CodingKeys: String, CodingKey {
            case code, message, error
            case errorDescription = "error_description"
        }

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }

        public init(error: String, description: String) {
            self.error = error
            self.errorDescription = description
        }

        /// The code either shape gives (`forbidden.verification_required`, `invalid_grant`).
        public var anyCode: String? { [code, error].compactMap { $0 }.first { !$0.isEmpty } }

        /// The server's words on one line (cleaned by whoever shows them), or nil when it said nothing.
        public var text: String? {
            let parts = [message ?? errorDescription, code ?? error]
                .compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
            guard let first = parts.first else { return nil }
            let oneLine = first.split(whereSeparator: \.isNewline).joined(separator: " ")
            return parts.count > 1 ? "\(oneLine) (\(parts[1]))" : oneLine
        }
    }

    /// Reads either error shape (for `HTTPTransport`).
    public static let serverMessage: @Sendable (Data) -> String? = { data in
        (try? JSONDecoder().decode(ErrorBody.self, from: data))?.text
    }

    /// A date that does not read is no date (a missing `created` on a pot does not cost the pot).
    static func lenientDate<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) -> Date? {
        guard let text = try? container.decodeIfPresent(String.self, forKey: key) else { return nil }
        return Monzo.parseDate(text)
    }

    /// RFC 3339 with or without a fraction; a fraction longer than milliseconds is cut to three digits.
    public static func parseDate(_ text: String) -> Date? {
        if let date = Timestamp.parse(text) { return date }
        guard let dot = text.firstIndex(of: "."), text.count <= 64 else { return nil }
        let afterDot = text[text.index(after: dot)...]
        let digits = afterDot.prefix { $0.isASCII && $0.isNumber }
        guard digits.count > 3 else { return nil }
        let rest = afterDot.dropFirst(digits.count)
        return Timestamp.parse(String(text[..<dot]) + "." + String(digits.prefix(3)) + String(rest))
    }
}

/// A JSON value read as a string when it is one (numbers and booleans as their text), else nil.
struct LenientString: Decodable {
    let value: String?

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            value = text
        } else if let number = try? container.decode(Int64.self) {
            value = String(number)
        } else if let flag = try? container.decode(Bool.self) {
            value = String(flag)
        } else {
            value = nil
        }
    }
}
