import Foundation

/// The rules file (`rules.toml`, RULES.md): the limit and floor over all rules, and the rules in
/// the file's order. Read from a plain tree of values (`RulesFile.Value`), which the command
/// line makes from TOML, so every check is here and each complaint is one line naming the
/// file, the rule and the field.
public struct RulesFile: Hashable, Sendable {
    /// All rules together, per week.
    public var weeklyLimit: Money?
    /// Never move money that would leave the account below this.
    public var keepAtLeast: Money?
    public var rules: [Rule]

    public init(weeklyLimit: Money? = nil, keepAtLeast: Money? = nil, rules: [Rule]) {
        self.weeklyLimit = weeklyLimit
        self.keepAtLeast = keepAtLeast
        self.rules = rules
    }

    /// A value as the file holds it.
    public enum Value: Hashable, Sendable {
        case string(String)
        case integer(Int64)
        case bool(Bool)
        /// A TOML local date (`2026-11-23`).
        case date(year: Int, month: Int, day: Int)
        case array([Value])
        case table([String: Value])
        /// Anything else the format has (a float, a time): always refused, by what it is.
        case other(String)
    }

    /// One line: "rules.toml: rule “coffee”: amount: at most 2 decimals".
    public struct Problem: Error, Hashable, Sendable {
        public let message: String
        public init(_ message: String) { self.message = message }
    }

    public static let maxNameLength = 40

    /// Reads the file's tree. `file` names it in complaints; amounts are in `currency`; dates
    /// are days in `calendar` (a rule's `since` is that day's midnight there).
    public static func read(_ top: [String: Value], file: String, currency: Currency, calendar: Calendar) throws(Problem) -> RulesFile {
        var reader = Reader(file: file, currency: currency, calendar: calendar)
        return try reader.read(top)
    }

    private struct Reader {
        let file: String
        let currency: Currency
        let calendar: Calendar

        func problem(_ rule: String?, _ field: String?, _ what: String) -> Problem {
            let where_ = [rule.map { "rule “\(TextSanitizer.clean(String($0.prefix(Self.shown))))”" },
                          field.map { TextSanitizer.clean(String($0.prefix(Self.shown))) }].compactMap { $0 }
            return Problem(([file] + where_ + [what]).joined(separator: ": "))
        }

        static let shown = 40

        mutating func read(_ top: [String: Value]) throws(Problem) -> RulesFile {
            for key in top.keys.sorted() where key != "rules" && key != "rule" {
                throw problem(nil, key, "not a part of a rules file (it has [rules] and [[rule]])")
            }
            var file = RulesFile(rules: [])
            if let settings = top["rules"] {
                guard case .table(let table) = settings else { throw problem(nil, "rules", "wants a table: [rules]") }
                for key in table.keys.sorted() where key != "weekly-limit" && key != "keep-at-least" {
                    throw problem(nil, "rules." + key, "unknown (the [rules] table has weekly-limit and keep-at-least)")
                }
                file.weeklyLimit = try table["weekly-limit"].map { value throws(Problem) in try amount(value, nil, "weekly-limit") }
                file.keepAtLeast = try table["keep-at-least"].map { value throws(Problem) in try amount(value, nil, "keep-at-least", zero: true) }
            }
            guard let list = top["rule"] else { return file }
            guard case .array(let entries) = list else { throw problem(nil, "rule", "wants tables: [[rule]]") }
            var names: Set<String> = []
            for (index, entry) in entries.enumerated() {
                guard case .table(let fields) = entry else { throw problem(nil, "rule \(index + 1)", "wants a table: [[rule]]") }
                let rule = try read(rule: fields, number: index + 1)
                guard names.insert(rule.name.lowercased()).inserted else {
                    throw problem(rule.name, "name", "a second rule of that name (names are unique, in any case)")
                }
                // The round-up rule moves the week's round-ups under the round-ups' own key: a
                // second would be the same transfer.
                if case .roundUp = rule.kind, let first = file.rules.first(where: { if case .roundUp = $0.kind { true } else { false } }) {
                    throw problem(rule.name, "kind", "a second roundup rule (“\(first.name)” moves the week's round-ups; they move once)")
                }
                file.rules.append(rule)
            }
            return file
        }

