import Foundation

/// The two timestamp forms of the API: `2015-03-10T14:55:16.025Z` and `2016-10-04T00:00:00+00:00`.
public enum Timestamp {
    public static func parse(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: withFraction) { return date }
        return try? Date(text, strategy: withoutFraction)
    }

    /// `2016-10-04T00:00:00+00:00`, the form `/activities` takes in its query.
    public static func queryString(_ date: Date) -> String {
        var text = date.formatted(withoutFraction)
        if text.hasSuffix("Z") { text.removeLast(); text += "+00:00" }
        return text
    }

    /// `2015-03-10T14:55:16.025Z`, the form of feed timestamps.
    public static func feedString(_ date: Date) -> String {
        date.formatted(withFraction)
    }

    static func decode(_ decoder: Decoder) throws -> Date {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = parse(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a timestamp: \"\(text.prefix(40))\"")
        }
        return date
    }

    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
    private static let withoutFraction = Date.ISO8601FormatStyle(timeZone: .gmt)
}
