import FeedModel
import Foundation

/// Up's shapes turned into the model the screens draw (docs/banks.md, Up part).
///
/// People: Up names who made a payment on a joint (2Up) account (`performingCustomer`), and has
/// no user ids; the account holder is user 1, anyone else gets a stable id made from their name.
public enum UpMapping {
    public static let holderId = 1

    /// A stable id for a person named on a joint account (never 1): 1000 plus a hash of the name.
    public static func userId(forName name: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in name.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return 1_000 + Int(hash % 1_000_000)
    }

    /// Goals are Up's savers. Up has no target: the one the config file sets for the saver (by its
    /// name or id), else none.
    public static func goal(_ saver: Up.AccountResource, targets: [String: Money]) throws(MalformedPayload) -> Goal {
        let balance = try saver.attributes.balance.money("attributes.balance")
        let name = TextSanitizer.clean(saver.attributes.displayName ?? "")
        let target = targets[saver.id] ?? targets[name]
        return Goal(id: GoalID(saver.id), name: name, ownerId: holderId,
                    target: target.flatMap { $0.currency == balance.currency ? $0 : nil }, balance: balance)
    }

    /// Who made the payment: the performing customer on a joint account, else the holder. Up
    /// names no signed-in customer, so `you` (the config file's `[up] you`) says which name is the
    /// user's: that one is the holder, "you" as on every other source.
    public static func userId(_ transaction: Up.TransactionResource, joint: Bool, you: String? = nil) -> Int {
        guard joint, let name = transaction.attributes.performingCustomer?.displayName.map(TextSanitizer.clean),
              !name.isEmpty else { return holderId }
        if let you, name.caseInsensitiveCompare(you) == .orderedSame { return holderId }
        return userId(forName: name)
    }

    /// The row's text: the description in bold ("Saved into **Holiday**" for money into a saver),
    /// `· held` while Up holds it, what was paid in another currency (`· paid IDR 1,053,698.77`),
    /// and Up's round-up (`· round-up A$0.08`, `incl. boost A$1.00`).
    public static func message(_ transaction: Up.TransactionResource, savers: [String: String]) -> MarkupText {
        let attributes = transaction.attributes
        let description = title(attributes)
        var runs: [MarkupText.Run]
        if let saver = transferSaver(transaction, savers: savers), attributes.amount.valueInBaseUnits < 0 {
            runs = [MarkupText.Run("Saved into "), MarkupText.Run(saver, bold: true)]
        } else {
            runs = [MarkupText.Run(description, bold: true)]
        }
        if isHeld(attributes) { runs.append(MarkupText.Run(" · held")) }
        if let foreign = attributes.foreignAmount, foreign.currencyCode.uppercased() != attributes.amount.currencyCode.uppercased(),
           let paid = try? foreign.money("foreignAmount") {
            runs.append(MarkupText.Run(" · paid " + paid.magnitude.formatted))
        }
        if let roundUp = attributes.roundUp, let made = try? roundUp.amount.money("roundUp.amount"), !made.isZero {
            var text = " · round-up " + made.magnitude.formatted
            if let boost = try? roundUp.boostPortion?.money("roundUp.boostPortion"), !boost.isZero {
                text += " incl. boost " + boost.magnitude.formatted
            }
            runs.append(MarkupText.Run(text))
        }
        return MarkupText(runs: runs)
    }

    /// `description`, else `rawText`, else "payment".
    static func title(_ attributes: Up.TransactionAttributes) -> String {
        for text in [attributes.description, attributes.rawText] {
            let cleaned = TextSanitizer.clean(text ?? "").trimmingCharacters(in: .whitespaces)
            if !cleaned.isEmpty { return cleaned }
        }
        return "payment"
    }

    static func isHeld(_ attributes: Up.TransactionAttributes) -> Bool {
        attributes.status?.uppercased() == "HELD"
    }

    /// The saver's name when the transaction moved money to or from one of the customer's savers.
    static func transferSaver(_ transaction: Up.TransactionResource, savers: [String: String]) -> String? {
        guard let other = transaction.relationships?.transferAccount?.data?.id else { return nil }
        return savers[other]
    }

