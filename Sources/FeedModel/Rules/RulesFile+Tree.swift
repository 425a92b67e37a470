import Foundation

extension RulesFile {
    /// The file as a plain tree of values, as `read` takes it back: what the Rules tab writes
    /// (the command line renders it as TOML). Amounts are written as the app reads them ("2.00"),
    /// days as dates in `calendar`, a round-up step in whole units of `currency`.
    public func tree(currency: Currency, calendar: Calendar) -> [String: Value] {
        var top: [String: Value] = [:]
        var settings: [String: Value] = [:]
        if let weeklyLimit { settings["weekly-limit"] = Self.amount(weeklyLimit) }
        if let keepAtLeast { settings["keep-at-least"] = Self.amount(keepAtLeast) }
        if !settings.isEmpty { top["rules"] = .table(settings) }
        if !rules.isEmpty { top["rule"] = .array(rules.map { .table(Self.fields(of: $0, currency: currency, calendar: calendar)) }) }
        return top
    }

    static func fields(of rule: Rule, currency: Currency, calendar: Calendar) -> [String: Value] {
        var fields: [String: Value] = ["name": .string(rule.name), "kind": .string(rule.kind.name), "goal": .string(rule.goal)]
        func words(_ list: [String]) -> Value { .array(list.map { .string($0) }) }
        switch rule.kind {
        case .roundUp(let step):
            if let step { fields["step"] = .integer(step / max(1, currency.minorPerUnit)) }
        case .guiltyPleasure(let amount, let match, let category):
            fields["amount"] = Self.amount(amount)
            if !match.isEmpty { fields["match"] = words(match) }
            if !category.isEmpty { fields["category"] = words(category) }
        case .setAndForget(let amount, let every):
            (fields["amount"], fields["every"]) = (Self.amount(amount), .string(every.rawValue))
        case .fiftyTwoWeek(let amount, let start, let reverse):
            (fields["amount"], fields["start"]) = (Self.amount(amount), Self.day(start, calendar))
            if reverse { fields["reverse"] = .bool(true) }
        case .spendLess(let target, let match, let category):
            fields["target"] = Self.amount(target)
            if !match.isEmpty { fields["match"] = words(match) }
            if !category.isEmpty { fields["category"] = words(category) }
        case .payday(let hundredths, let match, let minimum):
            let whole = hundredths / 100, fraction = hundredths % 100
            fields["percent"] = fraction == 0 ? .integer(whole) : .string("\(whole)." + (fraction < 10 ? "0" : "") + "\(fraction)")
            if !match.isEmpty { fields["match"] = words(match) }
            if let minimum { fields["minimum"] = Self.amount(minimum) }
        }
        if let since = rule.since { fields["since"] = Self.day(since, calendar) }
        if rule.paused { fields["paused"] = .bool(true) }
        return fields
    }

    /// "2.00", "300", "-1.50": the plain decimal the reader takes.
    static func amount(_ money: Money) -> Value { .string(money.plainDecimal) }

    static func day(_ date: Date, _ calendar: Calendar) -> Value {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return .date(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
    }
}
