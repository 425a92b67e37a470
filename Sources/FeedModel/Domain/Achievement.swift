import Foundation

/// One achievement of the achievements file (seed 004's format).
public struct Achievement: Identifiable, Hashable, Sendable {
    public var id: Int
    /// The level as written ("1"); `levelNumber` is its numeric value for ordering.
    public var level: String
    public var progress: Int
    public var total: Int
    public var backgroundImageURL: URL?
    public var isAccessible: Bool

    public init(id: Int, level: String, progress: Int, total: Int, backgroundImageURL: URL? = nil, isAccessible: Bool) {
        self.id = id
        self.level = TextSanitizer.clean(level)
        self.progress = progress
        self.total = total
        self.backgroundImageURL = backgroundImageURL
        self.isAccessible = isAccessible
    }

    public var levelNumber: Int? { Int(level.trimmingCharacters(in: .whitespaces)) }
    public var isLocked: Bool { !isAccessible }
}

extension Achievement: Decodable {
    enum CodingKeys: String, CodingKey { case id, level, progress, total, bg_image_url, accessible }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let level: String
        if let text = try? container.decode(String.self, forKey: .level) {
            level = text
        } else {
            level = String(try container.decode(Int.self, forKey: .level))
        }
        guard Int(level.trimmingCharacters(in: .whitespaces)) != nil else {
            throw DecodingError.dataCorruptedError(forKey: .level, in: container, debugDescription: "level is not a number")
        }
        self.init(
            id: try container.decode(Int.self, forKey: .id),
            level: level,
            progress: try container.decode(Int.self, forKey: .progress),
            total: try container.decode(Int.self, forKey: .total),
            backgroundImageURL: container.urlIfPresent(.bg_image_url),
            isAccessible: try container.decodeIfPresent(Bool.self, forKey: .accessible) ?? false
        )
    }
}

/// The achievements file: an overview title and the achievements, sorted by numeric level.
/// A single bad entry is skipped and counted, not the whole file.
public struct AchievementsFile: Decodable, Sendable {
    public var title: String
    public var achievements: [Achievement]
    /// Entries that could not be read, with the reason, for a note in the status bar.
    public var skipped: [String]

    public init(title: String, achievements: [Achievement], skipped: [String] = []) {
        self.title = TextSanitizer.clean(title)
        self.achievements = achievements.sorted { ($0.levelNumber ?? .max, $0.id) < ($1.levelNumber ?? .max, $1.id) }
        self.skipped = skipped
    }

    enum CodingKeys: String, CodingKey { case overview, achievements }
    enum OverviewKeys: String, CodingKey { case title }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var title = ""
        if let overview = try? container.nestedContainer(keyedBy: OverviewKeys.self, forKey: .overview) {
            title = try overview.decodeIfPresent(String.self, forKey: .title) ?? ""
        }
        var entries = try container.nestedUnkeyedContainer(forKey: .achievements)
        var achievements: [Achievement] = []
        var skipped: [String] = []
        while !entries.isAtEnd {
            let index = entries.currentIndex
            do {
                achievements.append(try entries.decode(Achievement.self))
            } catch {
                skipped.append(PayloadDecoder.explain(error, place: "achievements[\(index)]"))
                // Step over the bad element so the rest can still be read.
                _ = try? entries.decode(SkipValue.self)
                if entries.currentIndex == index { _ = try? entries.decodeNil() }
                if entries.currentIndex == index { throw error }
            }
        }
        self.init(title: title, achievements: achievements, skipped: skipped)
    }
}

/// Decodes anything and keeps nothing: steps an unkeyed container past a bad element.
struct SkipValue: Decodable {
    init(from decoder: Decoder) throws {}
}
