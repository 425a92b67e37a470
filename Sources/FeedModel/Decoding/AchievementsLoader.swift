import Foundation

/// Reads an achievements file (seed 004's format) with messages a person can act on.
public enum AchievementsLoader {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
        public init(message: String) { self.message = message }
    }

    public static func load(contentsOf url: URL) throws(Failure) -> AchievementsFile {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = (error as NSError).userInfo[NSUnderlyingErrorKey].map { ($0 as? NSError)?.localizedDescription ?? "" } ?? ""
            let detail = reason.isEmpty ? "cannot be read" : reason
            throw Failure(message: "cannot read the achievements file \(TextSanitizer.clean(url.path)): \(FileManager.default.fileExists(atPath: url.path) ? detail : "no such file")")
        }
        return try decode(data, name: url.lastPathComponent)
    }

    public static func decode(_ data: Data, name: String) throws(Failure) -> AchievementsFile {
        do {
            return try PayloadDecoder().decode(AchievementsFile.self, from: data, resource: TextSanitizer.clean(name))
        } catch {
            throw Failure(message: error.description)
        }
    }

    /// The status-bar note for entries that were skipped, or nil.
    public static func skippedNote(_ file: AchievementsFile) -> String? {
        guard let first = file.skipped.first else { return nil }
        let count = file.skipped.count
        return "achievements: skipped \(count) bad \(count == 1 ? "entry" : "entries") (\(first))"
    }
}
