import Foundation

/// A person (`GET /users/:id`).
public struct User: Identifiable, Hashable, Sendable {
    public var id: Int
    public var displayName: String
    public var avatarURL: URL?

    public init(id: Int, displayName: String, avatarURL: URL? = nil) {
        self.id = id
        self.displayName = TextSanitizer.clean(displayName)
        self.avatarURL = avatarURL
    }

    /// Up to two initials: "Mikael" → "M", "Anna Berg" → "AB".
    public var initials: String {
        let words = displayName.split(separator: " ").prefix(2)
        let letters = words.compactMap(\.first).map { String($0).uppercased() }
        return letters.isEmpty ? "?" : letters.joined()
    }

    /// How a user that could not be fetched is shown.
    public static func placeholderName(for id: Int) -> String { "User #\(id)" }
    /// A user whose look-up failed (not a 404): the server may know them.
    public static func notLoadedName(for id: Int) -> String { "User \(id) (not loaded)" }
}

extension User: Codable {
    enum CodingKeys: String, CodingKey { case userId, displayName, avatarUrl }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let id = try container.decode(Int.self, forKey: .userId)
        let name = try container.decodeIfPresent(String.self, forKey: .displayName)
        self.init(id: id, displayName: name ?? User.placeholderName(for: id), avatarURL: container.urlIfPresent(.avatarUrl))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .userId)
        try container.encode(displayName, forKey: .displayName)
        try container.encodeIfPresent(avatarURL?.absoluteString, forKey: .avatarUrl)
    }
}

/// `GET /users/:id` answers with a user object, or (as seed 001 prints it) an array of one.
public struct UserResponse: Decodable, Sendable {
    public var user: User

    public init(from decoder: Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            guard !array.isAtEnd else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "an empty array, expected one user"))
            }
            user = try array.decode(User.self)
        } else {
            user = try User(from: decoder)
        }
    }
}
