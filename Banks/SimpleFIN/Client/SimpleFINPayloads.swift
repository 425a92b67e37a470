import FeedModel
import Foundation

/// SimpleFIN's payloads (docs/banks.md, SimpleFIN part; the protocol's own text is
/// github.com/simplefin/simplefin.github.com `protocol.md`), read leniently: unknown keys are
/// ignored, optional fields are optional, the v1 shape (`errors` as strings, `org` per account)
/// and the v2 shape (`errlist`, `connections`, `conn_id`) are both accepted, and a record that
/// cannot be read is skipped and named (`LossyList`) while the rest loads. Text is kept as sent
/// here and cleaned where it is shown (`TextSanitizer`).
public enum SimpleFIN {
    /// An Account Set: `GET <root>/accounts`.
    public struct AccountSet: Codable, Sendable {
        public var errlist: [Problem]
        /// v1's (deprecated in v2) list of error strings.
        public var errors: [String]
        public var connections: [Connection]
        public var accounts: [AccountRecord]

        public init(errlist: [Problem] = [], errors: [String] = [], connections: [Connection] = [], accounts: [AccountRecord] = []) {
            self.errlist = errlist
            self.errors = errors
            self.connections = connections
            self.accounts = accounts
        }

        enum CodingKeys: String, CodingKey { case errlist, errors, connections, accounts }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            errlist = (try? container.decodeIfPresent(LossyList<Problem>.self, forKey: .errlist))?.elements ?? []
            errors = (try? container.decodeIfPresent(LossyList<LenientString>.self, forKey: .errors))?.elements.map(\.text) ?? []
            connections = (try? container.decodeIfPresent(LossyList<Connection>.self, forKey: .connections))?.elements ?? []
            accounts = try container.decodeIfPresent(LossyList<AccountRecord>.self, forKey: .accounts)?.elements ?? []
        }

