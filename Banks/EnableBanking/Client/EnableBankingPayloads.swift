import FeedModel
import Foundation

/// Enable Banking's payloads (docs/banks.md, Enable Banking; the API reference's OpenAPI
/// schema), read leniently: unknown keys ignored, optional fields optional, numbers accepted
/// where strings are expected, and a record that cannot be read skipped and named (`LossyList`)
/// while the rest loads. Text is kept as sent and cleaned where it becomes a model value.
public enum EnableBanking {
    /// `{"currency", "amount"}`: the amount a decimal string.
    public struct AmountValue: Codable, Sendable, Hashable {
        public var currency: String
        public var amount: String

        public init(currency: String, amount: String) {
            self.currency = currency
            self.amount = amount
        }

        enum CodingKeys: String, CodingKey { case currency, amount }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            currency = try container.decode(Lenient.self, forKey: .currency).text
            amount = try container.decode(Lenient.self, forKey: .amount).text
        }
    }

    /// `account_id`: `{"iban"?, "other"?: {"identification"}}`.
    public struct AccountIdentification: Codable, Sendable, Hashable {
        public var iban: String?
        public var other: String?

        public init(iban: String? = nil, other: String? = nil) {
            self.iban = iban
            self.other = other
        }

        enum CodingKeys: String, CodingKey { case iban, other }
        struct Other: Decodable { let identification: String? }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            iban = (try? container.decodeIfPresent(Lenient.self, forKey: .iban))?.text
            other = (try? container.decodeIfPresent(Other.self, forKey: .other))?.identification
                ?? (try? container.decodeIfPresent(Lenient.self, forKey: .other))?.text
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(iban, forKey: .iban)
            try container.encodeIfPresent(other, forKey: .other)
        }
    }

    /// An account of a session (`POST /sessions`, `GET /sessions/{id}`).
    public struct Account: Codable, Sendable, Hashable {
        /// Valid while its session is authorised: the requests' path.
        public var uid: String
        /// Stable across sessions: what the cache and the ids are keyed by.
        public var identificationHash: String?
        public var accountId: AccountIdentification?
        /// The holder's name.
        public var name: String?
        /// The account's own description.
        public var details: String?
        public var product: String?
        public var currency: String?
        public var cashAccountType: String?

        public init(uid: String, identificationHash: String? = nil, accountId: AccountIdentification? = nil, name: String? = nil,
                    details: String? = nil, product: String? = nil, currency: String? = nil, cashAccountType: String? = nil) {
            self.uid = uid
            self.identificationHash = identificationHash
            self.accountId = accountId
            self.name = name
            self.details = details
            self.product = product
            self.currency = currency
            self.cashAccountType = cashAccountType
        }

        enum CodingKeys: String, CodingKey {
            case uid, name, details, product, currency
            case identificationHash = "identification_hash"
            case accountId = "account_id"
            case cashAccountType = "cash_account_type"
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            // Without a uid nothing can be asked for it: the record is skipped and named.
            uid = try container.decode(Lenient.self, forKey: .uid).text
            identificationHash = (try? container.decodeIfPresent(Lenient.self, forKey: .identificationHash))?.text
            accountId = try? container.decodeIfPresent(AccountIdentification.self, forKey: .accountId)
            name = (try? container.decodeIfPresent(Lenient.self, forKey: .name))?.text
            details = (try? container.decodeIfPresent(Lenient.self, forKey: .details))?.text
            product = (try? container.decodeIfPresent(Lenient.self, forKey: .product))?.text
            currency = (try? container.decodeIfPresent(Lenient.self, forKey: .currency))?.text
            cashAccountType = (try? container.decodeIfPresent(Lenient.self, forKey: .cashAccountType))?.text
        }

        /// What the cache is keyed by: the identification hash, else the uid.
        public var key: String { identificationHash.flatMap { $0.isEmpty ? nil : $0 } ?? uid }

        /// The name shown: `details`, else `product`, else the holder's `name`, else "Account ••1234".
        public var shownName: String {
            for text in [details, product, name] {
                if let text, case let cleaned = TextSanitizer.clean(text).trimmingCharacters(in: .whitespaces), !cleaned.isEmpty {
                    return cleaned
                }
            }
            return "Account " + EnableBanking.masked(accountId?.iban ?? accountId?.other ?? uid)
        }
    }

    /// "••1234": the last four characters of an IBAN or number, cleaned.
    public static func masked(_ number: String) -> String {
        let cleaned = TextSanitizer.clean(number).filter { !$0.isWhitespace }
        return "••" + String(cleaned.suffix(4))
    }

    /// `POST /sessions` and `GET /sessions/{id}`.
    public struct Session: Decodable, Sendable {
        public var sessionId: String?
        public var status: String?
        public var accounts: [Account]
        public var validUntil: String?
        public var aspspName: String?
        public var aspspCountry: String?
        public var psuType: String?

        enum CodingKeys: String, CodingKey {
            case status, accounts, access, aspsp
            case sessionId = "session_id"
            case psuType = "psu_type"
            case accountsData = "accounts_data"
        }
        struct Access: Decodable { let valid_until: String? }
        struct ASPSP: Decodable { let name: String?; let country: String? }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            sessionId = (try? container.decodeIfPresent(Lenient.self, forKey: .sessionId))?.text
            status = (try? container.decodeIfPresent(Lenient.self, forKey: .status))?.text
            // `GET /sessions/{id}` lists uids in `accounts` and the records in `accounts_data`.
            let records = (try? container.decodeIfPresent(LossyList<Account>.self, forKey: .accounts))?.elements ?? []
            let data = (try? container.decodeIfPresent(LossyList<Account>.self, forKey: .accountsData))?.elements ?? []
            accounts = records.isEmpty ? data : records
            let access = try? container.decodeIfPresent(Access.self, forKey: .access)
            validUntil = access?.valid_until
            let aspsp = try? container.decodeIfPresent(ASPSP.self, forKey: .aspsp)
            aspspName = aspsp?.name
            aspspCountry = aspsp?.country
            psuType = (try? container.decodeIfPresent(Lenient.self, forKey: .psuType))?.text
        }
    }

    /// `POST /auth`'s answer.
    public struct AuthStart: Decodable, Sendable {
        public var url: String
        public var authorizationId: String?

        enum CodingKeys: String, CodingKey {
            case url
            case authorizationId = "authorization_id"
        }
    }

    /// One of `GET /accounts/{uid}/balances`.
    public struct Balance: Codable, Sendable, Hashable {
        public var name: String?
        public var amount: AmountValue
        public var type: String
        public var referenceDate: String?

        public init(name: String? = nil, amount: AmountValue, type: String, referenceDate: String? = nil) {
            self.name = name
            self.amount = amount
            self.type = type
            self.referenceDate = referenceDate
        }

        enum CodingKeys: String, CodingKey {
            case name
            case amount = "balance_amount"
            case type = "balance_type"
            case referenceDate = "reference_date"
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = (try? container.decodeIfPresent(Lenient.self, forKey: .name))?.text
            amount = try container.decode(AmountValue.self, forKey: .amount)
            type = (try? container.decodeIfPresent(Lenient.self, forKey: .type))?.text.uppercased() ?? "OTHR"
            referenceDate = (try? container.decodeIfPresent(Lenient.self, forKey: .referenceDate))?.text
        }
    }

    public struct Balances: Decodable, Sendable {
        public var balances: [Balance]

        enum CodingKeys: String, CodingKey { case balances }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            balances = (try container.decodeIfPresent(LossyList<Balance>.self, forKey: .balances))?.elements ?? []
        }
    }

    /// One transaction of `GET /accounts/{uid}/transactions`.
    public struct Transaction: Codable, Sendable, Hashable {
        public var entryReference: String?
        public var amount: AmountValue?
        public var indicator: String?
        public var status: String?
        public var bookingDate: String?
        public var valueDate: String?
        public var transactionDate: String?
        public var creditorName: String?
        public var debtorName: String?
        public var remittance: [String]
        public var bankTransactionCode: String?
        public var merchantCategoryCode: String?

        public init(entryReference: String? = nil, amount: AmountValue?, indicator: String?, status: String? = "BOOK",
                    bookingDate: String? = nil, valueDate: String? = nil, transactionDate: String? = nil, creditorName: String? = nil,
                    debtorName: String? = nil, remittance: [String] = [], bankTransactionCode: String? = nil,
                    merchantCategoryCode: String? = nil) {
            self.entryReference = entryReference
            self.amount = amount
            self.indicator = indicator
            self.status = status
            self.bookingDate = bookingDate
            self.valueDate = valueDate
            self.transactionDate = transactionDate
            self.creditorName = creditorName
            self.debtorName = debtorName
            self.remittance = remittance
            self.bankTransactionCode = bankTransactionCode
            self.merchantCategoryCode = merchantCategoryCode
        }

        enum CodingKeys: String, CodingKey {
            case status, creditor, debtor
            case entryReference = "entry_reference"
            case amount = "transaction_amount"
            case indicator = "credit_debit_indicator"
            case bookingDate = "booking_date"
            case valueDate = "value_date"
            case transactionDate = "transaction_date"
            case creditorName = "creditor_name"
            case debtorName = "debtor_name"
            case remittance = "remittance_information"
            case bankTransactionCode = "bank_transaction_code"
            case merchantCategoryCode = "merchant_category_code"
        }
        struct Party: Decodable { let name: String? }
        struct Code: Decodable { let description: String?; let code: String? }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func text(_ key: CodingKeys) -> String? { (try? container.decodeIfPresent(Lenient.self, forKey: key))?.text }
            entryReference = text(.entryReference).flatMap { $0.isEmpty ? nil : $0 }
            // An unreadable amount is kept as missing: the row is listed, marked, in no sum.
            amount = try? container.decodeIfPresent(AmountValue.self, forKey: .amount)
            indicator = text(.indicator)?.uppercased()
            status = text(.status)?.uppercased()
            bookingDate = text(.bookingDate)
            valueDate = text(.valueDate)
            transactionDate = text(.transactionDate)
            creditorName = (try? container.decodeIfPresent(Party.self, forKey: .creditor))?.name ?? text(.creditorName)
            debtorName = (try? container.decodeIfPresent(Party.self, forKey: .debtor))?.name ?? text(.debtorName)
            remittance = (try? container.decodeIfPresent(LossyList<Lenient>.self, forKey: .remittance))?.elements.map(\.text)
                ?? text(.remittance).map { [$0] } ?? []
            bankTransactionCode = (try? container.decodeIfPresent(Code.self, forKey: .bankTransactionCode)).flatMap { $0?.description ?? $0?.code }
                ?? text(.bankTransactionCode)
            merchantCategoryCode = text(.merchantCategoryCode)
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(entryReference, forKey: .entryReference)
            try container.encodeIfPresent(amount, forKey: .amount)
            try container.encodeIfPresent(indicator, forKey: .indicator)
            try container.encodeIfPresent(status, forKey: .status)
            try container.encodeIfPresent(bookingDate, forKey: .bookingDate)
            try container.encodeIfPresent(valueDate, forKey: .valueDate)
            try container.encodeIfPresent(transactionDate, forKey: .transactionDate)
            try container.encodeIfPresent(creditorName, forKey: .creditorName)
            try container.encodeIfPresent(debtorName, forKey: .debtorName)
            try container.encode(remittance, forKey: .remittance)
            try container.encodeIfPresent(bankTransactionCode, forKey: .bankTransactionCode)
            try container.encodeIfPresent(merchantCategoryCode, forKey: .merchantCategoryCode)
        }

        /// `PDNG`, `HOLD`, `SCHD`: not booked yet.
        public var isPending: Bool { ["PDNG", "HOLD", "SCHD"].contains(status ?? "") }
        /// `CNCL`, `RJCT`: listed as cancelled, in no sum.
        public var isCancelled: Bool { ["CNCL", "RJCT"].contains(status ?? "") }

        /// `transaction_date`, else `booking_date`, else `value_date`.
        public var date: String? { transactionDate ?? bookingDate ?? valueDate }

        /// The counterparty (the creditor of a debit, the debtor of a credit), else the
        /// remittance lines, else the transaction code's description; cleaned.
        public var text: String {
            let party = indicator == "CRDT" ? debtorName : creditorName
            if let party, case let cleaned = TextSanitizer.clean(party).trimmingCharacters(in: .whitespaces), !cleaned.isEmpty {
                return cleaned
            }
            let lines = remittance.map { TextSanitizer.clean($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if !lines.isEmpty { return lines.joined(separator: " ") }
            return bankTransactionCode.map { TextSanitizer.clean($0) } ?? ""
        }
    }

    /// One page: `{"transactions", "continuation_key"}`.
    public struct TransactionPage: Decodable, Sendable {
        public var transactions: [Transaction]
        public var continuationKey: String?

        public init(transactions: [Transaction], continuationKey: String?) {
            self.transactions = transactions
            self.continuationKey = continuationKey
        }

        enum CodingKeys: String, CodingKey {
            case transactions
            case continuationKey = "continuation_key"
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            transactions = (try container.decodeIfPresent(LossyList<Transaction>.self, forKey: .transactions))?.elements ?? []
            let key: String? = (try? container.decodeIfPresent(Lenient.self, forKey: .continuationKey))?.text
            continuationKey = key.flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// The error envelope `{"code": HTTP, "message", "error": CODE, "detail"?}`.
    public struct Problem: Decodable, Sendable, Equatable {
        public var message: String?
        public var error: String?
        public var detail: String?

        enum CodingKeys: String, CodingKey { case message, error, detail }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            message = (try? container.decodeIfPresent(Lenient.self, forKey: .message))?.text
            error = (try? container.decodeIfPresent(Lenient.self, forKey: .error))?.text
            detail = (try? container.decodeIfPresent(Lenient.self, forKey: .detail))?.text
        }

        public static func read(_ data: Data) -> Problem? {
            guard data.count <= 65_536 else { return nil }
            return try? JSONDecoder().decode(Problem.self, from: data)
        }
    }

    /// `GET /application`.
    public struct Application: Decodable, Sendable {
        public var active: Bool
        public var redirectURLs: [String]
        public var environment: String?

        enum CodingKeys: String, CodingKey {
            case active, environment
            case redirectURLs = "redirect_urls"
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            active = (try? container.decodeIfPresent(Bool.self, forKey: .active)) ?? false
            redirectURLs = (try? container.decodeIfPresent(LossyList<Lenient>.self, forKey: .redirectURLs))?.elements.map(\.text) ?? []
            environment = (try? container.decodeIfPresent(Lenient.self, forKey: .environment))?.text
        }
    }

    /// One of `GET /aspsps`.
    public struct ASPSP: Decodable, Sendable {
        public var name: String
        public var country: String
        /// Seconds (nil: not said).
        public var maximumConsentValidity: Int64?

        enum CodingKeys: String, CodingKey {
            case name, country
            case maximumConsentValidity = "maximum_consent_validity"
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(Lenient.self, forKey: .name).text
            country = (try? container.decodeIfPresent(Lenient.self, forKey: .country))?.text ?? ""
            maximumConsentValidity = (try? container.decodeIfPresent(Lenient.self, forKey: .maximumConsentValidity)).flatMap { $0.flatMap { Int64($0.text) } }
        }
    }

    public struct ASPSPList: Decodable, Sendable {
        public var aspsps: [ASPSP]

        enum CodingKeys: String, CodingKey { case aspsps }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            aspsps = (try container.decodeIfPresent(LossyList<ASPSP>.self, forKey: .aspsps))?.elements ?? []
        }
    }

    /// Text sent as a string or a number (kept as its decimal text).
    struct Lenient: Decodable {
        let text: String
        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) { self.text = text; return }
            if let number = try? container.decode(Int64.self) { self.text = String(number); return }
            if let number = try? container.decode(Decimal.self) { self.text = "\(number)"; return }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not text")
        }
    }
}
