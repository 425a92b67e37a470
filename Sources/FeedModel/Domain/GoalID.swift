import Foundation

/// A savings goal's id: a number for the Qapital API (`"id": 3`), a UID string for Starling
/// (`"savingsGoalUid": "…"`). Integer literals still read as ids (`Goal(id: 3, …)`).
public struct GoalID: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByIntegerLiteral,
                      ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = TextSanitizer.clean(rawValue) }
    public init(_ number: Int) { self.rawValue = String(number) }
    public init(integerLiteral value: Int) { self.init(value) }
    public init(stringLiteral value: String) { self.init(value) }

    /// The number of a Qapital id; nil for a UID.
    public var number: Int? { Int(rawValue) }

    public var description: String { rawValue }

    /// Safe to put between two slashes of a URL path.
    public var pathComponent: String {
        rawValue.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }

    /// Numbers sort as numbers (2 before 10), UIDs as text.
    public static func < (lhs: GoalID, rhs: GoalID) -> Bool {
        switch (lhs.number, rhs.number) {
        case let (left?, right?): left < right
        default: lhs.rawValue < rhs.rawValue
        }
    }
}

extension GoalID: Codable {
    /// A JSON number or string.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            self.init(number)
        } else {
            self.init(try container.decode(String.self))
        }
    }

    /// Written back the way it came: numbers as JSON numbers, UIDs as strings.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        if let number { try container.encode(number) } else { try container.encode(rawValue) }
    }
}
