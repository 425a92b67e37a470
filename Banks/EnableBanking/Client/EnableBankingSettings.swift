import FeedModel
import Foundation

/// The config file's `[enablebanking]` table and the environment, read: where the key is, the
/// application, the bank, and how the accounts are shown. A malformed value is one line.
public struct EnableBankingSettings: Sendable, Equatable {
    public var applicationId: String?
    /// The key file's path, `~/` expanded.
    public var keyFile: String?
    public var aspsp: String?
    public var country: String?
    public var psuType = "personal"
    public var redirectURL: String?
    public var consentDays = 180
    /// Accounts shown as goals, by name, IBAN or uid, in order.
    public var goals: [String] = []
    /// Targets in the goal's currency, by name, IBAN or uid.
    public var targets: [String: String] = [:]
    /// Spending accounts; nil: every account that is no goal.
    public var spending: [String]?
    /// A start reads only when the last read is older than this.
    public var refreshAfter: TimeInterval = 3_600
    public var psuIPAddress: String?
    /// Where the config file is, as notes show it.
    public var configFileShown = "the config file"
    /// Where a row's date is 00:00 (this machine's zone; tests fix it).
    public var timeZone = TimeZone.current

    public init() {}

    public static let keys = ["application-id", "key-file", "aspsp", "country", "psu-type", "redirect-url", "consent-days", "goals",
                              "goal-targets", "spending", "refresh-after", "psu-ip-address"]

    /// From the table's text values, the environment's `ENABLEBANKING_APPLICATION_ID` and
    /// `ENABLEBANKING_KEY_FILE` winning over `application-id` and `key-file`.
    public static func read(_ table: [String: String], environment: [String: String]) throws(EnableBankingKeyError) -> EnableBankingSettings {
        func given(_ text: String?) -> String? {
            text.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        func names(_ text: String?) -> [String]? {
            text.map { $0.split(separator: ";").map { TextSanitizer.clean($0.trimmingCharacters(in: .whitespaces)) }.filter { !$0.isEmpty } }
        }
        func refuse(_ key: String, _ value: String, _ want: String) -> EnableBankingKeyError {
            EnableBankingKeyError(message: "config file, [enablebanking] \(key): \"\(TextSanitizer.clean(String(value.prefix(40))))\" is not \(want)")
        }
        var settings = EnableBankingSettings()
        settings.applicationId = given(environment["ENABLEBANKING_APPLICATION_ID"]) ?? given(table["application-id"])
        settings.keyFile = (given(environment["ENABLEBANKING_KEY_FILE"]) ?? given(table["key-file"])).map { HomePath.expand($0, environment: environment) }
        settings.aspsp = given(table["aspsp"])
        settings.country = given(table["country"])?.uppercased()
        if let type = given(table["psu-type"]) {
            guard ["personal", "business"].contains(type) else { throw refuse("psu-type", type, "personal or business") }
            settings.psuType = type
        }
        settings.redirectURL = given(table["redirect-url"])
        if let days = given(table["consent-days"]) {
            guard let value = Int(days), (1...730).contains(value) else { throw refuse("consent-days", days, "a number of days (1 to 730)") }
            settings.consentDays = value
        }
        settings.goals = names(table["goals"]) ?? []
        settings.spending = names(table["spending"])
        for part in (table["goal-targets"] ?? "").split(separator: ";") {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            guard let equals = trimmed.lastIndex(of: "="),
                  case let name = trimmed[..<equals].trimmingCharacters(in: .whitespaces), !name.isEmpty,
                  case let amount = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces),
                  EnableBankingAmount.magnitude(amount, minorDigits: 3) != nil, !amount.hasPrefix("-") else {
                throw refuse("goal-targets", trimmed, "NAME = AMOUNT (e.g. Holiday Savings = 8000)")
            }
            settings.targets[TextSanitizer.clean(name)] = amount
        }
        if let text = given(table["refresh-after"]) {
            guard let seconds = duration(text) else { throw refuse("refresh-after", text, "a duration (30m, 1h, 0s)") }
            settings.refreshAfter = seconds
        }
        settings.psuIPAddress = given(table["psu-ip-address"])
        return settings
    }

    /// "90s", "30m", "1h", "2d" in seconds.
    static func duration(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let number = Int(text.dropLast()), number >= 0, number <= 1_000_000 else { return nil }
        switch unit {
        case "s": return TimeInterval(number)
        case "m": return TimeInterval(number * 60)
        case "h": return TimeInterval(number * 3_600)
        case "d": return TimeInterval(number * 86_400)
        default: return nil
        }
    }
}