        func read(rule fields: [String: Value], number: Int) throws(Problem) -> Rule {
            guard let nameValue = fields["name"] else { throw problem("rule \(number)", "name", "missing") }
            let name = try text(nameValue, "rule \(number)", "name")
            guard !name.isEmpty, name.count <= RulesFile.maxNameLength, name == TextSanitizer.clean(name),
                  !name.contains(where: { $0.isNewline }) else {
                throw problem("rule \(number)", "name", "wants 1 to \(RulesFile.maxNameLength) characters on one line")
            }
            guard let kindValue = fields["kind"] else { throw problem(name, "kind", "missing (one of \(Rule.Kind.names.joined(separator: ", ")))") }
            let kindName = try text(kindValue, name, "kind")
            guard let goalValue = fields["goal"] else { throw problem(name, "goal", "missing (a goal's name or id)") }
            let goal = try text(goalValue, name, "goal")
            guard !goal.isEmpty else { throw problem(name, "goal", "empty (a goal's name or id)") }

            var used: Set<String> = ["name", "kind", "goal", "since", "paused"]
            func field(_ key: String) -> Value? {
                used.insert(key)
                return fields[key]
            }
            func required(_ key: String, _ what: String) throws(Problem) -> Value {
                guard let value = field(key) else { throw problem(name, key, "missing (\(what))") }
                return value
            }
            func words(_ key: String) throws(Problem) -> [String] {
                guard let value = field(key) else { return [] }
                guard case .array(let items) = value, !items.isEmpty else { throw problem(name, key, "wants a list of words: [\"Pret\", \"Costa\"]") }
                var out: [String] = []
                for item in items {
                    guard case .string(let word) = item, !word.trimmingCharacters(in: .whitespaces).isEmpty else {
                        throw problem(name, key, "wants a list of words: [\"Pret\", \"Costa\"]")
                    }
                    out.append(TextSanitizer.clean(word))
                }
                return out
            }
            /// The payments a guilty pleasure or a spend-less rule counts: `match`, `category` or both.
            func payments() throws(Problem) -> (match: [String], category: [String]) {
                let match = try words("match")
                let category = try words("category")
                guard !match.isEmpty || !category.isEmpty else {
                    throw problem(name, "match", "missing (the words a payment's counterparty contains; or give category)")
                }
                return (match, category)
            }

            let kind: Rule.Kind
            switch kindName {
            case "roundup":
                var step: Int64?
                if let value = field("step") {
                    guard case .integer(let whole) = value, (1...1_000).contains(whole) else {
                        throw problem(name, "step", "wants a whole number of \(currency.code) from 1 to 1000")
                    }
                    step = whole * Int64(currency.minorPerUnit)
                }
                kind = .roundUp(step: step)
            case "guilty-pleasure":
                let each = try amount(try required("amount", "what each payment saves"), name, "amount")
                let payments = try payments()
                kind = .guiltyPleasure(amount: each, match: payments.match, category: payments.category)
            case "set-and-forget":
                let each = try amount(try required("amount", "what each week or month saves"), name, "amount")
                var every = Rule.Every.week
                if let value = field("every") {
                    guard case .string(let text) = value, let chosen = Rule.Every(rawValue: text) else {
                        throw problem(name, "every", "wants \"week\" or \"month\"")
                    }
                    every = chosen
                }
                kind = .setAndForget(amount: each, every: every)
            case "52-week":
                let unit = try amount(try required("amount", "week n saves n times this"), name, "amount")
                let start = try day(try required("start", "the Monday the challenge starts"), name, "start")
                guard calendar.component(.weekday, from: start) == 2 else { throw problem(name, "start", "wants a Monday") }
                var reverse = false
                if let value = field("reverse") {
                    guard case .bool(let flag) = value else { throw problem(name, "reverse", "wants true or false") }
                    reverse = flag
                }
                kind = .fiftyTwoWeek(amount: unit, start: start, reverse: reverse)
            case "spend-less":
                let target = try amount(try required("target", "what the week may come to"), name, "target")
                let payments = try payments()
                kind = .spendLess(target: target, match: payments.match, category: payments.category)
            case "payday":
                let percent = try hundredths(try required("percent", "1 to 100, at most two decimals"), name)
                let match = try words("match")
                let minimum = try field("minimum").map { value throws(Problem) in try amount(value, name, "minimum") }
                guard !match.isEmpty || minimum != nil else { throw problem(name, "match", "missing (the payer's name; or give minimum)") }
                kind = .payday(hundredthsOfAPercent: percent, match: match, minimum: minimum)
            default:
                throw problem(name, "kind", "unknown “\(TextSanitizer.clean(String(kindName.prefix(Self.shown))))” (one of \(Rule.Kind.names.joined(separator: ", ")))")
            }
            for key in fields.keys.sorted() where !used.contains(key) {
                throw problem(name, key, "not a field of a \(kindName) rule")
            }
            var rule = Rule(name: name, kind: kind, goal: TextSanitizer.clean(goal))
            if let value = fields["since"] { rule.since = try day(value, name, "since") }
            if let value = fields["paused"] {
                guard case .bool(let flag) = value else { throw problem(name, "paused", "wants true or false") }
                rule.paused = flag
            }
            return rule
        }

