import FeedModel
import Foundation

/// bunq's shapes (docs/banks.md, ../shared spec BUNQ.md): every answer is `{"Response": [ … ]}`,
/// each element one object wrapped in its type's name. Decoded leniently: unknown keys and
/// unknown types are ignored, optional fields optional; an element that cannot be read is kept
/// as `.unreadable` (skipped and named by the caller), never a failure of the whole answer.
public enum Bunq {
    /// `{"value": "12.50", "currency": "EUR"}`: a decimal string, read exactly (`minor(in:)`).
    public struct Amount: Codable, Hashable, Sendable {
        public var value: String
        public var currency: String

        public init(value: String, currency: String) {
            self.value = value
            self.currency = currency
        }

        /// The amount in minor units of `currency`: `-?digits[.digits]` with at most the
        /// currency's minor digits, bounded by `Money.maxMagnitude`; anything else is nil.
        public func money() -> Money? {
            guard let currency = Currency.from(code: currency) else { return nil }
            return Amount.parse(value, currency: currency)
        }

        public static func parse(_ text: String, currency: Currency) -> Money? {
            var rest = Substring(text.trimmingCharacters(in: .whitespaces))
            let negative = rest.hasPrefix("-")
            if negative || rest.hasPrefix("+") { rest = rest.dropFirst() }
            let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].count <= 18,
                  parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return nil }
            let fraction = parts.count == 2 ? String(parts[1]) : ""
            guard parts.count == 1 || !fraction.isEmpty, fraction.count <= currency.minorDigits,
                  let whole = Int64(parts[0]) else { return nil }
            let padded = fraction + String(repeating: "0", count: currency.minorDigits - fraction.count)
            let (scaled, overflow) = whole.multipliedReportingOverflow(by: currency.minorPerUnit)
            guard !overflow, let minor = padded.isEmpty ? 0 : Int64(padded) else { return nil }
            let total = scaled + minor
            return Money(bounded: negative ? -total : total, currency: currency)
        }

        /// "12.50" for 1250 minor units of a two-digit currency.
        public static func text(_ money: Money) -> String {
            let digits = money.currency.minorDigits
            let magnitude = money.minorUnits.magnitude
            let per = UInt64(money.currency.minorPerUnit)
            var text = String(magnitude / per)
            if digits > 0 {
                let fraction = String(magnitude % per)
                text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
            }
            return (money.minorUnits < 0 ? "-" : "") + text
        }
    }

    /// `{"type": "IBAN", "value": "NL…", "name": "…"}`
    public struct Pointer: Codable, Hashable, Sendable {
        public var type: String?
        public var value: String?
        public var name: String?

        public init(type: String?, value: String?, name: String?) {
            self.type = type
            self.value = value
            self.name = name
        }
    }

    /// One side of a payment (`alias`, `counterparty_alias`).
    public struct Label: Codable, Hashable, Sendable {
        public var iban: String?
        public var displayName: String?
        public var merchantCategoryCode: String?
        public var country: String?

        public init(iban: String? = nil, displayName: String? = nil, merchantCategoryCode: String? = nil, country: String? = nil) {
            self.iban = iban
            self.displayName = displayName
            self.merchantCategoryCode = merchantCategoryCode
            self.country = country
        }

        enum CodingKeys: String, CodingKey {
            case iban, country
            case displayName = "display_name"
            case merchantCategoryCode = "merchant_category_code"
        }
    }

    public struct CoOwner: Codable, Hashable, Sendable {
        public struct Alias: Codable, Hashable, Sendable {
            public var displayName: String?
            public init(displayName: String?) { self.displayName = displayName }
            enum CodingKeys: String, CodingKey { case displayName = "display_name" }
        }

        public var alias: Alias?
        public var status: String?

        public init(alias: Alias?, status: String?) {
            self.alias = alias
            self.status = status
        }
    }

    public struct Setting: Codable, Hashable, Sendable {
        public var color: String?
        public init(color: String?) { self.color = color }
    }

    /// Any monetary account; `kind` is the name it came wrapped in (`MonetaryAccountBank`…).
    public struct MonetaryAccount: Codable, Hashable, Sendable {
        public var kind: String = ""
        public var id: Int
        public var created: String?
        public var currency: String?
        public var description: String?
        public var balance: Amount?
        public var alias: [Pointer]?
        public var status: String?
        public var setting: Setting?
        public var allCoOwner: [CoOwner]?
        public var savingsGoal: Amount?
        public var savingsGoalProgress: Double?

        public init(kind: String, id: Int, created: String?, currency: String?, description: String?, balance: Amount?,
                    alias: [Pointer]?, status: String?, setting: Setting? = nil, allCoOwner: [CoOwner]? = nil,
                    savingsGoal: Amount? = nil, savingsGoalProgress: Double? = nil) {
            self.kind = kind
            self.id = id
            self.created = created
            self.currency = currency
            self.description = description
            self.balance = balance
            self.alias = alias
            self.status = status
            self.setting = setting
            self.allCoOwner = allCoOwner
            self.savingsGoal = savingsGoal
            self.savingsGoalProgress = savingsGoalProgress
        }

        enum CodingKeys: String, CodingKey {
            case id, created, currency, description, balance, alias, status, setting
            case allCoOwner = "all_co_owner"
            case savingsGoal = "savings_goal"
            case savingsGoalProgress = "savings_goal_progress"
        }

        public var iban: String? { alias?.first { $0.type?.uppercased() == "IBAN" }?.value }
        public var isActive: Bool { (status ?? "ACTIVE").uppercased() == "ACTIVE" }
        public var isSavings: Bool { kind == "MonetaryAccountSavings" }
        public var isBank: Bool { kind == "MonetaryAccountBank" }
    }

    public struct Payment: Codable, Hashable, Sendable {
        public var id: Int
        public var created: String
        public var monetaryAccountId: Int?
        public var amount: Amount
        public var alias: Label?
        public var counterpartyAlias: Label?
        public var description: String?
        public var type: String?
        public var subType: String?

        public init(id: Int, created: String, monetaryAccountId: Int?, amount: Amount, alias: Label?, counterpartyAlias: Label?,
                    description: String?, type: String?, subType: String?) {
            self.id = id
            self.created = created
            self.monetaryAccountId = monetaryAccountId
            self.amount = amount
            self.alias = alias
            self.counterpartyAlias = counterpartyAlias
            self.description = description
            self.type = type
            self.subType = subType
        }

        enum CodingKeys: String, CodingKey {
            case id, created, amount, alias, description, type
            case monetaryAccountId = "monetary_account_id"
            case counterpartyAlias = "counterparty_alias"
            case subType = "sub_type"
        }
    }

    public struct Pagination: Codable, Hashable, Sendable {
        public var futureUrl: String?
        public var newerUrl: String?
        public var olderUrl: String?

        public init(futureUrl: String? = nil, newerUrl: String? = nil, olderUrl: String?) {
            self.futureUrl = futureUrl
            self.newerUrl = newerUrl
            self.olderUrl = olderUrl
        }

        enum CodingKeys: String, CodingKey {
            case futureUrl = "future_url"
            case newerUrl = "newer_url"
            case olderUrl = "older_url"
        }

        /// The `older_id` of `older_url`, or nil at the oldest page.
        public var olderId: Int? {
            guard let olderUrl, let items = URLComponents(string: olderUrl)?.queryItems else { return nil }
            return items.first { $0.name == "older_id" }?.value.flatMap { Int($0) }
        }
    }

    public struct Token: Codable, Hashable, Sendable {
        public var id: Int?
        public var token: String
        public init(id: Int?, token: String) {
            self.id = id
            self.token = token
        }
    }

    public struct ServerPublicKey: Codable, Hashable, Sendable {
        public var serverPublicKey: String
        public init(serverPublicKey: String) { self.serverPublicKey = serverPublicKey }
        enum CodingKeys: String, CodingKey { case serverPublicKey = "server_public_key" }
    }

    public struct User: Codable, Hashable, Sendable {
        public var id: Int
        public var displayName: String?
        public var publicNickName: String?
        public var sessionTimeout: Int?

        public init(id: Int, displayName: String?, publicNickName: String?, sessionTimeout: Int?) {
            self.id = id
            self.displayName = displayName
            self.publicNickName = publicNickName
            self.sessionTimeout = sessionTimeout
        }

        enum CodingKeys: String, CodingKey {
            case id
            case displayName = "display_name"
            case publicNickName = "public_nick_name"
            case sessionTimeout = "session_timeout"
        }
    }

    public struct Id: Codable, Hashable, Sendable {
        public var id: Int
        public init(id: Int) { self.id = id }
    }

    /// One element of `Response`.
    public enum Item: Codable, Hashable, Sendable {
        case id(Id)
        case token(Token)
        case serverPublicKey(ServerPublicKey)
        case user(kind: String, User)
        case account(MonetaryAccount)
        case payment(Payment)
        /// A type this client does not use.
        case other(String)
        /// A known type that could not be read: its name and why.
        case unreadable(String, String)

        public static let userKinds = ["UserPerson", "UserCompany", "UserApiKey", "UserPaymentServiceProvider"]
        public static let accountKinds = ["MonetaryAccountBank", "MonetaryAccountSavings", "MonetaryAccountJoint",
                                          "MonetaryAccountExternal", "MonetaryAccountCard", "MonetaryAccountLight"]

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(_ text: String) { stringValue = text }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            guard let key = container.allKeys.first else {
                self = .other("")
                return
            }
            let name = key.stringValue
            func read<T: Decodable>(_ type: T.Type) -> T? { try? container.decode(type, forKey: key) }
            func unreadable<T: Decodable>(_ type: T.Type) -> Item {
                do {
                    _ = try container.decode(type, forKey: key)
                    return .other(name)
                } catch {
                    return .unreadable(name, Item.reason(error))
                }
            }
            switch name {
            case "Id": self = read(Id.self).map(Item.id) ?? unreadable(Id.self)
            case "Token": self = read(Token.self).map(Item.token) ?? unreadable(Token.self)
            case "ServerPublicKey": self = read(ServerPublicKey.self).map(Item.serverPublicKey) ?? unreadable(ServerPublicKey.self)
            case "Payment": self = read(Payment.self).map(Item.payment) ?? unreadable(Payment.self)
            case _ where Item.userKinds.contains(name):
                self = read(User.self).map { .user(kind: name, $0) } ?? unreadable(User.self)
            case _ where Item.accountKinds.contains(name):
                if var account = read(MonetaryAccount.self) {
                    account.kind = name
                    self = .account(account)
                } else {
                    self = unreadable(MonetaryAccount.self)
                }
            default: self = .other(name)
            }
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            switch self {
            case .id(let value): try container.encode(value, forKey: Key("Id"))
            case .token(let value): try container.encode(value, forKey: Key("Token"))
            case .serverPublicKey(let value): try container.encode(value, forKey: Key("ServerPublicKey"))
            case .user(let kind, let value): try container.encode(value, forKey: Key(kind))
            case .account(let value): try container.encode(value, forKey: Key(value.kind))
            case .payment(let value): try container.encode(value, forKey: Key("Payment"))
            case .other(let name), .unreadable(let name, _): try container.encode([String: String](), forKey: Key(name))
            }
        }

        static func reason(_ error: Error) -> String {
            switch error {
            case DecodingError.keyNotFound(let key, _): "\(key.stringValue) is missing"
            case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
                 DecodingError.dataCorrupted(let context):
                (context.codingPath.last?.stringValue ?? "a field") + " is not readable"
            default: "not readable"
            }
        }
    }

    /// `{"Response": [...], "Pagination": {...}}`
    public struct Envelope: Codable, Sendable {
        public var response: [Item]
        public var pagination: Pagination?

        public init(response: [Item], pagination: Pagination? = nil) {
            self.response = response
            self.pagination = pagination
        }

        enum CodingKeys: String, CodingKey {
            case response = "Response"
            case pagination = "Pagination"
        }

        public var ids: [Int] { response.compactMap { if case .id(let id) = $0 { id.id } else { nil } } }
        public var token: Token? { response.lazy.compactMap { if case .token(let token) = $0 { token } else { nil } }.first }
        public var serverPublicKey: String? {
            response.lazy.compactMap { if case .serverPublicKey(let key) = $0 { key.serverPublicKey } else { nil } }.first
        }
        public var user: User? { response.lazy.compactMap { if case .user(_, let user) = $0 { user } else { nil } }.first }
        public var accounts: [MonetaryAccount] { response.compactMap { if case .account(let account) = $0 { account } else { nil } } }
        public var payments: [Payment] { response.compactMap { if case .payment(let payment) = $0 { payment } else { nil } } }
        public var unreadable: [(String, String)] {
            response.compactMap { if case .unreadable(let name, let why) = $0 { (name, why) } else { nil } }
        }
    }

    /// `{"Error": [{"error_description", "error_description_translated"}]}`
    public struct ErrorBody: Codable, Sendable {
        public struct Entry: Codable, Sendable {
            public var errorDescription: String?
            public var errorDescriptionTranslated: String?

            public init(errorDescription: String?, errorDescriptionTranslated: String?) {
                self.errorDescription = errorDescription
                self.errorDescriptionTranslated = errorDescriptionTranslated
            }

            enum CodingKeys: String, CodingKey {
                case errorDescription = "error_description"
                case errorDescriptionTranslated = "error_description_translated"
            }
        }

        public var error: [Entry]

        public init(_ text: String) { error = [Entry(errorDescription: text, errorDescriptionTranslated: text)] }

        enum CodingKeys: String, CodingKey { case error = "Error" }

        /// The translated text (for the user), cleaned and cut short.
        public var text: String? {
            guard let entry = error.first, let said = entry.errorDescriptionTranslated ?? entry.errorDescription else { return nil }
            return TextSanitizer.clean(String(said.prefix(200)))
        }
    }

    // MARK: - Times

    /// bunq's UTC `YYYY-MM-DD hh:mm:ss.ffffff`; nil for anything else.
    public static func parseTime(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes.count <= 26, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x20 || bytes[10] == 0x54,
              bytes[13] == 0x3A, bytes[16] == 0x3A else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), (1...31).contains(day),
              hour < 24, minute < 60, second < 61 else { return nil }
        var micro = 0
        if bytes.count > 19 {
            guard bytes[19] == 0x2E, bytes.count > 20, let fraction = number(20..<bytes.count) else { return nil }
            micro = fraction * Int(pow(10, Double(6 - (bytes.count - 20))))
        }
        var components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        components.timeZone = .gmt
        guard let date = Bunq.utc.date(from: components) else { return nil }
        return date.addingTimeInterval(Double(micro) / 1_000_000)
    }

    /// `2026-11-23 14:05:09.123456`
    public static func timeText(_ date: Date) -> String {
        let parts = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let micro = Int((date.timeIntervalSince1970 - floor(date.timeIntervalSince1970)) * 1_000_000)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d.%06d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, micro)
    }

    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }()
}
