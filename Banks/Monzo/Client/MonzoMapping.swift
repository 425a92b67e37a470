import FeedModel
import Foundation

/// The round-up rule for Monzo (../../docs/banks.md): a week's `mastercard` payments with a
/// negative amount that are not declined (settled or only authorised) round up on `amount` by
/// `(100 − |minor| % 100) % 100`; pot transfers, top-ups, bank transfers and declined payments
/// round up by nothing.
public enum MonzoRoundUp {
    public static func roundsUp(_ transaction: Monzo.Transaction) -> Bool {
        transaction.scheme?.lowercased() == "mastercard" && transaction.amount < 0 && !transaction.isDeclined
            && transaction.isLoad != true
    }
}

/// Monzo's shapes turned into the model the screens draw. The account holder is user 1: Monzo
/// has no shared pots through this API, so every saving and payment is the holder's.
public enum MonzoMapping {
    public static let holderId = 1

    static func money(_ minor: Int64, _ code: String, _ field: String) throws(MalformedPayload) -> Money {
        guard let currency = Currency.from(code: code) else {
            throw MalformedPayload(resource: field, reason: "not an ISO currency code: \"\(String(code.prefix(10)))\"")
        }
        guard let money = Money(bounded: minor, currency: currency) else {
            throw MalformedPayload(resource: field, reason: "\(minor) is out of range")
        }
        return money
    }

    /// A pot as a goal: its name, balance, and `goal_amount` as the target where there is one.
    public static func goal(_ pot: Monzo.Pot) throws(MalformedPayload) -> Goal {
        let balance = try money(pot.balance, pot.currency, "balance")
        let target = try pot.goalAmount.flatMap { amount throws(MalformedPayload) -> Money? in
            amount > 0 ? try money(amount, pot.currency, "goal_amount") : nil
        }
        return Goal(id: GoalID(pot.id), name: pot.name ?? "", ownerId: holderId, imageURL: nil, target: target, balance: balance,
                    status: .active, tint: tint(style: pot.style))
    }

    /// A pot's `style` as a colour: only names in this table count (the server's text is never
    /// shown or used as a colour); an unknown or missing style is no tint. `beach_ball` is
    /// Monzo's documented example; the rest are names of Monzo's pot designs seen in public
    /// projects and plain colour words (Monzo documents no list).
    static let styleTints: [String: GoalTint] = [
        "beach_ball": .orange, "raspberry": .pink, "blue_steel": .blue, "sunny_day": .yellow, "yellow": .yellow,
        "cactus": .green, "green": .green, "blue": .blue, "pink": .pink, "orange": .orange,
    ]

    public static func tint(style: String?) -> GoalTint? {
        guard let style, style.count <= 40 else { return nil }
        return styleTints[style.lowercased()]
    }

    /// Who the money went to or came from: the merchant's name, the counterparty's, else the description.
    public static func counterparty(_ transaction: Monzo.Transaction, potNames: [String: String] = [:]) -> String {
        if isPotTransfer(transaction), let pot = transaction.potId {
            if let name = potNames[pot], !name.isEmpty { return name }
            return "a pot"
        }
        for text in [transaction.merchant?.name, transaction.counterparty?.name, transaction.description] {
            let cleaned = TextSanitizer.clean(text ?? "").trimmingCharacters(in: .whitespaces)
            if !cleaned.isEmpty { return cleaned }
        }
        if transaction.isLoad == true { return "Top-up" }
        return "payment"
    }

    public static func isPotTransfer(_ transaction: Monzo.Transaction) -> Bool {
        transaction.scheme?.lowercased() == "uk_retail_pot" || transaction.potId != nil && transaction.merchant == nil
    }

    /// Declined: nothing moved. Money out to one of the account's pots: saved. Everything else: neither.
    public static func kind(_ transaction: Monzo.Transaction) -> Activity.Kind {
        if transaction.isDeclined { return .void }
        if isPotTransfer(transaction), transaction.amount < 0 { return .moveToGoal }
        return .other
    }

    /// The row's text: the counterparty in bold ("Saved into **Holiday**" for money into a pot),
    /// declined or pending when so, and what was paid in another currency ("· paid €12.50").
    public static func message(_ transaction: Monzo.Transaction, potNames: [String: String] = [:]) -> MarkupText {
        let name = counterparty(transaction, potNames: potNames)
        var runs: [MarkupText.Run]
        if isPotTransfer(transaction) {
            runs = [MarkupText.Run(transaction.amount < 0 ? "Saved into " : "Taken from "), MarkupText.Run(name, bold: true)]
        } else {
            runs = [MarkupText.Run(name, bold: true)]
        }
        if transaction.isDeclined {
            let reason = TextSanitizer.clean(transaction.declineReason ?? "").lowercased().replacingOccurrences(of: "_", with: " ")
            runs.append(MarkupText.Run(" · declined" + (reason.isEmpty ? "" : " (\(String(reason.prefix(40))))")))
        } else if transaction.isPending {
            runs.append(MarkupText.Run(" · pending"))
        }
        if let local = transaction.localCurrency, local.uppercased() != transaction.currency.uppercased(),
           let amount = transaction.localAmount, let paid = try? money(amount, local, "local_amount") {
            runs.append(MarkupText.Run(" · paid " + paid.magnitude.formatted))
        }
        return MarkupText(runs: runs)
    }

    public static func activity(_ transaction: Monzo.Transaction, potNames: [String: String] = [:]) throws(MalformedPayload) -> Activity {
        let kind = kind(transaction)
        // Money into a pot is credited to the pot Monzo names (`metadata.pot_id`), never by name.
        return Activity(id: transaction.id, message: message(transaction, potNames: potNames),
                        amount: try money(transaction.amount, transaction.currency, "amount"),
                        userId: holderId, timestamp: transaction.created, kind: kind,
                        goalId: kind == .moveToGoal ? transaction.potId.map { GoalID($0) } : nil, category: transaction.category)
    }

    public static func transaction(_ transaction: Monzo.Transaction) throws(MalformedPayload) -> FeedModel.Transaction {
        FeedModel.Transaction(id: transaction.id, timestamp: transaction.created,
                              amount: try money(transaction.amount, transaction.currency, "amount"),
                              counterparty: counterparty(transaction), roundsUp: MonzoRoundUp.roundsUp(transaction),
                              category: transaction.category)
    }

    /// A pot's feed item: money out of the account is money into the pot.
    public static func potFeedItem(_ transaction: Monzo.Transaction) throws(MalformedPayload) -> FeedItem {
        let amount = try money(transaction.amount, transaction.currency, "amount")
        let into = transaction.amount < 0
        var runs = [MarkupText.Run(into ? "Added from " : "Moved to "), MarkupText.Run("the account", bold: true)]
        if transaction.isDeclined { runs.append(MarkupText.Run(" · declined")) }
        return FeedItem(id: transaction.id, type: "saving", timestamp: transaction.created, message: MarkupText(runs: runs),
                        amount: amount.negated, userId: holderId)
    }

    /// The row where the history ends for this sign-in: why there is nothing older.
    public static func edgeRow(at date: Date, currency: Currency) -> Activity {
        Activity(message: MarkupText(runs: [MarkupText.Run("Older activity", bold: true),
                                            MarkupText.Run(" · Monzo's API gives only the last 90 days once a sign-in is 5 minutes old")]),
                 amount: .zero(currency), userId: holderId, timestamp: date, kind: .void)
    }
}