        /// Every problem the server named, v2's `errlist` and v1's `errors` alike.
        public var problems: [Problem] {
            errlist + errors.map { Problem(code: "", message: $0) }
        }
    }

    /// One entry of `errlist`: `{"code", "msg", "conn_id"?, "account_id"?}` (one example of the
    /// protocol says `message`: both are read).
    public struct Problem: Codable, Sendable, Hashable {
        public var code: String
        public var message: String
        public var connId: String?
        public var accountId: String?

        public init(code: String, message: String, connId: String? = nil, accountId: String? = nil) {
            self.code = code
            self.message = message
            self.connId = connId
            self.accountId = accountId
        }

        enum CodingKeys: String, CodingKey {
            case code, msg, message
            case connId = "conn_id"
            case accountId = "account_id"
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            code = (try? container.decodeIfPresent(LenientString.self, forKey: .code))?.text ?? ""
            message = (try? container.decodeIfPresent(LenientString.self, forKey: .msg))?.text
                ?? (try? container.decodeIfPresent(LenientString.self, forKey: .message))?.text ?? ""
            connId = (try? container.decodeIfPresent(LenientString.self, forKey: .connId))?.text
            accountId = (try? container.decodeIfPresent(LenientString.self, forKey: .accountId))?.text
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(code, forKey: .code)
            try container.encode(message, forKey: .msg)
            try container.encodeIfPresent(connId, forKey: .connId)
            try container.encodeIfPresent(accountId, forKey: .accountId)
        }

        /// `con.auth` → `con`; `gen`, `con`, `act`, or "" for a v1 string.
        public var prefix: String { String(code.split(separator: ".", maxSplits: 1).first ?? "") }

        /// The codes the app knows; an unknown subcode is its bare prefix.
        public var known: String {
            let knownCodes: Set<String> = ["gen.auth", "gen.api", "con.auth", "act.failed", "act.missingdata"]
            return knownCodes.contains(code.lowercased()) ? code.lowercased() : prefix.lowercased()
        }

        /// The text as the user may read it: cleaned, one line, bounded.
        public var shown: String {
            TextSanitizer.clean(String(message.prefix(300))).replacingOccurrences(of: "\n", with: " ")
        }
    }

    /// A bank login on the Bridge (v2).
    public struct Connection: Codable, Sendable, Hashable {
        public var connId: String
        public var name: String
        public var orgId: String?
        public var orgURL: String?
        public var sfinURL: String?
        public var orgName: String?

        public init(connId: String, name: String, orgId: String? = nil, orgURL: String? = nil, sfinURL: String? = nil, orgName: String? = nil) {
            self.connId = connId
            self.name = name
            self.orgId = orgId
            self.orgURL = orgURL
            self.sfinURL = sfinURL
            self.orgName = orgName
        }

        enum CodingKeys: String, CodingKey {
            case connId = "conn_id", name, orgId = "org_id", orgURL = "org_url", sfinURL = "sfin_url", orgName = "org_name"
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            connId = try container.decode(LenientString.self, forKey: .connId).text
            name = (try? container.decodeIfPresent(LenientString.self, forKey: .name))?.text ?? ""
            orgId = (try? container.decodeIfPresent(LenientString.self, forKey: .orgId))?.text
            orgURL = (try? container.decodeIfPresent(LenientString.self, forKey: .orgURL))?.text
            sfinURL = (try? container.decodeIfPresent(LenientString.self, forKey: .sfinURL))?.text
            orgName = (try? container.decodeIfPresent(LenientString.self, forKey: .orgName))?.text
        }
    }

    /// v1's (and older servers') organization of an account.
    public struct Org: Codable, Sendable, Hashable {
        public var domain: String?
        public var name: String?
        public var sfinURL: String?
        public var url: String?
        public var id: String?

        public init(domain: String? = nil, name: String? = nil, sfinURL: String? = nil, url: String? = nil, id: String? = nil) {
            self.domain = domain
            self.name = name
            self.sfinURL = sfinURL
            self.url = url
            self.id = id
        }

        enum CodingKeys: String, CodingKey { case domain, name, sfinURL = "sfin-url", url, id }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            domain = (try? container.decodeIfPresent(LenientString.self, forKey: .domain))?.text
            name = (try? container.decodeIfPresent(LenientString.self, forKey: .name))?.text
            sfinURL = (try? container.decodeIfPresent(LenientString.self, forKey: .sfinURL))?.text
            url = (try? container.decodeIfPresent(LenientString.self, forKey: .url))?.text
            id = (try? container.decodeIfPresent(LenientString.self, forKey: .id))?.text
        }
    }

    /// One account, with its transactions (if the answer has any).
    public struct AccountRecord: Codable, Sendable, Hashable {
        public var id: String
        public var name: String
        public var connId: String?
        public var connName: String?
        public var org: Org?
        /// An ISO 4217 code or a custom currency's URL.
        public var currency: String
        /// Numeric strings, as sent (`SimpleFINAmount` reads them).
        public var balance: String
        public var availableBalance: String?
        /// Unix seconds.
        public var balanceDate: Int64
        public var transactions: [TransactionRecord]?
        /// `extra.account-open-date` (Unix seconds), where given.
        public var openDate: Int64?

        public init(id: String, name: String, connId: String? = nil, connName: String? = nil, org: Org? = nil, currency: String,
                    balance: String, availableBalance: String? = nil, balanceDate: Int64 = 0, transactions: [TransactionRecord]? = nil,
                    openDate: Int64? = nil) {
            self.id = id
            self.name = name
            self.connId = connId
            self.connName = connName
            self.org = org
            self.currency = currency
            self.balance = balance
            self.availableBalance = availableBalance
            self.balanceDate = balanceDate
            self.transactions = transactions
            self.openDate = openDate
        }

        enum CodingKeys: String, CodingKey {
            case id, name, connId = "conn_id", connName = "conn_name", org, currency, balance
            case availableBalance = "available-balance", balanceDate = "balance-date", transactions, extra
        }

        struct Extra: Codable { var openDate: Int64?
            enum CodingKeys: String, CodingKey { case openDate = "account-open-date" }
            init(openDate: Int64?) { self.openDate = openDate }
            init(from decoder: Decoder) throws {
                openDate = (try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(LenientSeconds.self, forKey: .openDate))?.seconds
            }
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(LenientString.self, forKey: .id).text
            name = (try? container.decodeIfPresent(LenientString.self, forKey: .name))?.text ?? ""
            connId = (try? container.decodeIfPresent(LenientString.self, forKey: .connId))?.text
            connName = (try? container.decodeIfPresent(LenientString.self, forKey: .connName))?.text
            org = (try? container.decodeIfPresent(Org.self, forKey: .org))
            currency = (try? container.decodeIfPresent(LenientString.self, forKey: .currency))?.text ?? ""
            balance = (try? container.decodeIfPresent(LenientNumber.self, forKey: .balance))?.text ?? ""
            availableBalance = (try? container.decodeIfPresent(LenientNumber.self, forKey: .availableBalance))?.text
            balanceDate = (try? container.decodeIfPresent(LenientSeconds.self, forKey: .balanceDate))?.seconds ?? 0
            transactions = try container.decodeIfPresent(LossyList<TransactionRecord>.self, forKey: .transactions)?.elements
            openDate = (try? container.decodeIfPresent(Extra.self, forKey: .extra))?.openDate
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encodeIfPresent(connId, forKey: .connId)
            try container.encodeIfPresent(connName, forKey: .connName)
            try container.encodeIfPresent(org, forKey: .org)
            try container.encode(currency, forKey: .currency)
            try container.encode(balance, forKey: .balance)
            try container.encodeIfPresent(availableBalance, forKey: .availableBalance)
            try container.encode(balanceDate, forKey: .balanceDate)
            try container.encodeIfPresent(transactions, forKey: .transactions)
            if let openDate { try container.encode(Extra(openDate: openDate), forKey: .extra) }
        }

        /// The connection the account belongs to: `conn_id`, else v1's org id or domain.
        public var connectionKey: String { connId ?? org?.id ?? org?.domain ?? org?.sfinURL ?? "" }

        /// What keys the account across answers and the cache: (connection, account id).
        public var key: String { connectionKey + "|" + id }
    }

    /// One transaction.
    public struct TransactionRecord: Codable, Sendable, Hashable {
        public var id: String
        /// Unix seconds; may be 0 while pending.
        public var posted: Int64
        public var amount: String
        public var description: String
        public var transactedAt: Int64?
        public var pending: Bool?
        /// ISO 18245 merchant category code, where the bank gives one.
        public var mcc: String?
        /// The Bridge's (not the protocol's): shown before `description` when present.
        public var payee: String?
        public var memo: String?

        public init(id: String, posted: Int64, amount: String, description: String, transactedAt: Int64? = nil, pending: Bool? = nil,
                    mcc: String? = nil, payee: String? = nil, memo: String? = nil) {
            self.id = id
            self.posted = posted
            self.amount = amount
            self.description = description
            self.transactedAt = transactedAt
            self.pending = pending
            self.mcc = mcc
            self.payee = payee
            self.memo = memo
        }

        enum CodingKeys: String, CodingKey {
            case id, posted, amount, description, transactedAt = "transacted_at", pending, mcc, payee, memo
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(LenientString.self, forKey: .id).text
            posted = (try? container.decodeIfPresent(LenientSeconds.self, forKey: .posted))?.seconds ?? 0
            amount = (try? container.decodeIfPresent(LenientNumber.self, forKey: .amount))?.text ?? ""
            description = (try? container.decodeIfPresent(LenientString.self, forKey: .description))?.text ?? ""
            transactedAt = (try? container.decodeIfPresent(LenientSeconds.self, forKey: .transactedAt))?.seconds
            pending = (try? container.decodeIfPresent(Bool.self, forKey: .pending))
            mcc = (try? container.decodeIfPresent(LenientString.self, forKey: .mcc))?.text
            payee = (try? container.decodeIfPresent(LenientString.self, forKey: .payee))?.text
            memo = (try? container.decodeIfPresent(LenientString.self, forKey: .memo))?.text
        }

        /// Pending: `pending` true, or (as public clients read it) no `pending` and `posted` 0.
        public var isPending: Bool { pending ?? (posted == 0) }

        /// The row's time: `transacted_at` when present, else `posted`.
        public var time: Int64 { transactedAt.flatMap { $0 > 0 ? $0 : nil } ?? posted }

        /// What the row is called: `payee` when present, else `description`.
        public var label: String {
            if let payee, !payee.trimmingCharacters(in: .whitespaces).isEmpty { return payee }
            return description
        }
    }

    /// Text that may come as a string or a number (an id sent as `7`).
    struct LenientString: Decodable {
        let text: String
        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) { self.text = text; return }
            if let number = try? container.decode(Int64.self) { self.text = String(number); return }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not text")
        }
    }

    /// A numeric string as sent (a JSON number is written back as its decimal text, then read
    /// like any other by `SimpleFINAmount`).
    struct LenientNumber: Decodable {
        let text: String
        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) { self.text = text; return }
            if let number = try? container.decode(Int64.self) { self.text = String(number); return }
            if let number = try? container.decode(Decimal.self) { self.text = "\(number)"; return }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a number")
        }
    }

    /// Unix seconds, as a number or a numeric string.
    struct LenientSeconds: Decodable {
        let seconds: Int64
        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Int64.self) { self.seconds = seconds; return }
            if let seconds = try? container.decode(Double.self), seconds.isFinite, abs(seconds) < 1e15 {
                self.seconds = Int64(seconds); return
            }
            if let text = try? container.decode(String.self), let seconds = Int64(text) { self.seconds = seconds; return }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not Unix seconds")
        }
    }
}