    /// Money to a saver is money saved into a goal; everything else (payments, income, money
    /// back from a saver) is neither.
    public static func kind(_ transaction: Up.TransactionResource, savers: [String: String]) -> Activity.Kind {
        if transferSaver(transaction, savers: savers) != nil, transaction.attributes.amount.valueInBaseUnits < 0 { return .moveToGoal }
        return .other
    }

    public static func activity(_ transaction: Up.TransactionResource, savers: [String: String],
                                joint: Bool, you: String? = nil) throws(MalformedPayload) -> Activity {
        try checkAmounts(transaction.attributes)
        let kind = kind(transaction, savers: savers)
        // Money into a saver is credited to the saver Up names (`relationships.transferAccount`), never by name.
        return Activity(id: transaction.id, message: message(transaction, savers: savers),
                        amount: try transaction.attributes.amount.money("attributes.amount"),
                        userId: userId(transaction, joint: joint, you: you), timestamp: transaction.attributes.createdAt,
                        kind: kind, goalId: kind == .moveToGoal ? transaction.relationships?.transferAccount?.data.map { GoalID($0.id) } : nil,
                        category: transaction.relationships?.category?.data?.id)
    }

    /// A payment with Up's own round-up (`roundUp.amount`, boost included) as the bank made it;
    /// a transaction without one rounds up by nothing.
    public static func transaction(_ transaction: Up.TransactionResource) throws(MalformedPayload) -> FeedModel.Transaction {
        let attributes = transaction.attributes
        try checkAmounts(attributes)
        let made = try attributes.roundUp.map { roundUp throws(MalformedPayload) in try roundUp.amount.money("roundUp.amount").magnitude }
        let boost = try attributes.roundUp?.boostPortion.map { boost throws(MalformedPayload) in
            try boost.money("roundUp.boostPortion").magnitude
        }
        var counterparty = title(attributes)
        if let boost, !boost.isZero { counterparty += " · boost " + boost.formatted }
        if isHeld(attributes) { counterparty += " · held" }
        return FeedModel.Transaction(id: transaction.id, timestamp: attributes.createdAt,
                                     amount: try attributes.amount.money("attributes.amount"), counterparty: counterparty,
                                     roundsUp: made != nil, bankRoundUp: made, boost: boost,
                                     category: transaction.relationships?.category?.data?.id,
                                     cardPayment: attributes.cardPurchaseMethod != nil || made != nil)
    }

    /// An item of a saver's own feed: money into the saver (from "Spending", a round-up) or out of it.
    public static func goalFeedItem(_ transaction: Up.TransactionResource, accounts: [String: String],
                                    joint: Bool, you: String? = nil) throws(MalformedPayload) -> FeedItem {
        let attributes = transaction.attributes
        try checkAmounts(attributes)
        let amount = try attributes.amount.money("attributes.amount")
        let other = transaction.relationships?.transferAccount?.data.flatMap { accounts[$0.id] } ?? title(attributes)
        var runs = [MarkupText.Run(amount.isNegative ? "Moved to " : "Added from "), MarkupText.Run(other, bold: true)]
        if isHeld(attributes) { runs.append(MarkupText.Run(" · held")) }
        return FeedItem(id: transaction.id, type: "saving", timestamp: attributes.createdAt, message: MarkupText(runs: runs),
                        amount: amount, userId: userId(transaction, joint: joint, you: you))
    }

    /// Every amount of a transaction must read (an amount that does not is a bad record, not a
    /// row with a hole in it).
    static func checkAmounts(_ attributes: Up.TransactionAttributes) throws(MalformedPayload) {
        _ = try attributes.amount.money("attributes.amount")
        _ = try attributes.foreignAmount?.money("attributes.foreignAmount")
        _ = try attributes.roundUp?.amount.money("attributes.roundUp.amount")
        _ = try attributes.roundUp?.boostPortion?.money("attributes.roundUp.boostPortion")
        _ = try attributes.holdInfo?.amount?.money("attributes.holdInfo.amount")
        _ = try attributes.cashback?.amount?.money("attributes.cashback.amount")
    }
}
