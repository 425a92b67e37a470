import Foundation

extension Rule {
    /// What the rule does, in words a list can show: "£2.00 each card payment at Pret or Costa",
    /// "10% of pay from ACME", "£5.00 each week". Days are written in `calendar`, as read.
    public func words(currency: Currency, calendar: Calendar) -> String {
        switch kind {
        case .roundUp(let step):
            let to = step.map { " to the next " + Money(minorUnits: $0, currency: currency).formatted } ?? ""
            return "each card payment rounded up" + to
        case .guiltyPleasure(let amount, let match, let category):
            return "\(amount.formatted) each card payment \(Self.payments(match, category))"
        case .setAndForget(let amount, let every):
            return "\(amount.formatted) each \(every.rawValue)"
        case .fiftyTwoWeek(let amount, let start, let reverse):
            let times = reverse ? "(53 − n)" : "n"
            return "52 weeks from \(Self.day(start, calendar: calendar)): week n saves \(times) × \(amount.formatted)"
        case .spendLess(let target, let match, let category):
            let spending = [Self.or(match), category.isEmpty ? "" : "spending in " + Self.or(category)].filter { !$0.isEmpty }
            return "what is left of \(target.formatted) a week after " + spending.joined(separator: " or ")
        case .payday(let hundredths, let match, let minimum):
            let percent = Self.percent(hundredths)
            let from = match.isEmpty ? "" : "pay from \(Self.or(match))"
            let any = minimum.map { "any payment in of \($0.formatted) or more" } ?? ""
            return "\(percent) of " + [from, any].filter { !$0.isEmpty }.joined(separator: " and of ")
        }
    }

    /// "10%", "12.5%", "0.25%".
    static func percent(_ hundredths: Int64) -> String {
        let whole = hundredths / 100
        var fraction = String(hundredths % 100)
        if fraction.count == 1 { fraction = "0" + fraction }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(whole)" + (fraction.isEmpty ? "" : "." + fraction) + "%"
    }

    /// "at Pret or Costa", "in eating_out", "at Pret or in eating_out or groceries".
    static func payments(_ match: [String], _ category: [String]) -> String {
        [match.isEmpty ? "" : "at " + or(match), category.isEmpty ? "" : "in " + or(category)]
            .filter { !$0.isEmpty }.joined(separator: " or ")
    }

    /// "Pret", "Pret or Costa", "Pret, Costa or Nero".
    static func or(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + words[words.count - 1]
    }

    /// "2026-01-05": the day `date` starts, as the file writes it.
    static func day(_ date: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        func two(_ value: Int?) -> String { (value ?? 0) < 10 ? "0\(value ?? 0)" : "\(value ?? 0)" }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day))"
    }
}