        func text(_ value: Value, _ rule: String?, _ field: String) throws(Problem) -> String {
            guard case .string(let text) = value else { throw problem(rule, field, "wants text in quotes") }
            return text.trimmingCharacters(in: .whitespaces)
        }

        /// An amount written as the app writes them, in quotes: "2.00", "1,000", "£300".
        func amount(_ value: Value, _ rule: String?, _ field: String, zero: Bool = false) throws(Problem) -> Money {
            let example = currency.minorDigits > 0 ? "\"2.00\"" : "\"300\""
            guard case .string(let text) = value else { throw problem(rule, field, "wants an amount in quotes, e.g. \(example)") }
            if zero, let plain = NewGoal.plainNumber(text, currency: currency), !plain.negative,
               plain.digits.allSatisfy({ $0 == "0" || $0 == "." }), plain.digits.contains("0") {
                return .zero(currency)
            }
            switch NewGoal.parseTarget(text.trimmingCharacters(in: .whitespaces), currency: currency) {
            case .success(let money?): return money
            case .success(nil): throw problem(rule, field, "empty (an amount, e.g. \(example))")
            case .failure(let message): throw problem(rule, field, message.text + " (\(currency.code))")
            }
        }

        /// A percentage from 1 to 100 with at most two decimals ("12.5", 10), in hundredths.
        func hundredths(_ value: Value, _ rule: String) throws(Problem) -> Int64 {
            let text: String
            switch value {
            case .integer(let whole): text = String(whole)
            case .string(let written): text = written.trimmingCharacters(in: .whitespaces)
            default: throw problem(rule, "percent", "wants a number from 1 to 100, e.g. 10 or \"12.5\"")
            }
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
                  parts[0].count <= 3, parts.count == 1 || parts[1].count <= 2,
                  let whole = Int64(parts[0]), let fraction = parts.count == 2 ? Int64(parts[1].padding(toLength: 2, withPad: "0", startingAt: 0)) : 0 else {
                throw problem(rule, "percent", "wants a number from 1 to 100 with at most two decimals")
            }
            let hundredths = whole * 100 + fraction
            guard (100...10_000).contains(hundredths) else { throw problem(rule, "percent", "wants a number from 1 to 100") }
            return hundredths
        }

        /// A day: a TOML date or "YYYY-MM-DD", as midnight in the calendar.
        func day(_ value: Value, _ rule: String, _ field: String) throws(Problem) -> Date {
            var parts: (Int, Int, Int)?
            switch value {
            case .date(let year, let month, let day): parts = (year, month, day)
            case .string(let text):
                let pieces = text.split(separator: "-", omittingEmptySubsequences: false)
                if pieces.count == 3, pieces[0].count == 4, pieces[1].count == 2, pieces[2].count == 2,
                   pieces.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
                   let year = Int(pieces[0]), let month = Int(pieces[1]), let day = Int(pieces[2]) {
                    parts = (year, month, day)
                }
            default: break
            }
            guard let (year, month, day) = parts, (1970...9999).contains(year) else {
                throw problem(rule, field, "wants a date, e.g. 2026-11-23")
            }
            let components = DateComponents(year: year, month: month, day: day)
            guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else {
                throw problem(rule, field, "no such day")
            }
            return calendar.startOfDay(for: date)
        }
    }
}
