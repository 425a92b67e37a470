import FeedModel
import Foundation

/// The round-up rule for bunq (docs/banks.md): a main-account payment of `type` `MASTERCARD`
/// (or `FIS`, `MAESTRO`) with `sub_type` `PAYMENT` and a negative amount rounds up by
/// `(100 − |minor| % 100) % 100`; refunds, money in and every other type round up by nothing
/// (bunq's own auto-save `SAVINGS`, `BUNQ` transfers including this app's saves, SEPA, iDEAL…).
public enum BunqRoundUp {
    public static let cardTypes: Set<String> = ["MASTERCARD", "FIS", "MAESTRO"]

    public static func roundsUp(type: String?, subType: String?, minorUnits: Int64) -> Bool {
        cardTypes.contains((type ?? "").uppercased()) && (subType ?? "").uppercased() == "PAYMENT" && minorUnits < 0
    }

    public static func roundsUp(_ payment: Bunq.Payment) -> Bool {
        guard let money = payment.amount.money() else { return false }
        return roundsUp(type: payment.type, subType: payment.subType, minorUnits: money.minorUnits)
    }

    /// bunq's own automatic saving (`SAVINGS`): the Round-ups tab says the same purchases may round up twice.
    public static func isAutoSave(_ payment: Bunq.Payment) -> Bool { (payment.type ?? "").uppercased() == "SAVINGS" }
}

/// bunq's shapes turned into the model the screens draw. The user is person 1; co-owners of
/// savings accounts are people numbered from `firstCoOwnerId` by name.
public enum BunqMapping {
    public static let holderId = 1
    public static let firstCoOwnerId = 100

    /// What a row says the payment was, from `type`/`sub_type`.
    public static func label(type: String?, subType: String?) -> String {
        let type = (type ?? "").uppercased()
        let sub = (subType ?? "").uppercased()
        if sub == "REVERSAL" { return "refund" }
        switch type {
        case "MASTERCARD", "FIS", "MAESTRO": return "card"
        case "SAVINGS": return "bunq auto-save"
        case "EBA_SDD": return "direct debit"
        case "IDEAL": return "iDEAL"
        case "CHECKOUT_MERCHANT": return "top-up"
        case "BUNQ", "EBA_SCT", "SWIFT": return sub == "SDD" ? "direct debit" : "transfer"
        default: return sub == "SDD" ? "direct debit" : "payment"
        }
    }

    static let colourTints: [String: GoalTint] = [
        "#0000ff": .blue, "#1e88e5": .blue, "#2196f3": .blue, "#00ff00": .green, "#4caf50": .green, "#43a047": .green,
        "#ffff00": .yellow, "#fdd835": .yellow, "#ffeb3b": .yellow, "#ff9800": .orange, "#fb8c00": .orange,
        "#ff0000": .pink, "#e91e63": .pink, "#f06292": .pink,
    ]

    /// A `setting.color` (`#RRGGBB`) as the nearest of the app's tints, by hue; nil for anything else.
    public static func tint(color: String?) -> GoalTint? {
        guard let color, color.utf8.count == 7, color.hasPrefix("#"), let value = UInt32(color.dropFirst(), radix: 16) else { return nil }
        if let known = colourTints[color.lowercased()] { return known }
        let r = Double((value >> 16) & 0xFF) / 255, g = Double((value >> 8) & 0xFF) / 255, b = Double(value & 0xFF) / 255
        let high = max(r, g, b), low = min(r, g, b)
        guard high - low > 0.1 else { return nil }
        var hue: Double
        if high == r { hue = (g - b) / (high - low) } else if high == g { hue = 2 + (b - r) / (high - low) } else { hue = 4 + (r - g) / (high - low) }
        hue = (hue * 60).truncatingRemainder(dividingBy: 360)
        if hue < 0 { hue += 360 }
        switch hue {
        case ..<20, 330...: return .pink
        case ..<45: return .orange
        case ..<70: return .yellow
        case ..<170: return .green
        case ..<260: return .blue
        default: return .pink
        }
    }

    static func money(_ amount: Bunq.Amount?, _ field: String) throws(MalformedPayload) -> Money {
        guard let amount else { throw MalformedPayload(resource: field, reason: "missing") }
        guard Currency.from(code: amount.currency) != nil else {
            throw MalformedPayload(resource: field, reason: "not an ISO currency code: \"\(String(amount.currency.prefix(10)))\"")
        }
        guard let money = amount.money() else {
            throw MalformedPayload(resource: field, reason: "not an amount: \"\(TextSanitizer.clean(String(amount.value.prefix(24))))\"")
        }
        return money
    }

