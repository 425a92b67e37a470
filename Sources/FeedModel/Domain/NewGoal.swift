import Foundation

/// The fields of a goal to create, checked as the form and `POST /savingsgoals` check them.
public struct NewGoal: Hashable, Sendable {
    public static let maxNameLength = 60

    public var name: String
    public var target: Money?
    /// The goal's photo: PNG or JPEG bytes (the form checked them), sent with the goal.
    public var photo: Data?

    public init(name: String, target: Money?, photo: Data? = nil) {
        self.name = name
        self.target = target
        self.photo = photo
    }

    /// The largest photo a goal takes.
    public static let maxPhotoBytes = 10 * 1024 * 1024

    /// What the bytes are: "png", "jpeg", or nil for anything else (by their first bytes).
    public static func photoFormat(_ data: Data) -> String? {
        let head = [UInt8](data.prefix(8))
        if head == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return "png" }
        if head.count >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF { return "jpeg" }
        return nil
    }

    /// What is wrong with each field, in words short enough to stand beside it.
    public struct Problems: Error, Hashable, Sendable {
        public var name: String?
        public var target: String?
        public var isEmpty: Bool { name == nil && target == nil }

        public init(name: String? = nil, target: String? = nil) {
            self.name = name
            self.target = target
        }
    }

    /// Checks the form's text: the name trimmed, required, at most 60 characters; the target
    /// optional, a positive amount with at most the currency's decimals ("250", "99.50").
    public static func validate(name rawName: String, target rawTarget: String, currency: Currency) -> Result<NewGoal, Problems> {
        var problems = Problems()
        let name = rawName.trimmingCharacters(in: .whitespacesAndNewlines)
        if name.isEmpty {
            problems.name = "a name is required"
        } else if name.count > maxNameLength {
            problems.name = "at most \(maxNameLength) characters (\(name.count) now)"
        }
        var target: Money?
        switch parseTarget(rawTarget.trimmingCharacters(in: .whitespaces), currency: currency) {
        case .success(let money): target = money
        case .failure(let message): problems.target = message.text
        }
        guard problems.isEmpty else { return .failure(problems) }
        return .success(NewGoal(name: name, target: target))
    }

    struct Message: Error { let text: String }

    /// An amount as the app writes it ("$1,500.00", "-$4.00", "CHF 1,250.50", "1,000", "250 USD")
    /// down to its sign and plain digits ("1500.00"): the currency's own symbol or code at either
    /// end, and thousands separators only where they group three digits. Nil when something else is there.
    static func plainNumber(_ text: String, currency: Currency) -> (negative: Bool, digits: String)? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        var negative = false
        func dropSign() {
            if rest.hasPrefix("-") || rest.hasPrefix("−") {
                negative = true
                rest = rest.dropFirst().drop { $0 == " " }
            }
        }
        dropSign()
        let marks = [currency.symbol.trimmingCharacters(in: .whitespaces), currency.code].filter { !$0.isEmpty }
        for mark in marks {
            if rest.range(of: mark, options: [.anchored, .caseInsensitive]) != nil {
                rest = rest.dropFirst(mark.count).drop { $0 == " " }
                break
            }
            if rest.range(of: mark, options: [.anchored, .backwards, .caseInsensitive]) != nil {
                rest = Substring(rest.dropLast(mark.count).trimmingCharacters(in: .whitespaces))
                break
            }
        }
        if !negative { dropSign() }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return nil }
        let whole = parts[0]
        if whole.contains(",") {
            // "1,000" and "12,345,678", never "1,0" or ",100".
            let groups = whole.split(separator: ",", omittingEmptySubsequences: false)
            guard (1...3).contains(groups[0].count), groups.dropFirst().allSatisfy({ $0.count == 3 }) else { return nil }
        }
        let digits = whole.filter { $0 != "," } + (parts.count == 2 ? "." + parts[1] : "")
        return (negative, String(digits))
    }

    static func parseTarget(_ text: String, currency: Currency) -> Result<Money?, Message> {
        guard !text.isEmpty else { return .success(nil) }
        let example = currency.minorDigits > 0 ? "e.g. 250 or 99.50" : "e.g. 250"
        guard let plain = plainNumber(text, currency: currency) else {
            return .failure(Message(text: "not an amount, \(example)"))
        }
        let (negative, digits) = plain
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty || parts.count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              parts.contains(where: { !$0.isEmpty }) else {
            return .failure(Message(text: "not an amount, \(example)"))
        }
        if parts.count == 2 && parts[1].count > currency.minorDigits {
            return .failure(Message(text: currency.minorDigits == 0 ? "no decimals in \(currency.code)"
                : "at most \(currency.minorDigits) decimals"))
        }
        guard let money = Money(string: String(digits), currency: currency) else {
            return .failure(Message(text: "too large"))
        }
        if negative || money.minorUnits <= 0 { return .failure(Message(text: "must be more than zero")) }
        return .success(money)
    }
}
