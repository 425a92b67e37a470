import FeedModel
import Foundation

/// Seed 002's round-up rule: a week's `OUT` card payments (`MASTER_CARD`) that are `SETTLED`
/// or `PENDING` round up on `amount` (the account's currency) by `(100 − minorUnits % 100) % 100`
/// (for a currency with two decimals). Everything else rounds up by nothing.
public enum StarlingRoundUp {
    public static func roundsUp(direction: String, source: String?, status: String?) -> Bool {
        direction.uppercased() == "OUT"
            && source?.uppercased() == "MASTER_CARD"
            && ["SETTLED", "PENDING"].contains(status?.uppercased() ?? "")
    }
}

/// Starling's shapes turned into the model the screens draw. The account holder is user 1:
/// Starling has no shared goals, so every saving and payment is the holder's.
public enum StarlingMapping {
    public static let holderId = 1

    /// A goal; its photo is fetched through `StarlingAPI.imageData(at:)` at `starling-photo:UID`.
    public static func goal(_ goal: Starling.SavingsGoal, currency: Currency, withPhoto: Bool = true) throws(MalformedPayload) -> Goal {
        let state = goal.state?.uppercased() ?? "ACTIVE"
        let status: Goal.Status = switch state {
        case "ACTIVE": .active
        default: .other(TextSanitizer.clean(state.lowercased()))
        }
        return Goal(id: GoalID(goal.savingsGoalUid), name: goal.name ?? "", ownerId: holderId,
                    imageURL: withPhoto ? StarlingAPI.photoURL(goalUid: goal.savingsGoalUid) : nil,
                    target: try goal.target?.money("target"), balance: try goal.totalSaved?.money("totalSaved") ?? .zero(currency),
                    status: status)
    }

    /// `IN` is money in (+), `OUT` money out (−).
    public static func signedAmount(_ item: Starling.FeedItem) throws(MalformedPayload) -> Money {
        let money = try item.amount.money("amount")
        return item.direction.uppercased() == "OUT" ? money.negated : money
    }

    /// Who the money went to or came from: the counterparty, else the reference, else the source.
    public static func counterparty(_ item: Starling.FeedItem) -> String {
        for text in [item.counterPartyName, item.reference] {
            let cleaned = TextSanitizer.clean(text ?? "").trimmingCharacters(in: .whitespaces)
            if !cleaned.isEmpty { return cleaned }
        }
        return sourceLabel(item.source)
    }

    /// "MASTER_CARD" → "master card".
    static func sourceLabel(_ source: String?) -> String {
        let label = TextSanitizer.clean(source ?? "").replacingOccurrences(of: "_", with: " ").lowercased()
        return label.isEmpty ? "payment" : label
    }

    /// The row's text: the counterparty in bold ("Saved into **Dog**" for money into a goal), its
    /// status when not settled, and what was paid in another currency ("**Café de Flore** ·
    /// pending · paid €12.50").
    public static func message(_ item: Starling.FeedItem) -> MarkupText {
        // Money into one of the account's goals reads as what it is: "Saved into **Dog**".
        var runs = kind(item) == .moveToGoal ? [MarkupText.Run("Saved into "), MarkupText.Run(counterparty(item), bold: true)]
            : [MarkupText.Run(counterparty(item), bold: true)]
        if let status = item.status.map(TextSanitizer.clean), !status.isEmpty, status.uppercased() != "SETTLED" {
            runs.append(MarkupText.Run(" · " + status.lowercased().replacingOccurrences(of: "_", with: " ")))
        }
        if let source = item.sourceAmount, source.currency.uppercased() != item.amount.currency.uppercased(),
           let paid = try? source.money("sourceAmount") {
            runs.append(MarkupText.Run(" · paid " + paid.formatted))
        }
        return MarkupText(runs: runs)
    }

    public static func activity(_ item: Starling.FeedItem) throws(MalformedPayload) -> Activity {
        let kind = kind(item)
        // Money into a goal is credited to the goal Starling names (`counterPartyUid`), never by name.
        let goal = kind == .moveToGoal ? item.counterPartyUid.map(TextSanitizer.clean).flatMap { $0.isEmpty ? nil : GoalID($0) } : nil
        return Activity(id: item.feedItemUid, message: message(item), amount: try signedAmount(item), userId: holderId,
                        timestamp: item.transactionTime, kind: kind, goalId: goal, category: item.spendingCategory?.lowercased())
    }

    /// Declined or reversed: nothing moved. Money out to one of the account's own savings
    /// categories (a goal): saved. Everything else (payments, income) is neither.
    public static func kind(_ item: Starling.FeedItem) -> Activity.Kind {
        if ["DECLINED", "REVERSED"].contains(item.status?.uppercased() ?? "") { return .void }
        let toSavings = item.counterPartyType?.uppercased() == "CATEGORY" || item.spendingCategory?.uppercased() == "SAVING"
        if item.direction.uppercased() == "OUT", item.source?.uppercased() == "INTERNAL_TRANSFER", toSavings { return .moveToGoal }
        return .other
    }

    public static func transaction(_ item: Starling.FeedItem) throws(MalformedPayload) -> Transaction {
        Transaction(id: item.feedItemUid, timestamp: item.transactionTime, amount: try signedAmount(item),
                    counterparty: counterparty(item),
                    roundsUp: StarlingRoundUp.roundsUp(direction: item.direction, source: item.source, status: item.status),
                    category: item.spendingCategory)
    }

    /// An item of a goal's own feed: money added to the goal (IN) or taken out of it (OUT).
    public static func goalFeedItem(_ item: Starling.FeedItem) throws(MalformedPayload) -> FeedItem {
        let into = item.direction.uppercased() != "OUT"
        var runs = [MarkupText.Run(into ? "Added from " : "Moved to "), MarkupText.Run(counterparty(item), bold: true)]
        if let status = item.status.map(TextSanitizer.clean), !status.isEmpty, status.uppercased() != "SETTLED" {
            runs.append(MarkupText.Run(" · " + status.lowercased()))
        }
        // Declined or reversed: listed with its status, counted nowhere.
        return FeedItem(id: item.feedItemUid, type: kind(item) == .void ? FeedItem.voidType : "saving", timestamp: item.transactionTime, message: MarkupText(runs: runs),
                        amount: try signedAmount(item), userId: holderId)
    }
}