    static func time(_ text: String, _ field: String) throws(MalformedPayload) -> Date {
        guard let date = Bunq.parseTime(text) else {
            throw MalformedPayload(resource: field, reason: "not a time: \"\(TextSanitizer.clean(String(text.prefix(32))))\"")
        }
        return date
    }

    /// The co-owners' names of a savings account (active or pending, never the holder).
    public static func coOwners(_ account: Bunq.MonetaryAccount, holder: String?) -> [String] {
        let names = (account.allCoOwner ?? []).compactMap { owner -> String? in
            guard (owner.status ?? "ACCEPTED").uppercased() != "REVOKED" else { return nil }
            let name = TextSanitizer.clean(owner.alias?.displayName ?? "").trimmingCharacters(in: .whitespaces)
            return name.isEmpty ? nil : name
        }
        return names.filter { $0 != holder }
    }

    /// An active savings account as a goal: description, balance, `savings_goal` as the target.
    public static func goal(_ account: Bunq.MonetaryAccount, people: [String: Int], holder: String?) throws(MalformedPayload) -> Goal {
        let balance = try money(account.balance, "balance")
        let target = try account.savingsGoal.flatMap { amount throws(MalformedPayload) -> Money? in
            let goal = try money(amount, "savings_goal")
            return goal.minorUnits > 0 ? goal : nil
        }
        let connected = coOwners(account, holder: holder).compactMap { people[$0] }
        let name = TextSanitizer.clean(account.description ?? "").trimmingCharacters(in: .whitespaces)
        return Goal(id: GoalID(String(account.id)), name: name.isEmpty ? "Savings \(account.id)" : name, ownerId: holderId,
                    target: target, balance: balance, status: .active, connectedUserIds: connected, tint: tint(color: account.setting?.color))
    }

    /// Who the money went to or came from: the counterparty's name, else the description.
    public static func counterparty(_ payment: Bunq.Payment) -> String {
        for text in [payment.counterpartyAlias?.displayName, payment.description] {
            let cleaned = TextSanitizer.clean(String((text ?? "").prefix(140))).trimmingCharacters(in: .whitespaces)
            if !cleaned.isEmpty { return cleaned }
        }
        return "payment"
    }

    /// A main-account payment as an Activity row: money out to one of the user's savings
    /// accounts (by IBAN) is a move into that goal.
    public static func activity(_ payment: Bunq.Payment, savings: [String: GoalID], currency: Currency) throws(MalformedPayload) -> Activity {
        let amount = try money(payment.amount, "amount")
        let when = try time(payment.created, "created")
        let goal = payment.counterpartyAlias?.iban.flatMap { savings[normalized(iban: $0)] }
        let into = goal != nil && amount.minorUnits < 0
        var runs: [MarkupText.Run]
        if into {
            runs = [MarkupText.Run("Saved into "), MarkupText.Run(counterparty(payment), bold: true)]
        } else {
            runs = [MarkupText.Run(counterparty(payment), bold: true)]
        }
        runs.append(MarkupText.Run(" · " + label(type: payment.type, subType: payment.subType)))
        return Activity(id: "payment-\(payment.id)", message: MarkupText(runs: runs), amount: amount, userId: holderId,
                        timestamp: when, kind: into ? .moveToGoal : .other, goalId: into ? goal : nil)
    }

    public static func transaction(_ payment: Bunq.Payment) throws(MalformedPayload) -> FeedModel.Transaction {
        let amount = try money(payment.amount, "amount")
        return FeedModel.Transaction(id: "payment-\(payment.id)", timestamp: try time(payment.created, "created"), amount: amount,
                                     counterparty: counterparty(payment),
                                     roundsUp: BunqRoundUp.roundsUp(type: payment.type, subType: payment.subType, minorUnits: amount.minorUnits))
    }

    /// A savings account's payment as its goal's feed item (money in is saved).
    public static func feedItem(_ payment: Bunq.Payment) throws(MalformedPayload) -> FeedItem {
        let amount = try money(payment.amount, "amount")
        let into = amount.minorUnits > 0
        let runs = [MarkupText.Run(into ? "Added from " : "Moved to "), MarkupText.Run(counterparty(payment), bold: true),
                    MarkupText.Run(" · " + label(type: payment.type, subType: payment.subType))]
        return FeedItem(id: "payment-\(payment.id)", type: "saving", timestamp: try time(payment.created, "created"),
                        message: MarkupText(runs: runs), amount: amount, userId: holderId)
    }

    public static func normalized(iban: String) -> String { iban.uppercased().filter { !$0.isWhitespace } }
}
